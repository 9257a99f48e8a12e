r"""Attack risk from a trade-off curve: what the best attacker can achieve against an f-DP
mechanism.

Theory of operation
-------------------
A trade-off curve is the ROC curve of the best membership-inference attack, read the
other way round: an attacker who tests "the target's record is out" (:math:`P`) against
"it is in" (:math:`Q`) with false-positive rate :math:`\alpha` has true-positive rate at
most :math:`1 - T(P, Q)(\alpha)`. An f-DP mechanism has :math:`T(P, Q) \ge f` for both
orders of every pair of neighbours, hence :math:`T(P, Q) \ge f^S = \max\{f, f^{-1}\}`
(DRS Prop. 2.4), and every risk below is a monotone function of the curve:

* **TPR at FPR**: :math:`1 - f^S(\alpha)` (Neyman–Pearson; DRS Def. 2.1);
* **advantage**: :math:`\sup_\alpha 1 - \alpha - f(\alpha) = \delta_f(0)`, the total
  variation distance (the profile at ε = 0, DRS Prop. 2.12); :math:`2\Phi(\mu/2) - 1`
  for :math:`G_\mu`;
* **success of the Bayes-optimal attack** with prior :math:`\pi` on membership:
  :math:`1 - \inf_\alpha[(1-\pi)\alpha + \pi f^S(\alpha)] = 1 - \pi + \pi\,
  \delta_{f^S}(\log\frac{1-\pi}{\pi})` (the convex conjugate; ε may be negative);
* **reconstruction / re-identification / attribute inference**: an attacker who must
  name the target's record (or its attribute) among candidates, with baseline success
  :math:`\kappa` (the largest prior probability of a candidate) succeeds with probability
  at most :math:`1 - f^S(\kappa)`: the event "the guess is right" has probability at most
  κ when the target is absent (the guess does not depend on it) and is a test between the
  two worlds (Hayes, Mahloujifar, Balle 2023, Thm 2; for m candidates κ = 1/m);
* **how Gaussian is the curve**: the :math:`\mu` minimising the sup-distance
  :math:`\sup_\alpha |f(\alpha) - G_\mu(\alpha)|`, and the smallest :math:`\mu` with
  :math:`f \ge G_\mu` (a certificate of μ-GDP: exact for piecewise-linear curves at their
  vertices, closed form for :math:`G_\mu`).

Soundness. A curve bounded from below gives every risk bounded from above, so each
function evaluates the sound (lower) curve of a numeric result (``h.lower`` of a bracket,
through the public methods), and the risks it returns are upper bounds; calling it on
``h.upper`` gives the other side (a lower bound on the risk the curve allows). Closed
forms come through each family's hooks (:math:`G_\mu`, :math:`f_{\varepsilon,\delta}`,
Laplace), which are themselves rounded to the safe side.

References
----------
DRS: J. Dong, A. Roth, W. J. Su, "Gaussian Differential Privacy", JRSS-B 2022 (Def. 2.1,
Prop. 2.4, 2.12). J. Hayes, S. Mahloujifar, B. Balle, "Bounding Training Data
Reconstruction in DP-SGD", NeurIPS 2023 (Thm 2: success <= 1 - f(κ)). B. Kulynych, J. F.
Gomez, G. Kaissis, F. du Pin Calmon, C. Troncoso, "Attack-Aware Noise Calibration for
Differential Privacy", NeurIPS 2024 (risk measures as functions of the curve).

Imports: the ground floor, :mod:`gdp.core`, :mod:`gdp.families`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from .._numerics import EPS, float_or_array, golden_section_max
from .._validation import as_probability_array, check_count, check_fields, real
from ..core.piecewise import Identity, from_privacy_profile
from ..core.tradeoff import Bracketed, TradeOff
from ..families.epsdelta import EpsDelta
from ..families.gaussian import G_mu, Gaussian

__all__ = [
    "tpr_at_fpr", "advantage", "attack_success", "reconstruction_success",
    "reidentification_success", "attribute_inference_success", "certified_mu",
    "GaussianFit", "gaussian_fit",
]


def _curve(f: Any) -> TradeOff:
    if not isinstance(f, TradeOff):
        raise TypeError(f"`f` must be a TradeOff; got f={f!r}")
    return f


def _sym(f: TradeOff) -> TradeOff:
    """The curve an f-DP mechanism is known to satisfy between any two neighbours."""
    return f if f.is_symmetric else f.symmetrize()


def tpr_at_fpr(f: TradeOff, fpr: Any) -> Any:
    r"""The largest true-positive rate of a membership test at false-positive rate ``fpr``:
    :math:`1 - f^S(\alpha)`.

    Parameters
    ----------
    f : TradeOff
        The mechanism's curve (symmetrised if it is not symmetric).
    fpr : float or array_like
        False-positive rates α in [0, 1].

    Returns
    -------
    float or ndarray
        An upper bound on the attack's TPR (the sound curve; exact for closed forms), same
        shape as ``fpr``.

    Examples
    --------
    >>> import gdp
    >>> round(gdp.risk.tpr_at_fpr(gdp.G_mu(1.0), 1e-3), 6)  # Phi(Phi^-1(1e-3) + 1)
    0.018298
    >>> round(gdp.risk.tpr_at_fpr(gdp.f_eps_delta(1.0, 1e-5), 1e-3), 6)  # e^eps a + delta
    0.002728
    """
    g = _sym(_curve(f))
    a = as_probability_array("fpr", fpr)
    return float_or_array(np.asarray(g.one_minus(a), dtype=float), a.shape)


def advantage(f: TradeOff) -> float:
    r"""The largest membership advantage :math:`\sup_\alpha\, \mathrm{TPR} - \mathrm{FPR}
    = \sup_\alpha 1 - \alpha - f(\alpha) = \delta_f(0)` (total variation).

    Closed forms: :math:`2\Phi(\mu/2) - 1` for :math:`G_\mu`; :math:`\delta + (1 - \delta)
    \tanh(\varepsilon/2)` for :math:`f_{\varepsilon,\delta}`; :math:`1 - e^{-\mu/2}` for
    Laplace. A numeric curve gives a certified upper bound (its profile at 0).

    Examples
    --------
    >>> import gdp, math
    >>> a = gdp.risk.advantage(gdp.G_mu(1.0))
    >>> round(a, 12), round(math.erf(0.5 / math.sqrt(2)), 12)
    (0.382924922548, 0.382924922548)
    """
    return max(0.0, float(_sym(_curve(f)).hockey_stick(0.0)))


def attack_success(f: TradeOff, prior: Any = 0.5) -> Any:
    r"""Success probability of the Bayes-optimal membership attack when the target is a
    member with probability ``prior``:

    .. math:: 1 - \pi + \pi\,\delta_{f^S}\!\Big(\log\frac{1-\pi}{\pi}\Big)

    (the accuracy of the best guess "in"/"out"; :math:`\tfrac12 + \tfrac12\,\mathrm{adv}`
    at π = 1/2; never below :math:`\max(\pi, 1 - \pi)`, the accuracy of guessing).

    Parameters
    ----------
    f : TradeOff
        The mechanism's curve.
    prior : float or array_like
        π in [0, 1].

    Returns
    -------
    float or ndarray
        An upper bound on the success probability (the profile is an upper bound).

    Examples
    --------
    >>> import gdp
    >>> round(gdp.risk.attack_success(gdp.G_mu(1.0)), 6)
    0.691462
    >>> round(gdp.risk.attack_success(gdp.G_mu(1.0), prior=0.01), 6)
    0.99
    """
    g = _sym(_curve(f))
    pi = as_probability_array("prior", prior)
    flat = pi.reshape(-1)
    out = np.ones(flat.shape)  # prior 0 or 1: the attacker knows
    mid = (flat > 0) & (flat < 1)
    if mid.any():
        p = flat[mid]
        d = np.asarray(g.hockey_stick(np.log1p(-p) - np.log(p)), dtype=float)
        out[mid] = np.minimum(1.0, (1.0 - p) + p * d)
    out = np.maximum(out, np.maximum(flat, 1.0 - flat))
    return float_or_array(out, pi.shape)


def reconstruction_success(f: TradeOff, baseline: Any) -> Any:
    r"""Largest probability that an attacker names the target's record (or attribute)
    correctly, when without the target's data it would succeed with probability at most
    ``baseline`` κ: :math:`1 - f^S(\kappa)` (Hayes, Mahloujifar, Balle 2023, Thm 2).

    Parameters
    ----------
    f : TradeOff
        The mechanism's curve.
    baseline : float or array_like
        κ in [0, 1]: the prior probability of the most likely candidate.

    Returns
    -------
    float or ndarray
        An upper bound on the success probability.

    Examples
    --------
    >>> import gdp
    >>> round(gdp.risk.reconstruction_success(gdp.G_mu(1.0), 0.01), 4)
    0.0924
    """
    g = _sym(_curve(f))
    k = as_probability_array("baseline", baseline)
    return float_or_array(np.asarray(g.one_minus(k), dtype=float), k.shape)


def reidentification_success(f: TradeOff, candidates: int) -> float:
    r"""Largest probability of picking the target out of ``candidates`` equally likely
    records: :func:`reconstruction_success` with κ = 1/m.

    Examples
    --------
    >>> import gdp
    >>> round(gdp.risk.reidentification_success(gdp.G_mu(1.0), 100), 4)
    0.0924
    """
    m = check_count("candidates", candidates)
    return float(reconstruction_success(f, 1.0 / m))


def attribute_inference_success(f: TradeOff, prior: Any) -> float:
    r"""Largest probability of inferring the target's attribute whose values have the
    probabilities ``prior``: :func:`reconstruction_success` with κ = max(prior).

    Examples
    --------
    >>> import gdp
    >>> round(gdp.risk.attribute_inference_success(gdp.G_mu(1.0), [0.7, 0.2, 0.1]), 4)
    0.9363
    """
    p = as_probability_array("prior", prior).reshape(-1)
    if p.size == 0 or abs(float(p.sum()) - 1.0) > 1e-9:
        raise ValueError(f"`prior` must be a probability vector (non-negative, summing to 1); "
                         f"got prior={p.tolist()!r}")
    return float(reconstruction_success(f, float(p.max())))


# --------------------------------------------------------------------- Gaussian fits
def certified_mu(f: TradeOff) -> float:
    r"""The smallest μ with :math:`f \ge G_\mu`: a certificate that an f-DP mechanism is
    μ-GDP (``inf`` when no finite μ is certified).

    * :math:`G_\mu`: μ itself; the identity: 0.
    * piecewise-linear curves (``f_eps_delta``, :func:`gdp.from_curve`, exact atomic
      compositions, the sound side of numeric results): at a vertex
      :math:`(\alpha_i, \beta_i)` the Gaussian through it has
      :math:`\mu_i = \Phi^{-1}(1-\alpha_i) - \Phi^{-1}(\beta_i)`, and a convex
      :math:`G_\mu` below the curve at every vertex is below it everywhere (below its
      chords); the answer is :math:`\max_i \mu_i`, raised by a bound on the rounding of
      the two quantiles (16 ulps of their magnitudes);
    * other curves: through the piecewise-linear lower bound
      :math:`\sup_j f_{\varepsilon_j, \delta(\varepsilon_j)}` on a grid of ε (finite only
      if δ(ε) reaches 0, e.g. Laplace).

    A curve with :math:`f(0) < 1` (a δ > 0 at ε = ∞) or reaching 0 before α = 1 is not
    μ-GDP for any μ.

    Examples
    --------
    >>> import gdp
    >>> gdp.risk.certified_mu(gdp.G_mu(0.7))
    0.7
    >>> round(gdp.risk.certified_mu(gdp.laplace(1.0)), 4)
    1.0301
    >>> gdp.risk.certified_mu(gdp.f_eps_delta(1.0, 1e-6))
    inf
    """
    f = _curve(f)
    if isinstance(f, Bracketed):
        f = f.lower
    if isinstance(f, Gaussian):
        return float(f.mu)
    if isinstance(f, Identity):
        return 0.0
    verts = _vertex_alpha(f)
    if verts is None:
        eps = np.concatenate([[0.0], np.geomspace(1e-4, 60.0, 600)])
        top = float(f.epsilon(0.0))
        if math.isfinite(top):
            eps = np.append(eps, top)
        f = from_privacy_profile(eps, np.asarray(f.delta(eps), dtype=float))
        verts = _vertex_alpha(f)
    a = np.asarray(verts, dtype=float).reshape(-1)
    b = np.asarray(f(a), dtype=float)
    if b[0] < 1.0 or np.any((b <= 0.0) & (a < 1.0)):
        return math.inf
    inner = (a > 0.0) & (a < 1.0)
    za, zb = -special.ndtri(a[inner]), special.ndtri(b[inner])
    mus = za - zb
    mus = mus + 16.0 * EPS * (np.abs(za) + np.abs(zb))
    return float(max(0.0, np.max(mus))) if mus.size else 0.0


def _vertex_alpha(f: TradeOff) -> np.ndarray | None:
    """The α of the kinks of a piecewise-linear curve (``None`` for other curves): those
    of ``f_eps_delta`` in closed form, else the vertex data the curve is the interpolant of."""
    if isinstance(f, EpsDelta):
        return np.array([0.0, f._alpha_star, 1.0 - f.delta_, 1.0])
    pl = f._pl_data()
    return None if pl is None else np.asarray(pl[0], dtype=float)


@dataclass(frozen=True, slots=True)
class GaussianFit:
    r"""How Gaussian a curve is (:func:`gaussian_fit`).

    Attributes
    ----------
    mu : float
        The μ minimising :math:`\sup_\alpha |f(\alpha) - G_\mu(\alpha)|`.
    distance : float
        That sup-distance (on a dense grid of α, refined near its maximiser): 0 for
        :math:`G_\mu` itself; a descriptive number, not a bound.
    alpha : float
        Where the distance is attained.
    mu_certified : float
        The smallest μ with :math:`f \ge G_\mu` (:func:`certified_mu`; ``inf`` if none):
        the GDP guarantee the curve supports.
    """

    mu: float
    distance: float
    alpha: float
    mu_certified: float

    def __post_init__(self):
        check_fields(self, mu=real(lo=0.0), distance=real(lo=0.0, hi=1.0),
                     alpha=real(lo=0.0, hi=1.0), mu_certified=real(lo=0.0, finite=False))


_FIT_ALPHA = np.unique(np.concatenate([np.geomspace(1e-12, 0.5, 600), np.linspace(0, 1, 2001),
                                       1.0 - np.geomspace(1e-12, 0.5, 600)]))


def _sup_distance(f_vals: np.ndarray, mu: np.ndarray) -> np.ndarray:
    g = special.ndtr(-special.ndtri(_FIT_ALPHA)[None, :] - mu[:, None])
    return np.max(np.abs(f_vals[None, :] - g), axis=1)


def gaussian_fit(f: TradeOff) -> GaussianFit:
    r"""The Gaussian curve :math:`G_\mu` closest to ``f`` in sup-distance, the distance,
    and the μ-GDP certificate (:func:`certified_mu`): "how Gaussian is my mechanism?".

    The distance :math:`d(\mu) = \sup_\alpha |f(\alpha) - G_\mu(\alpha)|` is quasi-convex
    in μ (each :math:`|f(\alpha) - G_\mu(\alpha)|` decreases then increases, as
    :math:`G_\mu` decreases in μ), so a golden-section search on a bracket around the μ with
    the same advantage finds its minimum. Evaluated on the sound curve of numeric results.

    Examples
    --------
    >>> import gdp
    >>> fit = gdp.risk.gaussian_fit(gdp.G_mu(1.5))
    >>> round(fit.mu, 6), fit.distance < 1e-9, fit.mu_certified
    (1.5, True, 1.5)
    >>> fit = gdp.risk.gaussian_fit(gdp.laplace(1.0))
    >>> round(fit.mu, 3), round(fit.distance, 4), round(fit.mu_certified, 3)
    (0.833, 0.0727, 1.03)
    """
    f = _curve(f)
    vals = np.asarray(f(_FIT_ALPHA), dtype=float)
    adv = float(np.max(1.0 - _FIT_ALPHA - vals))
    mu_adv = 2.0 * float(special.ndtri(min(0.5 * (1.0 + adv), 1.0 - 1e-16)))
    hi = 3.0 * mu_adv + 1.0
    a, c, d, b, *vs = golden_section_max(lambda m: -_sup_distance(vals, np.atleast_1d(m)),
                                         np.zeros(1), np.full(1, hi), 80)
    cands = np.array([a[0], c[0], d[0], b[0]])
    dist = _sup_distance(vals, cands)
    k = int(np.argmin(dist))
    mu = float(cands[k])
    g = np.asarray(G_mu(mu)(_FIT_ALPHA), dtype=float)
    i = int(np.argmax(np.abs(vals - g)))
    return GaussianFit(mu=mu, distance=float(dist[k]), alpha=float(_FIT_ALPHA[i]),
                       mu_certified=certified_mu(f))
