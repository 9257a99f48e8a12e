r"""The central limit theorem for composition and its Berry–Esseen bounds (DRS Thm 3.4).

:func:`clt` returns a :class:`CLTResult`: the Gaussian :math:`G_\mu` with
:math:`\mu = 2\|\mathrm{kl}\|_1/\sqrt{\|\kappa_2\|_1-\|\mathrm{kl}\|_2^2}` (an approximation,
labelled; it can under-state ε) and the two Berry–Esseen curves
:class:`BerryEsseenLower` / :class:`BerryEsseenUpper`, made into valid trade-off functions on
all of [0, 1] by tangent lines.

Imports: the ground floor, :mod:`gdp.core`, :mod:`gdp.families`, :mod:`gdp.engine` (exact
references), :mod:`gdp.approx.loss_moments`.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import special

from .._numerics import EPS, find_root_bracket, sum_down, sum_up
from .._validation import check_count, check_fields, check_real, count, real
from ..core.piecewise import Identity
from ..core.tradeoff import TradeOff
from ..families.epsdelta import EpsDelta
from ..families.gaussian import Gaussian
from .loss_moments import _rr_weights, functionals

__all__ = [
    "ApproximationWarning", "BerryEsseenLower", "BerryEsseenUpper", "CLTResult", "clt",
    "BERRY_ESSEEN_C",
]

#: The Berry–Esseen constant for sums of independent, non-identical summands
#: (Shevtsova 2010), used by DRS Thm 3.4.
BERRY_ESSEEN_C = 0.56


class ApproximationWarning(UserWarning):
    """An approximation (CLT, Edgeworth) may be far from the exact composition.

    Raised when the exact answer was cheap to compute and differs by more than the
    requested tolerance, or when the conditions of the limit theorem are far from met
    (e.g. the Berry–Esseen :math:`\\gamma \\ge 1/2`, where the bounds say nothing).
    """


# ---------------------------------------------------------------------------
# sequences of trade-off functions
# ---------------------------------------------------------------------------
def _as_sequence(fs: Any, k: Any) -> list[tuple[TradeOff, int]]:
    """Distinct trade-off functions with multiplicities (by identity, no copies)."""
    if isinstance(fs, TradeOff):
        kk = 1 if k is None else check_count("k", k)
        return [(fs, kk)]
    if k is not None:
        raise TypeError(f"`k` is only allowed with a single TradeOff `fs`; got k={k!r} with "
                        f"fs of type {type(fs).__name__}")
    if isinstance(fs, str | bytes) or not isinstance(fs, Iterable):
        raise TypeError(f"`fs` must be a TradeOff or a sequence of TradeOffs; got fs={fs!r}")
    counts: dict[int, list[Any]] = {}
    for i, f in enumerate(fs):
        if not isinstance(f, TradeOff):
            raise TypeError(f"`fs[{i}]` must be a TradeOff; got {f!r}")
        slot = counts.setdefault(id(f), [f, 0])
        slot[1] += 1
    if not counts:
        raise ValueError("`fs` must hold at least one trade-off function; got an empty "
                         "sequence")
    return [(f, n) for f, n in counts.values()]


def _G(mu: float, x: np.ndarray) -> np.ndarray:
    """G_mu(x) on an array, exact at 0 and 1."""
    with np.errstate(all="ignore"):
        return special.ndtr(-special.ndtri(x) - mu)


def _G_slope(mu: float, x: np.ndarray) -> np.ndarray:
    r""":math:`G_\mu'(x) = -\exp(\mu w - \mu^2/2)`, :math:`w = \Phi^{-1}(1-x)`."""
    with np.errstate(all="ignore"):
        return -np.exp(mu * (-special.ndtri(x)) - 0.5 * mu * mu)


# --- the Berry-Esseen curves -------------------------------------------------
@dataclass(frozen=True, slots=True)
class BerryEsseenLower(TradeOff):
    r"""The Berry–Esseen lower curve :math:`\max\{0, G_\mu(\min(\alpha+\gamma,1))-\gamma\}`.

    A rigorous lower bound on the composed curve (DRS Thm 3.4; the proof's two
    Berry–Esseen inequalities give it for every α, not only on [γ, 1−γ]) and itself a
    trade-off function: convex (a convex function of α+γ, floored at 0), non-increasing,
    below :math:`1-\alpha`, zero from :math:`\alpha = 1-\gamma` on. Identically 0 when
    :math:`\gamma \ge 1/2` (no information).
    """

    mu: float
    gamma: float
    # symmetric: with G = G^{-1}, solving beta = G(alpha + gamma) - gamma for alpha gives
    # alpha = G(beta + gamma) - gamma, the same curve (the upper curve likewise)
    is_symmetric = True

    def __post_init__(self):
        _check_be(self)

    label_format = "BE_{{lower}}(G_{{{self.mu:.4g}}}, \\gamma={self.gamma:.3g})"

    def _f(self, alpha):
        # rounded down: G_mu lowered by its rounding bound at alpha + gamma rounded up
        # (G decreases), and the subtraction rounded down
        a = np.asarray(alpha, dtype=float)
        x = np.minimum(sum_up(a, self.gamma), 1.0)
        g = np.asarray(Gaussian(mu=self.mu)._f(x), dtype=float)
        return np.maximum(0.0, sum_down(g, -self.gamma))


@dataclass(frozen=True, slots=True)
class BerryEsseenUpper(TradeOff):
    r"""The Berry–Esseen upper curve: the largest convex minorant of
    :math:`U(\alpha) = \min\{1-\alpha,\ G_\mu(\max(\alpha-\gamma,0))+\gamma\}`.

    :math:`U` is a valid upper bound (DRS Thm 3.4 for every α, clipped by the trivial
    :math:`f \le 1-\alpha`) but not convex. Because the true composed curve is convex
    and below :math:`U`, it is also below :math:`U`'s largest convex minorant, which is:
    the line from (0, 1) tangent to :math:`C(\alpha) = G_\mu(\alpha-\gamma)+\gamma` at
    :math:`x_1`, then :math:`C`, then the line tangent at :math:`x_2` down to (1, 0). The
    tangent points are computed so that the lines lie on or above the exact minorant
    (never below: the curve stays a valid upper bound) and the joins are convex. When
    :math:`C \ge 1-\alpha` everywhere (e.g. :math:`\gamma \ge 1/2`) the curve is
    :math:`1-\alpha` (no information).
    """

    mu: float
    gamma: float
    x1: float = field(init=False, default=math.nan)
    x2: float = field(init=False, default=math.nan)
    is_symmetric = True  # U and its largest convex minorant are symmetric, as G_mu is

    def __post_init__(self):
        _check_be(self)
        x1, x2 = _upper_tangents(self.mu, self.gamma)
        object.__setattr__(self, "x1", x1)
        object.__setattr__(self, "x2", x2)

    label_format = "BE_{{upper}}(G_{{{self.mu:.4g}}}, \\gamma={self.gamma:.3g})"

    @property
    def informative(self) -> bool:
        """False when the curve is the identity 1 − α."""
        return not math.isnan(self.x1)

    def _C(self, x):
        # rounded up: G_mu raised (1 - a lower bound on 1 - G) at x - gamma rounded down (G
        # decreases), and the sum rounded up
        y = np.maximum(sum_down(np.asarray(x, dtype=float), -self.gamma), 0.0)
        g = sum_up(1.0, -np.asarray(Gaussian(mu=self.mu)._omf_lower(y), dtype=float))
        return sum_up(np.minimum(g, 1.0), self.gamma)

    def _f(self, alpha):
        a = np.asarray(alpha, dtype=float)
        if not self.informative:
            return 1.0 - a
        x1, x2 = self.x1, self.x2
        c1 = float(self._C(np.array([x1]))[0])
        c2 = float(self._C(np.array([x2]))[0])
        left = 1.0 + (c1 - 1.0) / x1 * a
        right = c2 / (x2 - 1.0) * (a - 1.0)
        mid = self._C(np.clip(a, x1, x2))
        out = np.where(a <= x1, left, np.where(a >= x2, right, mid))
        out = out * (1.0 + 4 * EPS)  # the line formulas err by 3 ulps: an upper curve, raised
        return np.clip(np.minimum(out, 1.0 - a), 0.0, 1.0)


def _check_be(curve: Any) -> None:
    """The parameters of the Berry–Esseen curves: μ ≥ 0 finite and γ in [0, 1] (γ bounds a
    distance between distribution functions; any γ ≥ 1/2 gives the same, void, curves)."""
    check_fields(curve, mu=real(lo=0.0), gamma=real(lo=0.0, hi=1.0))


def _upper_tangents(mu: float, gamma: float) -> tuple[float, float]:
    """Tangent points x1 < x2 of the convex minorant in BerryEsseenUpper (nan: trivial)."""
    if gamma >= 0.5:
        return math.nan, math.nan
    xs = np.linspace(gamma, 1.0, 4001)[1:-1]

    def C(x):
        return _G(mu, np.asarray(x, dtype=float) - gamma) + gamma

    def dC(x):
        return _G_slope(mu, np.asarray(x, dtype=float) - gamma)

    if not np.any(C(xs) < 1.0 - xs):
        # C >= 1 - alpha on the grid; check the best point exactly before giving up
        from scipy import optimize

        res = optimize.minimize_scalar(lambda x: float(C(x) - (1.0 - x)),
                                       bounds=(gamma, 1.0), method="bounded")
        if not (res.fun < 0.0):
            return math.nan, math.nan

    def h1(x):  # increasing; zero at the tangent point of the line through (0, 1)
        return dC(x) * x - (C(x) - 1.0)

    def h2(x):  # decreasing; zero at the tangent point of the line through (1, 0)
        return dC(x) * (x - 1.0) - C(x)

    lo = gamma + max(gamma, 1e-300) * 1e-12 if gamma > 0 else 1e-300
    hi = 1.0 - 1e-15
    x1 = _root_side(h1, lo, hi)
    x2 = _root_side(h2, lo, hi)
    if not (x1 < x2):
        return math.nan, math.nan
    return x1, x2


def _root_side(h: Callable[[np.ndarray], np.ndarray], lo: float, hi: float) -> float:
    """Root of a monotone ``h`` on [lo, hi]; returns the end of the final bracket where
    ``h >= 0`` (the side that keeps the tangent construction valid and convex)."""
    hl, hh = float(h(np.asarray(lo))), float(h(np.asarray(hi)))
    if hl >= 0 and hh >= 0:
        return lo if hl <= hh else hi
    if hl < 0 and hh < 0:  # pragma: no cover - excluded by the geometry
        return hi if hl <= hh else lo
    xl, xr, fl, _ = find_root_bracket(h, lo, hi)
    return float(xl) if fl >= 0 else float(xr)


# --- the CLT result -----------------------------------------------------------
@dataclass(frozen=True, slots=True)
class CLTResult:
    r"""The Gaussian CLT approximation of a composition (DRS Thm 3.4). An approximation.

    Attributes
    ----------
    mu : float
        :math:`\mu = 2\|\mathrm{kl}\|_1/\sqrt{\|\kappa_2\|_1-\|\mathrm{kl}\|_2^2}`.
    gamma : float
        Berry–Esseen :math:`\gamma = 0.56\|\bar\kappa_3\|_1/(\|\kappa_2\|_1-
        \|\mathrm{kl}\|_2^2)^{3/2}`.
    kl_sum, kappa2_sum, kl_sq_sum, kappa3_bar_sum : float
        :math:`\|\mathrm{kl}\|_1`, :math:`\|\kappa_2\|_1`, :math:`\|\mathrm{kl}\|_2^2`,
        :math:`\|\bar\kappa_3\|_1`.
    n : int
        Number of trade-off functions composed.

    Notes
    -----
    ``approx`` (:math:`G_\mu`) is **not** a bound: the composed curve may lie below it,
    so an ε read from it may be too small. ``lower`` and ``upper`` are rigorous
    (Berry–Esseen) bounds, valid trade-off functions on all of [0, 1]; they carry
    information only when :math:`\gamma < 1/2` (``informative``). They are exact given
    the functionals; where those come from quadrature (no closed form, no atoms) they
    inherit its error (about 1e-10 relative for the survival-function path, 1e-9 to 1e-6
    for the curve path). The lower curve starts at :math:`G_\mu(\gamma)-\gamma < 1`, so
    its δ(ε) is at least γ: it certifies no small δ.
    """

    mu: float
    gamma: float
    kl_sum: float
    kappa2_sum: float
    kl_sq_sum: float
    kappa3_bar_sum: float
    n: int

    def __repr__(self):
        return (f"CLTResult(mu={self.mu!r}, gamma={self.gamma!r}, n={self.n}; "
                f"an approximation, G_mu is not a bound)")

    @property
    def approx(self) -> Gaussian:
        r""":math:`G_\mu`, the CLT approximation (not a bound)."""
        return Gaussian(mu=self.mu)

    @property
    def informative(self) -> bool:
        """True when the Berry–Esseen bounds say something (:math:`\\gamma < 1/2`)."""
        return self.gamma < 0.5

    def __post_init__(self):
        nonneg = real(lo=0.0)
        check_fields(self, mu=nonneg, gamma=nonneg, kl_sum=nonneg, kappa2_sum=nonneg,
                     kl_sq_sum=nonneg, kappa3_bar_sum=nonneg, n=count())

    @property
    def lower(self) -> BerryEsseenLower:
        """Rigorous lower bound on the composed curve (zero when uninformative)."""
        return BerryEsseenLower(mu=self.mu, gamma=min(self.gamma, 1.0))

    @property
    def upper(self) -> BerryEsseenUpper:
        """Rigorous upper bound on the composed curve (1 − α when uninformative)."""
        return BerryEsseenUpper(mu=self.mu, gamma=min(self.gamma, 1.0))

    def epsilon(self, delta: Any) -> Any:
        """ε(δ) of the approximation :math:`G_\\mu` (not a bound; see Notes)."""
        return self.approx.epsilon(delta)


def clt(fs: Any, k: int | None = None, *, tol: float = 0.05,
        check: bool | None = None) -> CLTResult:
    r"""Central limit theorem for the composition :math:`f_1\otimes\cdots\otimes f_n`.

    **An approximation.** Returns :math:`\mu`, the Berry–Esseen :math:`\gamma`, the
    approximation :math:`G_\mu` and rigorous lower/upper curves (DRS Thm 3.4):

    .. math::
        \mu = \frac{2\|\mathrm{kl}\|_1}{\sqrt{\|\kappa_2\|_1-\|\mathrm{kl}\|_2^2}},\qquad
        \gamma = \frac{0.56\,\|\bar\kappa_3\|_1}{(\|\kappa_2\|_1-\|\mathrm{kl}\|_2^2)^{3/2}}.

    Parameters
    ----------
    fs : TradeOff or iterable of TradeOff
        Symmetric trade-off functions. A single ``fs`` with ``k`` means the ``k``-fold
        composition (no list is built; ``clt([f] * k)`` also computes ``f``'s functionals
        only once).
    k : int, optional
        Multiplicity of a single ``fs``.
    tol : float
        Tolerance (max vertical distance) for the comparison with the exact
        composition; an :class:`ApproximationWarning` is issued above it.
    check : bool, optional
        ``None`` (default): compare with the exact composition when it is cheap
        (a homogeneous :math:`f_{\varepsilon,0}^{\otimes k}`, exact binomial law, k ≤
        10^5). ``True``: also compare through :func:`gdp.compose` for other inputs
        (may be slow). ``False``: never.

    Returns
    -------
    CLTResult

    Notes
    -----
    ``ValueError`` for a non-symmetric :math:`f_i` (the theorem needs :math:`f = f^{-1}`;
    use ``f.symmetrize()``) and for infinite functionals (:math:`f_{\varepsilon,\delta}`
    with δ > 0: use :func:`eps_delta_limit`). An :class:`ApproximationWarning` when
    :math:`\gamma \ge 1/2` (the theorem's bounds are void) or when the cheap exact check
    disagrees by more than ``tol``. A composition of identities gives μ = γ = 0.

    References
    ----------
    DRS Thm 3.4 (Berry–Esseen CLT), MATH.md §5.

    Examples
    --------
    >>> import gdp
    >>> r = gdp.clt(gdp.laplace(0.1), 500)
    >>> round(r.mu, 4), round(r.gamma, 4)
    (2.2012, 0.0254)
    >>> r.lower(0.2) <= r.approx(0.2) <= r.upper(0.2)
    True
    """
    items = _as_sequence(fs, k)
    tol = check_real("tol", tol, lo=0.0)
    if not (check is None or isinstance(check, bool | np.bool_)):
        raise TypeError(f"`check` must be None, True or False; got check={check!r:.60}")
    s_kl = s_k2 = s_kl2 = s_k3b = 0.0
    n = 0
    for i, (f, m) in enumerate(items):
        if not f.is_symmetric:
            raise ValueError(
                f"`fs[{i}]` = {f!r} is not symmetric: the CLT (DRS Thm 3.4) needs "
                f"f = f^{{-1}}; use f.symmetrize() (an f-DP mechanism is also f^S-DP)")
        fn = functionals(f)
        s_kl += m * fn.kl
        s_k2 += m * fn.kappa2
        s_kl2 += m * fn.kl**2
        s_k3b += m * fn.kappa3_bar
        n += m
    var = max(s_k2 - s_kl2, 0.0)
    if var <= 0.0 or s_kl <= 0.0:
        mu, gamma = 0.0, 0.0
    else:
        mu = 2.0 * s_kl / math.sqrt(var)
        gamma = BERRY_ESSEEN_C * s_k3b / var**1.5
    res = CLTResult(mu=float(mu), gamma=float(gamma), kl_sum=s_kl, kappa2_sum=s_k2,
                    kl_sq_sum=s_kl2, kappa3_bar_sum=s_k3b, n=n)
    if gamma >= 0.5:
        warnings.warn(f"CLT conditions far from met: Berry-Esseen gamma = {gamma:.3g} >= 1/2, "
                      f"so the bounds say nothing and G_mu (mu = {mu:.4g}) is unchecked",
                      ApproximationWarning, stacklevel=2)
    if check is not False:
        exact = _cheap_exact(items, allow_engine=bool(check))
        if exact is not None:
            err = _max_vertical(res.approx, exact)
            if err > tol:
                warnings.warn(f"the CLT approximation G_{mu:.4g} is {err:.3g} (> tol = "
                              f"{tol:g}) away from the exact composition", ApproximationWarning,
                              stacklevel=2)
    return res


def _dense_grid() -> np.ndarray:
    return np.unique(np.concatenate([np.linspace(0.0, 1.0, 4001), np.logspace(-12, -1, 300),
                                     1.0 - np.logspace(-12, -1, 300)]))


def _max_vertical(f: TradeOff, g: TradeOff) -> float:
    x = _dense_grid()
    return float(np.max(np.abs(np.asarray(f(x)) - np.asarray(g(x)))))


@dataclass(frozen=True, slots=True, eq=False)
class _RRPower(TradeOff):
    r"""The exact :math:`f_{\varepsilon,0}^{\otimes k}` (KOV): atoms at
    :math:`(k-2j)\varepsilon`, :math:`j = 0..k`, with P-mass
    :math:`\binom kj e^{j\varepsilon}/(1+e^\varepsilon)^k` and Q-mass
    :math:`\binom kj e^{(k-j)\varepsilon}/(1+e^\varepsilon)^k`.

    The vertices are binomial cdf values (``alpha`` :math:`= P[J\le j]`, ``one_minus_beta``
    :math:`= Q[J\le j]`, no subtraction) and the profile is the exact sum
    :math:`\sum_{L_j>\varepsilon} Q_j(1-e^{\varepsilon-L_j})` of non-negative terms: an
    independent reference for the CLT, Edgeworth and the numeric engine.
    """

    eps: float
    k: int
    alpha: np.ndarray = field(init=False, repr=False)
    beta: np.ndarray = field(init=False, repr=False)
    one_minus_beta: np.ndarray = field(init=False, repr=False)
    loss: np.ndarray = field(init=False, repr=False)
    p: np.ndarray = field(init=False, repr=False)
    q: np.ndarray = field(init=False, repr=False)
    is_symmetric = True

    def __post_init__(self):
        from scipy import stats

        a, b = _rr_weights(self.eps)
        k = self.k
        j = np.arange(k + 1)  # number of -eps outcomes; loss (k - 2j) eps, decreasing in j
        alpha = np.concatenate([[0.0], stats.binom.cdf(j, k, b)])
        omb = np.concatenate([[0.0], stats.binom.cdf(j, k, a)])
        alpha[-1] = omb[-1] = 1.0
        keep = np.concatenate([alpha[1:] > alpha[:-1], [True]])  # drop underflowed repeats
        vals = {"alpha": alpha[keep], "one_minus_beta": omb[keep], "beta": 1.0 - omb[keep],
                "loss": (k - 2.0 * j) * self.eps, "p": stats.binom.pmf(j, k, b),
                "q": stats.binom.pmf(j, k, a)}
        for name, v in vals.items():
            v = np.asarray(v, dtype=float)
            v.setflags(write=False)
            object.__setattr__(self, name, v)

    def __repr__(self):
        return f"f_eps_delta(eps={self.eps!r}) ** {self.k} (exact, binomial)"

    label_format = "f_{{{self.eps:g},0}}^{{\\otimes {self.k}}}"

    def _f(self, alpha):
        # f(0) = 1 (no Q-mass at +inf) even when the first vertices underflowed onto alpha = 0
        a = np.asarray(alpha, dtype=float)
        return np.where(a == 0.0, 1.0, np.interp(a, self.alpha, self.beta))

    def _one_minus_f(self, alpha):
        a = np.asarray(alpha, dtype=float)
        return np.where(a == 0.0, 0.0, np.interp(a, self.alpha, self.one_minus_beta))

    def _hockey(self, eps):
        e = np.asarray(eps, dtype=float).reshape(-1)
        out = np.zeros(e.shape)
        fin = np.isfinite(e)
        with np.errstate(over="ignore", under="ignore"):
            gap = e[fin][:, None] - self.loss[None, :]
            terms = np.where(gap < 0, self.q[None, :] * -np.expm1(np.minimum(gap, 0.0)), 0.0)
        out[fin] = terms.sum(axis=1)
        return np.clip(out, 0.0, 1.0)

    def _atoms(self):
        return self.loss, self.p, self.q

    def _loss_sf(self, t):
        t = np.asarray(t, dtype=float)
        return (self.p[None, :] * (self.loss[None, :] > t.reshape(-1)[:, None])).sum(-1) \
            .reshape(t.shape)

    def _loss_sf_q(self, t):
        t = np.asarray(t, dtype=float)
        return (self.q[None, :] * (self.loss[None, :] > t.reshape(-1)[:, None])).sum(-1) \
            .reshape(t.shape)


def _rr_power(eps: float, k: int) -> _RRPower:
    """The exact k-fold randomized response (see :class:`_RRPower`)."""
    return _RRPower(eps=float(eps), k=int(k))


def _cheap_exact(items: list[tuple[TradeOff, int]], *, allow_engine: bool) -> TradeOff | None:
    if len(items) == 1:
        f, m = items[0]
        if isinstance(f, EpsDelta) and f.delta_ == 0 and m <= 100_000:
            return _rr_power(f.eps, m)
        if isinstance(f, Gaussian | Identity):
            return None  # the CLT is exact here
    if not allow_engine:
        return None
    from ..engine.dispatch import compose

    try:
        return compose(*[f if m == 1 else f**m for f, m in items])
    except NotImplementedError:  # pragma: no cover - engine not available
        return None
