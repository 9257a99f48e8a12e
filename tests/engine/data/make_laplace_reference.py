r"""Reference ε for DP-SGD by Laplace inversion, independent of gdp and of FFT accountants.

For the Poisson-subsampled Gaussian with add/remove neighbours (noise multiplier σ, rate p,
:math:`\mu = 1/\sigma`) the per-step privacy loss of the first order is
:math:`L = \log r(x)`, :math:`r(x) = 1 - p + p e^{\mu x - \mu^2/2}`, with x drawn from the
mixture Q, so :math:`M(z) = E_Q[e^{zL}] = \int \varphi(x) r(x)^{z+1} dx`; for the other
order (x drawn from N(0, 1), loss :math:`-L`) :math:`M(z) = \int \varphi(x) r(x)^{-z} dx`.
Since :math:`(1 - e^{\varepsilon - s})_+` is the inverse Laplace transform of
:math:`e^{-z\varepsilon}/(z(z+1))` (Re z > 0), the T-fold composition has

.. math:: \delta(\varepsilon) = \frac{1}{\pi}\int_0^\infty \operatorname{Re}
    \frac{M(\lambda + it)^T e^{-(\lambda + it)\varepsilon}}{(\lambda+it)(\lambda+it+1)}\,dt

for any λ > 0 (taken at the saddle point). Both integrals are done by adaptive quadrature
(``scipy.integrate.quad``, relative tolerance 2e-14 inside, 1e-10 outside), with no
discretisation of the loss and no transform; T multiplies the error of log M, which
stays near 1e-14. ε(δ) is the larger of the two orders' roots of δ(ε) = δ, found by the
secant method to a relative 1e-7 starting from two guesses.

Writes ``laplace_reference.json`` next to this script (provenance in the file). Used by
``tests/engine/test_laplace_oracle.py``: gdp's bracket must hold these values. Chosen
configurations: ordinary ones and those where dp-accounting's pessimistic ε was found
below gdp's bracket (large ε at tiny δ). The method needs the integrand to decay within the
range integrated, i.e. no part of the law on one point (runs where p T is of order 1 or
less: some steps never sampled); the script checks that and refuses otherwise. Run ``python
tests/engine/data/make_laplace_reference.py`` (a few minutes per configuration).

``DELTA_AT`` adds δ at a given ε (the larger of the two orders') for T rarely sampled steps
at large δ (σ near 0.5, p of 1e-6 to 1e-5, millions of steps, δ of 1e-5 to 1e-2): each
step's law is a bulk about :math:`p\sqrt{e^{\mu^2} - 1}` wide beside a heavy tail of
sampled steps, so the composition's integrand decays on the scale of the whole bulk's
inverse spread (a few hundred in t), far beyond the saddle point's; the range is doubled
until it has decayed by the same test (``wide``). Each evaluation takes minutes (the
quadrature of M at each t), so these rows give δ at one ε near the truth rather than ε at
a δ; gdp's sound ε at that δ must lie at or above that ε.
"""

from __future__ import annotations

import datetime
import json
import math
import platform
from pathlib import Path

import numpy as np
import scipy
from scipy import integrate, optimize

OUT = Path(__file__).with_name("laplace_reference.json")

