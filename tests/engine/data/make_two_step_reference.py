r"""Reference ε for two steps of DP-SGD by direct quadrature, in 40 digits, independent of gdp.

For the Poisson-subsampled Gaussian with add/remove neighbours (noise multiplier σ, rate p,
:math:`\mu = 1/\sigma`, :math:`r(x) = 1 - p + p e^{\mu x - \mu^2/2}`) one step's profile at
any real threshold y has a closed form: for the first order (Q the mixture
:math:`(1-p)N(0,1) + pN(\mu,1)`, P = N(0, 1), c = e^y - 1 + p)

.. math:: \delta_1(y) = p\bar\Phi(x^* - \mu) - c\,\bar\Phi(x^*),\quad
          x^* = (\log(c/p) + \mu^2/2)/\mu \qquad (c > 0;\ 1 - e^y \text{ else}),

and for the other (Q = N(0, 1), P the mixture, :math:`a = 1 - e^y(1-p)`)
:math:`\delta_1(y) = a\Phi(x^*) - e^y p\,\Phi(x^* - \mu)` with :math:`x^* = (\log(a/(e^y
p)) + \mu^2/2)/\mu` (0 where a ≤ 0). Two steps are the one-dimensional integral
:math:`\delta_2(\varepsilon) = E_{x \sim Q}[\delta_1(\varepsilon - L(x))]`, L = log r for the
first order and -log r for the other, taken by ``mpmath.quad`` (tanh-sinh) in 40 digits over
pieces split at the kink of :math:`\delta_1` (where c = 0); ε(δ) is each order's root of
:math:`\log\delta_2(\varepsilon) = \log\delta` by bisection to 1e-15, the larger of the two
orders'. No discretisation, no transform, no tilt: the few-step, tiny-δ corner where
dp-accounting's own estimates can both lie above the truth (the first configuration: a
cross-check flag, dp-accounting 0.09771 / 0.09781 at a discretisation of 1e-4) and where
the Laplace-inversion reference refuses (p T below 1).

Writes ``two_step_reference.json`` next to this script (provenance in the file). Used by
``tests/engine/test_oracles.py``. Run ``python tests/engine/data/make_two_step_reference.py``
(about a minute per configuration).
"""

from __future__ import annotations

import datetime
import importlib.metadata
import json
import platform
from pathlib import Path

import mpmath as mp

OUT = Path(__file__).with_name("two_step_reference.json")

CONFIGS = [  # sigma, p, delta, an ε above both orders' answers
    (3.1278677822033187, 0.0121255884975473, 7.113453826417231e-15, 1.0),
    (1.0, 0.01, 1e-10, 4.0),
    (0.7, 0.3, 1e-12, 20.0),
    # a fresh cross-check's flag (seed 20261130): dp-accounting 1.65430 / 1.65438 at 1e-4,
    # gdp's bracket [1.65291, 1.65338]
    (5.703540232888928, 0.8954327687147899, 2.4087621806406857e-14, 3.0),
]


def two_steps(sigma: float, p: float) -> tuple:
    """The two orders' two-step profiles ε ↦ δ_2(ε), in mpmath's precision."""
    p, mu = mp.mpf(p), 1 / mp.mpf(sigma)

    def one_first(y):
        c = mp.e ** y - 1 + p
        if c <= 0:
            return 1 - mp.e ** y
        xs = (mp.log(c / p) + mu ** 2 / 2) / mu
        return p * mp.ncdf(mu - xs) - c * mp.ncdf(-xs)

    def one_other(y):
        a = 1 - mp.e ** y * (1 - p)
        if a <= 0:
            return mp.mpf(0)
        xs = (mp.log(a / (mp.e ** y * p)) + mu ** 2 / 2) / mu
        return a * mp.ncdf(xs) - mp.e ** y * p * mp.ncdf(xs - mu)

    def loss(x):
        return mp.log(1 - p + p * mp.e ** (mu * x - mu ** 2 / 2))

    def x_of_loss(t):  # (the x with log r(x) = t; None outside r's range)
        v = mp.e ** t - 1 + p
        return (mp.log(v / p) + mu ** 2 / 2) / mu if v > 0 else None

    def first(eps):
        def f(x):
            return ((1 - p) * mp.npdf(x) + p * mp.npdf(x - mu)) * one_first(eps - loss(x))
        kink = x_of_loss(eps - mp.log(1 - p))
        return _quad(f, kink)

    def other(eps):
        def f(x):
            return mp.npdf(x) * one_other(eps + loss(x))
        kink = x_of_loss(-mp.log(1 - p) - eps)
        return _quad(f, kink)

    return first, other


def _quad(f, kink) -> mp.mpf:
    pts = {-mp.inf, mp.mpf(-10), mp.mpf(-5), mp.mpf(0), mp.mpf(5), mp.mpf(10), mp.mpf(20),
           mp.mpf(40), mp.inf}
    if kink is not None:
        pts.add(kink)
    return mp.quad(f, sorted(pts))


def root(profile, delta: float, hi: float) -> mp.mpf:
    """The ε where ``profile`` falls to ``delta``, by bisection on [0, hi] (the profile
    decreases); 0 where it is already at most ``delta`` at 0."""
    target = mp.log(mp.mpf(delta))
    lo, hi = mp.mpf(0), mp.mpf(hi)

    def above(e):
        d = profile(e)
        return d > 0 and mp.log(d) > target

    if not above(lo):
        return lo
    assert not above(hi), "the given upper ε is below the answer"
    while hi - lo > mp.mpf(10) ** -15 * (1 + hi):
        mid = (lo + hi) / 2
        if above(mid):
            lo = mid
        else:
            hi = mid
    return hi


def main() -> None:
    mp.mp.dps = 40
    out = []
    for sigma, p, delta, hi in CONFIGS:
        first, other = two_steps(sigma, p)
        e1, e2 = root(first, delta, hi), root(other, delta, hi)
        eps = max(e1, e2)
        rec = dict(sigma=sigma, p=p, steps=2, delta=delta, eps=float(eps),
                   eps_first_order=float(e1), eps_other_order=float(e2),
                   delta_at_eps=float(max(first(eps), other(eps))))
        print(rec, flush=True)
        out.append(rec)
    provenance = dict(
        script="tests/engine/data/make_two_step_reference.py",
        date=datetime.date.today().isoformat(), python=platform.python_version(),
        mpmath=importlib.metadata.version("mpmath"),
        method="one step's closed-form profile integrated against the other step's law "
               "(mpmath.quad, 40 digits, split at the kink); bisection to 1e-15")
    OUT.write_text(json.dumps(dict(provenance=provenance, configurations=out), indent=1)
                   + "\n")


if __name__ == "__main__":
    main()
