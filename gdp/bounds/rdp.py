r"""Rényi differential privacy: the divergences of the families and the conversions to (ε, δ).

Rényi divergences :math:`\varepsilon(\lambda)` at a set of orders: Gaussian
(:math:`\lambda\mu^2/2`), Laplace, randomized response, the sampled Gaussian at integer orders
(Mironov–Talwar–Zhang 2019) and any curve with exact atoms (:func:`rdp_of`); converted to
:math:`(\varepsilon, \delta)` by the classical :math:`\varepsilon(\lambda) + \log(1/\delta)/
(\lambda-1)` or the sharper conversion of Canonne–Kamath–Steinke 2020 / Balle et al. 2020
(:func:`eps_from_rdp`, :func:`delta_from_rdp`).

Imports: the ground floor, :mod:`gdp.core`, :mod:`gdp.families`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special

from .._numerics import EPS, float_or_array, log1mexp, raise_by
from .._validation import as_probability_array, as_real_array, check_real
from ..core.piecewise import Identity
from ..core.tradeoff import TradeOff
from ..families.epsdelta import EpsDelta
from ..families.gaussian import Gaussian
from ..families.laplace_tradeoff import Laplace

__all__ = [
    "rdp_gaussian", "rdp_laplace", "rdp_randomized_response", "rdp_sampled_gaussian", "rdp_of",
    "eps_from_rdp", "delta_from_rdp", "DEFAULT_ORDERS",
]

# ---------------------------------------------------------------------------
# Rényi differential privacy
# ---------------------------------------------------------------------------
#: The default Rényi orders (read-only): the integers 2..256, then 320 ... 4096. Integer
#: orders, so the sampled-Gaussian RDP of Mironov, Talwar & Zhang (2019) is exact at each.
DEFAULT_ORDERS: np.ndarray = np.concatenate(
    [np.arange(2, 257), [320, 384, 448, 512, 640, 768, 1024, 1536, 2048, 4096]]
).astype(float)
DEFAULT_ORDERS.setflags(write=False)


_ORDER_MAX = 10**6


def _orders(orders: Any, *, integer: bool = False) -> np.ndarray:
    if orders is None:
        return np.array(DEFAULT_ORDERS)
    o = as_real_array("orders", orders, lo=1.0, lo_open=True, max_ndim=1,
                      min_size=1).reshape(-1)
    if integer and np.any(o != np.round(o)):
        bad = o[o != np.round(o)][0]
        raise ValueError("`orders` must be integers >= 2 for this formula; got "
                         f"orders={float(bad)!r}")
    if integer and np.any(o > _ORDER_MAX):
        raise ValueError(f"`orders` must be at most {_ORDER_MAX} for this formula (its sum "
                         f"has order + 1 terms); got orders={float(o.max())!r}")
    return o


def _log_sum_up(log_a: np.ndarray, o: np.ndarray, size: np.ndarray) -> np.ndarray:
    r""":math:`\max(0, \log A/(\lambda-1))` rounded up, where ``log_a`` was computed from
    terms of magnitude ``size`` (each a few operations): its absolute error is below 8 ulps
    of ``size``, which is added before the division (2 more ulps)."""
    with np.errstate(invalid="ignore", over="ignore"):
        v = raise_by((log_a + 8 * EPS * size) / (o - 1.0), 2)
    return np.maximum(np.where(np.isnan(v), np.inf, v), 0.0)


def rdp_gaussian(mu: float, orders: Any = None) -> np.ndarray:
    r"""RDP of :math:`G_\mu` (the Gaussian mechanism with sensitivity/σ = μ):
    :math:`\varepsilon(\lambda) = \lambda\mu^2/2`.

    References
    ----------
    Mironov 2017, Prop. 7 / Table II.

    Examples
    --------
    >>> import gdp
    >>> gdp.rdp_gaussian(1.0, [2, 3]).tolist()
    [1.0, 1.5]
    """
    m = check_real("mu", mu, lo=0.0, finite=False)
    o = _orders(orders)
    with np.errstate(invalid="ignore", over="ignore"):
        return np.where(m == 0, 0.0, raise_by(o * m * m / 2.0, 2))  # two products: 2 ulps


def rdp_laplace(mu: float, orders: Any = None) -> np.ndarray:
    r"""RDP of the Laplace trade-off :math:`T(\mathrm{Lap}(0,1), \mathrm{Lap}(\mu,1))`.

    .. math:: \varepsilon(\lambda) = \frac{1}{\lambda-1}\log\Big(\frac{\lambda}{2\lambda-1}
              e^{(\lambda-1)\mu} + \frac{\lambda-1}{2\lambda-1}e^{-\lambda\mu}\Big)

    References
    ----------
    Mironov 2017, Prop. 6 / Table II (scale 1/μ).

    Examples
    --------
    >>> import gdp
    >>> round(float(gdp.rdp_laplace(1.0, [2])[0]), 6)
    0.619124
    """
    m = check_real("mu", mu, lo=0.0)
    o = _orders(orders)
    a = np.log(o / (2 * o - 1)) + (o - 1) * m
    b = np.log((o - 1) / (2 * o - 1)) - o * m
    return _log_sum_up(np.logaddexp(a, b), o, np.abs(a) + np.abs(b))


def rdp_randomized_response(eps: float, orders: Any = None) -> np.ndarray:
    r"""RDP of :math:`f_{\varepsilon,0}` (randomized response with
    :math:`p = e^\varepsilon/(1+e^\varepsilon)`).

    .. math:: \varepsilon(\lambda) = \frac{1}{\lambda-1}\log\big(p^\lambda(1-p)^{1-\lambda}
              + (1-p)^\lambda p^{1-\lambda}\big)

    References
    ----------
    Mironov 2017, Table II.

    Examples
    --------
    >>> import gdp, numpy as np
    >>> gdp.rdp_randomized_response(1.0, [2, 4]).round(6)
    array([0.735326, 0.895883])
    """
    e = check_real("eps", eps, lo=0.0)
    o = _orders(orders)
    lp = -np.logaddexp(0.0, -e)  # log p
    lq = -np.logaddexp(0.0, e)  # log(1 - p)
    a = o * lp + (1 - o) * lq
    b = o * lq + (1 - o) * lp
    return _log_sum_up(np.logaddexp(a, b), o, np.abs(a) + np.abs(b))


def rdp_sampled_gaussian(sigma: float, p: float, orders: Any = None) -> np.ndarray:
    r"""RDP of one step of the Poisson-subsampled Gaussian mechanism (DP-SGD; noise
    multiplier σ, sampling rate p, add/remove neighbours) at integer orders λ ≥ 2.

    .. math:: \varepsilon(\lambda) = \frac{1}{\lambda-1}\log\sum_{j=0}^{\lambda}
              \binom{\lambda}{j}(1-p)^{\lambda-j}p^{j}\,e^{(j^2-j)/(2\sigma^2)}

    Notes
    -----
    Evaluated in log space as :math:`\log(1 + \sum_{j\ge2}\binom{\lambda}{j}(1-p)^{\lambda-j}
    p^j(e^{(j^2-j)/(2\sigma^2)}-1))` (the binomial weights sum to one, so only positive
    terms remain and tiny values keep their relative accuracy). This is
    :math:`D_\lambda((1-p)N(0,\sigma^2)+pN(1,\sigma^2)\,\|\,N(0,\sigma^2))`, which MTZ show
    dominates the other order of the neighbours. ``p = 1`` gives the Gaussian
    :math:`\lambda/(2\sigma^2)`, ``p = 0`` gives 0. Non-integer orders raise ``ValueError``.

    References
    ----------
    Mironov, Talwar, Zhang 2019, Sec. 3.3 (Theorem 5 for the order of neighbours).

    Examples
    --------
    >>> import gdp
    >>> round(float(gdp.rdp_sampled_gaussian(1.0, 0.01, [2])[0]), 10)
    0.0001718134
    """
    s = check_real("sigma", sigma, lo=0.0, lo_open=True)
    q = check_real("p", p, lo=0.0, hi=1.0)
    o = _orders(orders, integer=True)
    lam = o.astype(np.int64)
    log_fact = special.gammaln(np.arange(1.0, lam.max() + 2.0))  # log n!
    out = np.empty(o.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        for n, m in enumerate(lam):
            # A - 1 = sum_{j>=2} Bin(m, p)(j) (e^{c_j} - 1), c_j = (j^2 - j)/(2 sigma^2):
            # positive terms only, so log A = log1p(A - 1) keeps tiny RDP values accurate
            j = np.arange(2, m + 1, dtype=float)
            c = (j * j - j) / (2.0 * s * s)
            terms = (log_fact[m] - log_fact[2: m + 1] - log_fact[m - 2::-1]
                     + special.xlog1py(m - j, -q) + special.xlogy(j, q)
                     + c + log1mexp(-c))
            top = terms.max()
            if np.isneginf(top):
                out[n] = 0.0
                continue
            if np.isposinf(top) or np.isnan(top):  # sigma so small that e^{c_j} overflows
                out[n] = np.inf
                continue
            # the error of log(A - 1): each term errs by an ulp of each log-factorial and 2
            # of each other summand; the log-sum-exp averages those errors with the terms'
            # weights and adds 2 ulps of its result. Charged (raised), then 4 ulps more below
            lf = log_fact[m] + log_fact[2: m + 1] + log_fact[m - 2::-1]
            rest = np.abs(special.xlog1py(m - j, -q)) + np.abs(special.xlogy(j, q)) + c + \
                np.abs(log1mexp(-c))
            w = np.exp(terms - top)
            log_a_minus_1 = top + math.log(np.sum(w))
            size = np.where(w > 0, lf + 2.0 * rest, 0.0)  # terms of weight 0 add nothing
            log_a_minus_1 += EPS * (float(np.sum(w * size) / np.sum(w))
                                    + 2.0 * abs(log_a_minus_1))
            out[n] = raise_by(np.logaddexp(0.0, log_a_minus_1) / (m - 1.0), 4)
    return np.maximum(out, 0.0)


def _rdp_atoms(loss: np.ndarray, p: np.ndarray, q: np.ndarray, o: np.ndarray) -> np.ndarray:
    r""":math:`D_\lambda(Q\|P) = \frac{1}{\lambda-1}\log\sum q^\lambda p^{1-\lambda}` of an
    atomic pair (``inf`` when Q has mass where P has none)."""
    keep = q > 0
    if np.any(keep & (p <= 0)):
        return np.full(o.shape, np.inf)
    lq = np.log(q[keep])
    lp = np.log(p[keep])
    terms = o[:, None] * lq[None, :] + (1.0 - o[:, None]) * lp[None, :]
    size = np.max(np.abs(o[:, None] * lq[None, :]) + np.abs((1.0 - o[:, None]) * lp[None, :]),
                  axis=1)
    return _log_sum_up(special.logsumexp(terms, axis=1), o, size)


def rdp_of(f: TradeOff, orders: Any = None) -> np.ndarray:
    r"""RDP curve :math:`\lambda \mapsto \varepsilon(\lambda)` of an f-DP mechanism, when it
    has a closed form.

    Gaussian (:func:`rdp_gaussian`), Laplace (:func:`rdp_laplace`), :math:`f_{\varepsilon,0}`
    (:func:`rdp_randomized_response`), the identity (0), :math:`f_{\varepsilon,\delta}` with
    δ > 0 (``inf``: Q has an atom where P has none) and any atomic curve (e.g.
    :func:`gdp.from_distributions` of two pmfs, :func:`gdp.from_curve`), for which it is
    :math:`\min\{D_\lambda(Q\|P), D_\lambda(P\|Q)\}` (an f-DP mechanism is also
    :math:`f^{-1}`-DP, and Rényi divergences only shrink under post-processing).

    Raises ``TypeError`` for other curves (e.g. numeric compositions), which have no
    closed-form RDP.

    Examples
    --------
    >>> import gdp
    >>> gdp.rdp_of(gdp.G_mu(2.0), [2, 4]).tolist()
    [4.0, 8.0]
    """
    if not isinstance(f, TradeOff):
        raise TypeError(f"`f` must be a TradeOff; got f={f!r}")
    o = _orders(orders)
    if isinstance(f, Identity):
        return np.zeros(o.shape)
    if isinstance(f, Gaussian):
        return rdp_gaussian(f.mu, o)
    if isinstance(f, Laplace):
        if math.isinf(f.mu):
            return np.full(o.shape, np.inf)
        return rdp_laplace(f.mu, o)
    if isinstance(f, EpsDelta):
        if f.delta_ > 0 or math.isinf(f.eps):
            return np.full(o.shape, np.inf)
        return rdp_randomized_response(f.eps, o)
    atoms = f._atoms()
    if atoms is not None:
        loss, p, q = (np.asarray(a, dtype=float) for a in atoms)
        fwd = _rdp_atoms(loss, p, q, o)
        if f.is_symmetric:
            return fwd
        return np.minimum(fwd, _rdp_atoms(-loss, q, p, o))
    raise TypeError(f"`f` has no closed-form Rényi DP curve; got a {type(f).__name__} "
                    f"(supported: Gaussian, Laplace, f_eps_delta, identity, atomic curves)")


def _rdp_args(rdp: Any, orders: Any) -> tuple[np.ndarray, np.ndarray]:
    o = _orders(orders)
    r = as_real_array("rdp", rdp, lo=0.0, finite=False).reshape(-1)
    if r.size != o.size:
        raise ValueError(f"`rdp` must have one value per order; got {r.size} values for "
                         f"{o.size} orders (of `orders`)")
    return r, o


_CONVERSIONS = ("sharp", "classical")


def _check_conversion(conversion: str) -> str:
    if not isinstance(conversion, str) or conversion not in _CONVERSIONS:
        raise ValueError(f"`conversion` must be one of {_CONVERSIONS}; got "
                         f"conversion={conversion!r}")
    return conversion


def eps_from_rdp(rdp: Any, delta: Any, orders: Any = None, *,
                 conversion: str = "sharp") -> Any:
    r"""(ε, δ) from an RDP curve: the smallest ε over the orders (vectorised over δ).

    .. math:: \varepsilon = \min_\lambda\Big[\varepsilon(\lambda) + \log\frac{\lambda-1}{\lambda}
              - \frac{\log\delta + \log\lambda}{\lambda-1}\Big]
              \quad(\text{"sharp"}),\qquad
              \varepsilon = \min_\lambda\Big[\varepsilon(\lambda) + \frac{\log(1/\delta)}
              {\lambda-1}\Big]\quad(\text{"classical"}).

    Parameters
    ----------
    rdp : array_like
        ε(λ) at each order (≥ 0, ``inf`` allowed), e.g. a sum of per-mechanism curves.
    delta : float or array_like
        Target δ ∈ [0, 1].
    orders : array_like, optional
        The orders λ > 1 (default :data:`DEFAULT_ORDERS`).
    conversion : {"sharp", "classical"}
        The sharp one also returns 0 when :math:`\delta \ge \sqrt{1-e^{-\varepsilon(\lambda)}}`
        for some order (Bretagnolle–Huber: TV ≤ :math:`\sqrt{1-e^{-\mathrm{KL}}}`, and
        KL ≤ :math:`D_\lambda`).

    Notes
    -----
    ``delta = 0`` gives ``inf`` (0 if the curve is 0). Never negative.

    References
    ----------
    Mironov 2017, Prop. 3 (classical); Canonne, Kamath, Steinke 2020, Prop. 12, and
    Balle et al. 2020, Thm 21 (sharp).

    Examples
    --------
    >>> import gdp
    >>> r = gdp.rdp_gaussian(1.0)
    >>> round(gdp.eps_from_rdp(r, 1e-5), 6), round(gdp.eps_from_rdp(r, 1e-5,
    ...     conversion="classical"), 6)
    (4.752728, 5.302585)
    """
    r, o = _rdp_args(rdp, orders)
    _check_conversion(conversion)
    d = as_probability_array("delta", delta)
    flat = d.reshape(-1)
    out = np.full(flat.shape, np.inf)
    all_zero = bool(np.all(r == 0))
    for n, dl in enumerate(flat):
        if dl >= 1 or all_zero:
            out[n] = 0.0
            continue
        if dl == 0:
            continue
        with np.errstate(invalid="ignore", over="ignore"):
            if conversion == "sharp":
                lg = (math.log(dl) + np.log(o)) / (o - 1.0)
                l1 = np.log1p(-1.0 / o)
                # 4 ulps of the magnitudes summed, added: eps never rounded down
                cand = r + l1 - lg + 4 * EPS * (np.abs(r) + np.abs(l1) + np.abs(lg))
                # TV <= sqrt(1 - exp(-KL)) <= delta, decided with 2 ulps against it
                bh = dl * dl * (1 - 2 * EPS) + np.expm1(-r) * (1 - 2 * EPS) >= 2 * EPS
                if np.any(bh):
                    out[n] = 0.0
                    continue
            else:
                lg = math.log(dl) / (o - 1.0)
                cand = r - lg + 4 * EPS * (np.abs(r) + np.abs(lg))
        cand = np.where(np.isnan(cand), np.inf, cand)
        out[n] = max(0.0, raise_by(float(np.min(cand)), 1))
    return float_or_array(out.reshape(d.shape))


def delta_from_rdp(rdp: Any, eps: Any, orders: Any = None, *,
                   conversion: str = "sharp") -> Any:
    r"""δ at a given ε from an RDP curve: the smallest bound over the orders (vectorised).

    .. math:: \log\delta = \min_\lambda\Big[(\lambda-1)\big(\varepsilon(\lambda)-\varepsilon
              + \log(1-1/\lambda)\big) - \log\lambda\Big]\quad(\text{"sharp"}),\qquad
              \log\delta = \min_\lambda(\lambda-1)(\varepsilon(\lambda)-\varepsilon)
              \quad(\text{"classical"}),

    the sharp one also bounded by :math:`\sqrt{1-e^{-\varepsilon(\lambda)}}`; capped at 1.

    Examples
    --------
    >>> import gdp
    >>> r = gdp.rdp_gaussian(1.0)
    >>> round(gdp.delta_from_rdp(r, 4.752728) * 1e5, 4)
    1.0
    """
    r, o = _rdp_args(rdp, orders)
    _check_conversion(conversion)
    e = as_real_array("eps", eps, lo=0.0, finite=False)
    flat = e.reshape(-1)
    out = np.ones(flat.shape)
    for n, ev in enumerate(flat):
        if np.isposinf(ev):
            out[n] = 0.0 if np.all(np.isfinite(r)) else 1.0
            continue
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            if conversion == "sharp":
                l1 = np.log1p(-1.0 / o)
                cand = (o - 1.0) * (r - ev + l1) - np.log(o)
                size = (o - 1.0) * (np.abs(r) + abs(ev) + np.abs(l1)) + np.log(o)
                bh = 0.5 * np.log(-np.expm1(-r))
                cand = np.minimum(cand + 6 * EPS * size, bh + 4 * EPS * np.abs(bh))
            else:
                cand = (o - 1.0) * (r - ev)
                cand = cand + 4 * EPS * (o - 1.0) * (np.abs(r) + abs(ev))
        cand = np.where(np.isnan(cand), np.inf, cand)
        # log delta raised by its rounding (above), and exp by 2 ulps
        out[n] = min(1.0, raise_by(math.exp(min(0.0, float(np.min(cand)))), 2))
    return float_or_array(out.reshape(e.shape))