CONFIGS = [  # sigma, p, steps, delta, first guess of eps
    (1.0, 0.01, 10_000, 1e-5, 6.19),
    (1.0, 0.01, 10_000, 1e-10, 9.32),
    (1.4144093103132185, 0.006278353476162151, 150_704, 2.8903955150141618e-11, 14.43),
    (3.1943980533132406, 0.9649781608451775, 3152, 1.9472132455902356e-10, 249.353),
    (6.7381406124785865, 0.21930767449667968, 2114, 1.568055416779819e-14, 12.299),
    (0.9, 0.05, 2000, 1e-8, 26.08),
    # a fresh cross-check's flags (seed 20261130, dp-accounting at 1e-4, its optimistic /
    # pessimistic eps): 1.4758 / 1.3746 against gdp's [1.25291, 1.25318]
    (2.336836602645219, 0.015256912334826778, 513, 1.352289233621391e-15, 1.2532),
    # 2.53934 / 2.55482 against [2.55503, 2.55551]
    (6.747516170121909, 0.13707253029583974, 312, 4.0931941699041325e-13, 2.5555),
    # 603.478 / 611.420 against [593.097, 593.238]
    (1.1690800085610322, 0.2558096068141606, 12980, 4.4855526327619275e-14, 593.24),
    # 3.74800 / 3.75679 against [3.74605, 3.74681]
    (3.0341569650187483, 0.146091694921843, 81, 9.61521266948806e-15, 3.7468),
    # 464.432 / 447.087 against [448.492, 448.633]
    (0.8061605795856679, 0.2562225760907363, 3497, 1.9006075202403384e-14, 448.63),
    # 231.352 / 230.133 against [230.052, 230.160]
    (0.45822925688937677, 0.1577247680630934, 462, 3.873201138682678e-15, 230.16),
    # seed 20261201: 12569.43 / 12586.97 against [12558.21, 12561.26]
    (0.4970602384090553, 0.5459975288569469, 14490, 5.727511895047566e-13, 12561.26),
    # seed 20261202, large eps at ordinary delta: 1188.780 / 1188.912 against
    # [1187.592, 1188.109]; 969.653 / 969.852 against [968.797, 969.054]; 2284.624 /
    # 2284.886 against [2283.737, 2284.259]
    (0.5005251766396629, 0.3350843194537658, 2635, 8.441418178819997e-05, 1188.11),
    (0.6593626676945344, 0.3376399391611456, 3980, 5.386878089797296e-07, 969.05),
    (0.763171621460033, 0.6015570149284338, 5322, 1.9439783577542337e-10, 2284.26),
    # the same seed, pessimistic eps below gdp's lower end: 27.94137 / 28.51958 against
    # [28.51986, 28.52630]; 0.370719 / 1.180898 against [1.181829, 1.182053]
    (2.743632280940475, 0.08697229615731124, 11610, 6.452690417587596e-11, 28.526),
    (5.699613828181878, 0.007683321603179015, 16187, 2.195094974279569e-13, 1.182),
    # seed 20261203: 2.198940 / 2.412072 against [2.412126, 2.412571] at delta = 3.7e-12;
    # 1373.123 / 1373.196 against [1372.040, 1372.385]; 3.361050 / 3.407424 against
    # [3.414011, 3.414644]; 196.893 / 196.799 against [197.612, 197.655]
    (2.1033875308344996, 0.010844973245640568, 4264, 3.673254350450701e-12, 2.4124),
    (0.5190413062541744, 0.9772387920919163, 587, 1.3672181105140529e-12, 1372.2),
    (4.669374584404655, 0.06978151426407803, 892, 2.3591553915770483e-14, 3.4143),
    (0.8296697470417721, 0.5160815880545511, 357, 9.127969534068934e-15, 197.63),
    # seed 20261204: 3045.272 / 2965.008 against [3003.047, 3003.837] at delta = 2.7e-15
    # (both of dp-accounting's values on their unsafe sides)
    (1.718602195633231, 0.8881173165406167, 18291, 2.739334245542516e-15, 3003.5),
    # seed 20261205 (all at delta <= 2.2e-13): 643.304 / 629.946 against [651.630, 651.858];
    # 10.69052 / 10.70782 against [10.72979, 10.73253]; 50.607 / 46.556 against [47.830,
    # 47.841]; 90.687 / 90.867 against [90.441, 90.457]; 19.3236 / 19.3547 against
    # [19.3084, 19.3126]; 92.865 / 93.621 against [86.100, 86.122]; 2.62772 / 2.62908
    # against [2.61991, 2.62057] (7 steps)
    (0.6274799958560724, 0.14304042125380817, 7275, 2.1201765405240126e-15, 651.77),
    (2.839672799394844, 0.1829169109248835, 371, 1.5669155916413527e-14, 10.7307),
    (4.074138083520763, 0.24951928133245782, 5741, 1.5391169527887793e-15, 47.834),
    (4.939402224787203, 0.9308771561914022, 1833, 2.1581180506002592e-13, 90.446),
    (9.006550046105657, 0.7565832294880069, 744, 5.047694294956063e-14, 19.3099),
    (5.383981859877108, 0.30207979273644675, 17612, 2.8285036769583352e-15, 86.108),
    (3.904082858535195, 0.4284479771015555, 7, 6.6140449122782796e-15, 2.6202),
    # seed 20261206: 1281.3085 / 1281.9718 against [1280.894, 1281.196] at delta = 2.2e-8;
    # 32.9192 / 32.9574 against [32.9830, 32.9931] at 1.6e-13; 404.668 / 405.487 against
    # [405.655, 405.766] at 1.1e-12
    (0.8552000992981461, 0.2898419208179936, 13265, 2.1549151622555626e-08, 1281.02),
    (0.9464131887026226, 0.0801144501160978, 886, 1.5803415558517121e-13, 32.988),
    (0.8819252358369503, 0.20993453257761857, 5851, 1.0899122768074293e-12, 405.70),
    # seed 20261208: 78.6755 / 78.0452 against [74.6641, 74.6824] at delta = 4.2e-15;
    # 88.3480 / 88.5495 against [88.6071, 88.6233] at 5.4e-12; 77.9598 / 78.0154 against
    # [78.0394, 78.0535] at 2.4e-12; 3.48232 / 3.60021 against [3.60676, 3.60744] at 6.8e-14
    (2.9712727564193204, 0.27864877535928995, 4917, 4.16074921383186e-15, 74.67),
    (1.3430630686267775, 0.1379474413794436, 4900, 5.396085132492761e-12, 88.613),
    (4.010063994154444, 0.7148291044954341, 1706, 2.3591483800925087e-12, 78.044),
    (3.358386057426923, 0.03224638458870898, 2451, 6.78328140517896e-14, 3.607),
]
_CUTS = [-40.0, -10.0, -5.0, 0.0, 5.0, 10.0, 20.0, 40.0, 80.0]
# the most doublings of the range of a wide inversion (delta)
_DOUBLINGS = 8
# sigma, p, steps, eps: δ(ε) (the larger of the two orders') by the wide inversion, for T
# rarely sampled steps at large δ, where the integrand decays on the narrow bulk's scale
# and the secant of ``epsilon`` would cost too many of these evaluations (minutes each)
DELTA_AT = [
    # gdp's default sound eps at delta = 1.6888746e-4 was 0.138741 (1.5e-4 above the truth:
    # the window's cap of points stopped the refinement), its bracket at rtol=1e-4
    # [0.1385475, 0.1386549]
    (0.4935494356031456, 2.6504917024335827e-06, 6_725_159, 0.13859),
    # the box's corner (sigma = 0.4, p = 1e-6, 10^7 steps) at delta = 1e-2: the default
    # sound eps was 0.0536734, its bracket 3.0% wide
    (0.4, 1e-6, 10_000_000, 0.05237),
]


def log_mgf(z: complex, mu: float, p: float, order: int) -> complex:
    """log M(z) of one step's privacy loss (order 1 or -1), by quadrature."""
    lq1, lp = math.log1p(-p), math.log(p)
    w = (z + 1.0) if order == 1 else -z

    def f(x: float, part: int) -> float:
        lr = np.logaddexp(lq1, lp + mu * x - 0.5 * mu * mu)
        v = np.exp(w * lr - 0.5 * x * x - 0.5 * math.log(2.0 * math.pi))
        return float(v.real if part == 0 else v.imag)

    re = im = 0.0
    for a, b in zip(_CUTS[:-1], _CUTS[1:], strict=True):
        re += integrate.quad(f, a, b, args=(0,), epsabs=0, epsrel=2e-14, limit=400)[0]
        if complex(z).imag != 0.0:
            im += integrate.quad(f, a, b, args=(1,), epsabs=0, epsrel=2e-14, limit=400)[0]
    return complex(math.log(abs(complex(re, im))), math.atan2(im, re))


def delta(eps: float, sigma: float, p: float, steps: int, order: int,
          wide: bool = False) -> float:
    """δ(ε) of one order of the composition, by Laplace inversion at the saddle point.
    ``wide``: where the integrand has not decayed at the end of the range, the range is
    doubled (up to ``_DOUBLINGS`` times) until it has (``DELTA_AT``)."""
    return delta_of_phases(eps, [(sigma, p, steps)], order, wide)


def delta_of_phases(eps: float, phases: list[tuple[float, float, int]], order: int,
                    wide: bool = False) -> float:
    """:func:`delta` of a run in phases ``(sigma, p, steps)``: the log moment generating
    function of the composition is the sum of the phases' (``make_phases_reference.py``)."""

    def logm(z: complex) -> complex:
        return sum(steps * log_mgf(z, 1.0 / sigma, p, order) for sigma, p, steps in phases)

    def K(lam: float) -> float:
        return logm(lam).real

    def g(lam: float) -> float:
        return K(lam) - lam * eps - math.log(lam * (lam + 1.0))

    hi = 20.0 if order == 1 else 200.0
    lam = optimize.minimize_scalar(g, bounds=(1e-3, hi), method="bounded",
                                   options=dict(xatol=1e-7)).x
    k0 = K(lam) - lam * eps
    d = 1e-4 * max(lam, 1e-2)
    k2 = (K(lam + d) - 2.0 * K(lam) + K(lam - d)) / (d * d)
    sd = 1.0 / math.sqrt(max(k2, 1e-300))

    def integrand(t: float) -> float:
        z = complex(lam, t)
        v = logm(z) - z * eps - k0
        return (np.exp(v) / (z * (z + 1.0))).real

    span = 12.0 * sd
    val = integrate.quad(integrand, 0.0, span, epsabs=0, epsrel=1e-10, limit=400)[0]
    # the truncated range must hold the integral: where a part of the law sits on one
    # point (p T of order 1 or less: steps never sampled), |M(lam + it)|^T does not decay
    # and the method does not apply; where the law is a narrow bulk beside a heavy tail
    # (T rarely sampled steps at large δ), it decays on the scale of the bulk's spread,
    # far beyond the saddle point's (``wide``)
    scale = sd  # (the range over 12)
    for k in range(_DOUBLINGS + 1):
        tail = max(abs(integrand(span * f)) for f in (1.0, 2.0, 8.0))
        if tail * 1e3 * scale <= 1e-9 * abs(val):
            return math.exp(k0) * val / math.pi
        if not wide or k == _DOUBLINGS:
            break
        cuts = np.linspace(span, 2.0 * span, 9)
        val += math.fsum(integrate.quad(integrand, a, b, epsabs=0, epsrel=1e-10, limit=400)[0]
                         for a, b in zip(cuts[:-1], cuts[1:], strict=True))
        span, scale = 2.0 * span, 2.0 * scale
    raise ValueError(f"the integrand does not decay (phases (sigma, p, T) {phases})")


def epsilon(sigma: float, p: float, steps: int, target: float, guess: float) -> dict:
    """The larger of the two orders' ε at δ = target (secant in log δ)."""
    out = {}
    for order in (1, -1):
        x = guess
        for _ in range(60):  # the other order's ε can be far smaller: a start with δ > 0
            if delta(x, sigma, p, steps, order) > 0.0:
                break
            x *= 0.5
        x0, x1 = x * (1.0 - 2e-3), x * (1.0 + 2e-3)
        f0 = math.log(delta(x0, sigma, p, steps, order) / target)
        f1 = math.log(delta(x1, sigma, p, steps, order) / target)
        for _ in range(12):
            if f1 == f0:
                break
            x2 = x1 - f1 * (x1 - x0) / (f1 - f0)
            x0, f0 = x1, f1
            x1 = max(x2, 1e-12)
            d1 = delta(x1, sigma, p, steps, order)
            while not d1 > 0.0:  # overshot above the support of the quadrature's reach
                x1 = 0.5 * (x1 + x0)
                d1 = delta(x1, sigma, p, steps, order)
            f1 = math.log(d1 / target)
            if abs(x1 - x0) <= 1e-7 * abs(x1):
                break
        out[order] = x1
    return dict(eps=max(out.values()), eps_order1=out[1], eps_order_minus1=out[-1])


def main() -> None:
    recs = []
    for s, p, t, d, guess in CONFIGS:
        r = dict(sigma=s, p=p, steps=t, delta=d, **epsilon(s, p, t, d, guess))
        print(r, flush=True)
        recs.append(r)
    at = []
    for s, p, t, e in DELTA_AT:
        d1, d2 = (delta(e, s, p, t, order, wide=True) for order in (1, -1))
        r = dict(sigma=s, p=p, steps=t, eps=e, delta=max(d1, d2), delta_order1=d1,
                 delta_order_minus1=d2)
        print(r, flush=True)
        at.append(r)
    prov = dict(script="tests/engine/data/make_laplace_reference.py",
                date=datetime.date.today().isoformat(), python=platform.python_version(),
                numpy=np.__version__, scipy=scipy.__version__,
                method="Laplace inversion of the T-fold moment generating function at the "
                       "saddle point, adaptive quadrature (see the script's docstring); "
                       "secant to a relative 1e-7")
    OUT.write_text(json.dumps(dict(provenance=prov, configurations=recs, delta_at_eps=at),
                              indent=1) + "\n")


if __name__ == "__main__":
    main()
