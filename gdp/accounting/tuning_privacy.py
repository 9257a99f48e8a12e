r"""Hyperparameter tuning: the privacy of "train K times, K random, release the best run".

Theory of operation
-------------------
A tuning run draws the number of trainings :math:`K` from a law on :math:`\{0, 1, \dots\}`
with probability generating function :math:`\varphi(z) = E[z^K]`, trains K times with
fresh randomness (each run is f-DP) and releases the best run by its score (nothing when
K = 0; ties broken by a fixed order of the outputs or at random). With :math:`u(y)` the
probability, under :math:`P = M(X)`, that a run scores below the output y, the release has
density :math:`\varphi'(u(y))` with respect to :math:`P` (Papernot–Steinke 2022, Lemma 5),
and likewise :math:`\varphi'(u'(y))` with respect to :math:`P' = M(X')`.

**The profile bound** (a derivation in the spirit of Koskela–Redberg–Wang 2024, who bound
the profile of private selection by the base profile through the generating function).
Write :math:`\delta(\varepsilon)` for the profile of :math:`f^S`, defined for every real ε.

1. "Above y" is an event, so f-DP gives :math:`u'(y) \ge f(1 - u(y))`; :math:`\varphi'` is
   non-decreasing, so :math:`\varphi'(u') \ge \varphi'(f(1-u))`.
2. Hence :math:`dQ - e^\varepsilon dQ' \le \varphi'(u)\,[dP - e^{\varepsilon}
   \rho(u)^{-1} dP']` with :math:`\rho(u) = \varphi'(u)/\varphi'(f(1-u))`; on an interval
   :math:`I = [a, b]` of u, :math:`\rho \le \rho_I = \varphi'(b)/\varphi'(f(1-a))`.
3. On :math:`I` the positive part of :math:`dP - c\,dP'` (:math:`c = e^{\varepsilon}/
   \rho_I`) has density at most 1 in u (P is uniform in u) and mass at most
   :math:`\delta(\varepsilon - \log\rho_I)`; against the non-decreasing weight
   :math:`\varphi'` its integral is largest when the mass sits at the top of I:
   :math:`\varphi(b) - \varphi(\max(a, b - \delta(\varepsilon - \log\rho_I)))`.
4. Summing over any partition of [0, 1] bounds :math:`H_{e^\varepsilon}(Q\|Q')`; the
   symmetric argument bounds the other order. The best partition of a grid of u is found
   by dynamic programming (any partition is valid, the search only tightens).

The profile bound is then turned into a curve (:func:`gdp.from_privacy_profile`, exact for
the pairs computed) and combined with every other valid curve for the same release, by
taking the maximum (each is a lower bound on the truth, so their maximum is too):

* the RDP bound of Papernot–Steinke 2022 (Thm 2 for the truncated negative binomial, Thm 6
  for Poisson) when the base's RDP curve is known, through the lines of its sharp
  :math:`(\varepsilon, \delta)` conversion at 3001 values of δ: the result is never looser
  than that RDP accounting (at those δ; :func:`gdp.from_rdp` of :attr:`Tuning.rdp` gives
  the optimal conversion of the same bound);
* for a law with a largest value :math:`K_{\max}`, the composition :math:`f^{\otimes
  K_{\max}}` (the release is a post-processing of all the runs);
* for an :math:`(\varepsilon, 0)`-DP base and a truncated negative binomial K, pure
  :math:`(2+\eta)\varepsilon`-DP (Papernot–Steinke 2022; 3ε for geometric K, Liu–Talwar
  2019).

It is never tighter than a single run: a mechanism whose score is constant releases one
run, so no valid bound can be (the tests check this). The profile bound is tight where it
matters for (ε, δ) at small δ (the tails), and loose at small ε, where each piece of the
partition is charged its whole increment of φ: the advantage (ε = 0) it gives is a safe
but pessimistic number.

Soundness of the numerics: the base profile is an upper bound, evaluated on a grid of ε
and used at the grid point below (δ is non-increasing); :math:`f(1-a)` is the sound curve
(a lower value, a larger :math:`\rho_I`); each increment of φ is computed in log space
(``expm1``, ``log1p``) to a few ulps and the sum is raised by a relative 1e-12.

References
----------
N. Papernot, T. Steinke, "Hyperparameter Tuning with Renyi Differential Privacy", ICLR 2022
(Lemma 5, Thm 2, Thm 6). J. Liu, K. Talwar, "Private Selection from Private Candidates",
STOC 2019 (3ε for a geometric number of ε-DP runs). A. Koskela, R. Redberg, Y.-X. Wang,
"Privacy Profiles for Private Selection", ICML 2024.

Imports: every floor up to :mod:`gdp.bounds`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._numerics import bisect_bracket
from .._validation import (
    MAX_COUNT,
    as_probability_array,
    as_real_array,
    check_choice,
    check_count,
    check_fields,
    check_instance,
    check_real,
    instance,
    shown,
)
from ..bounds.rdp import _orders, delta_from_rdp, eps_from_rdp, rdp_of
from ..bounds.rdp_curve import _max_pl, _rdp_at_orders
from ..bounds.tables import BoundRecord, Comparison
from ..core.piecewise import PiecewiseLinear, from_privacy_profile
from ..core.tradeoff import Bracketed, Delegating, TradeOff
from ..engine.dispatch import compose_power
from ..families.epsdelta import EpsDelta

__all__ = ["RunCount", "truncated_negative_binomial", "geometric_runs", "poisson_runs",
           "binomial_runs", "fixed_runs", "Tuning", "tuning", "rdp_tuning", "compare_tuning"]


@dataclass(frozen=True, slots=True)
class RunCount:
    r"""The law of the number of runs K, by its generating function.

    Build with :func:`truncated_negative_binomial`, :func:`geometric_runs`,
    :func:`poisson_runs`, :func:`binomial_runs` or :func:`fixed_runs`.

    Attributes
    ----------
    kind : str
        ``"tnb"`` (shape η, halting probability γ; η = 1 is geometric, η = 0
        logarithmic), ``"poisson"`` (mean), ``"binomial"`` (n, q) or ``"fixed"`` (k).
    params : tuple of float
        ``(eta, gamma)``, ``(mean,)``, ``(n, q)`` or ``(k,)``.
    """

    kind: str
    params: tuple[float, ...]

    def __post_init__(self):
        kind = check_choice("kind", self.kind, tuple(_PARAMS))
        p, names = self.params, _PARAMS[kind]
        if not isinstance(p, tuple | list) or len(p) != len(names):
            raise TypeError(f"`params` must be a tuple {', '.join(names)} for kind={kind!r}; "
                            f"got params={shown(p)}")
        if kind == "tnb":
            vals = (_check_shape("params[0]", p[0]),
                    check_real("params[1]", p[1], lo=0.0, hi=1.0, lo_open=True))
        elif kind == "poisson":
            vals = (check_real("params[0]", p[0], lo=0.0, hi=MAX_COUNT, lo_open=True),)
        elif kind == "binomial":
            vals = (float(check_count("params[0]", p[0])),
                    check_real("params[1]", p[1], lo=0.0, hi=1.0, lo_open=True))
        else:
            vals = (float(check_count("params[0]", p[0])),)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "params", vals)

    @property
    def mean(self) -> float:
        """E[K]."""
        if self.kind == "tnb":
            eta, g = self.params
            return _tnb_mean(eta, g)
        if self.kind == "poisson":
            return self.params[0]
        if self.kind == "binomial":
            return self.params[0] * self.params[1]
        return self.params[0]

    @property
    def k_max(self) -> int | None:
        """The largest possible K (None when unbounded)."""
        if self.kind in ("binomial", "fixed"):
            return int(self.params[0])
        return None

    @property
    def p_zero(self) -> float:
        """P[K = 0] (the release is then empty)."""
        return float(np.exp(self._log_pgf(np.zeros(1)))[0])

    def pgf(self, z: Any) -> np.ndarray:
        r""":math:`\varphi(z) = E[z^K]` on [0, 1]."""
        return np.exp(self._log_pgf(as_probability_array("z", z)))

    def log_pgf(self, z: Any) -> np.ndarray:
        r""":math:`\log\varphi(z)`, z in [0, 1]."""
        return self._log_pgf(as_probability_array("z", z))

    def log_dpgf(self, z: Any) -> np.ndarray:
        r""":math:`\log\varphi'(z)` (non-decreasing in z), z in [0, 1]."""
        return self._log_dpgf(as_probability_array("z", z))

    def increment(self, a: Any, b: Any) -> np.ndarray:
        r""":math:`\varphi(b) - \varphi(a)` for :math:`a \le b` in [0, 1] (0 where
        :math:`a \ge b`), without cancellation."""
        return self._increment(as_probability_array("a", a), as_probability_array("b", b))

    def _log_pgf(self, z: np.ndarray) -> np.ndarray:
        k, p = self.kind, self.params
        with np.errstate(divide="ignore", invalid="ignore"):
            if k == "tnb":
                eta, g = p
                c = 1.0 - g
                if eta == 0.0:
                    return np.log(-np.log1p(-c * z)) - math.log(-math.log(g))
                # ((1 - c z)^-eta - 1) / (g^-eta - 1), both factors as expm1
                return (np.log(np.expm1(-eta * np.log1p(-c * z)) / math.expm1(-eta * math.log(g))))
            if k == "poisson":
                return p[0] * (z - 1.0)
            if k == "binomial":
                return p[0] * np.log1p(p[1] * (z - 1.0))
            return p[0] * np.log(z)

    def _log_dpgf(self, z: np.ndarray) -> np.ndarray:
        k, p = self.kind, self.params
        z = np.asarray(z, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            if k == "tnb":
                eta, g = p
                c = 1.0 - g
                if eta == 0.0:
                    return math.log(c / -math.log(g)) - np.log1p(-c * z)
                return (math.log(eta * c / math.expm1(-eta * math.log(g)))
                        - (eta + 1.0) * np.log1p(-c * z))
            if k == "poisson":
                return math.log(p[0]) + p[0] * (z - 1.0)
            if k == "binomial":
                return math.log(p[0] * p[1]) + (p[0] - 1.0) * np.log1p(p[1] * (z - 1.0))
            return math.log(p[0]) + (p[0] - 1.0) * np.log(z)

    def _increment(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        la, lb = self._log_pgf(a), self._log_pgf(b)
        with np.errstate(all="ignore"):
            out = np.exp(la) * np.expm1(lb - la)
        return np.where(np.isneginf(la), np.exp(lb), np.where(b > a, out, 0.0))


#: the parameters of each kind of :class:`RunCount`
_PARAMS = {"tnb": ("eta", "gamma"), "poisson": ("mean",), "binomial": ("n", "q"), "fixed": ("k",)}
#: the smallest positive shape: below it (η log γ subnormal) the generating function's
#: ratios of expm1 lose their digits; η = 0 (logarithmic) is the limit and is exact
_MIN_SHAPE = 1e-100


def _check_shape(name: str, value: Any) -> float:
    eta = check_real(name, value, lo=0.0, hi=MAX_COUNT)
    if 0.0 < eta < _MIN_SHAPE:
        raise ValueError(f"`{name}` must be 0 (logarithmic) or at least {_MIN_SHAPE:g}; "
                         f"got {name}={eta!r}")
    return eta


def _tnb_mean(eta: float, g: float) -> float:
    if g == 1.0:
        return 1.0
    if eta == 0.0:
        return (1.0 - g) / (g * -math.log(g))
    return eta * (1.0 - g) / (g * -math.expm1(eta * math.log(g)))


def truncated_negative_binomial(*, shape: float, mean: float | None = None,
                                gamma: float | None = None) -> RunCount:
    r"""K with :math:`P[K = k] \propto \binom{k + \eta - 1}{k}(1-\gamma)^k`, k ≥ 1
    (Papernot–Steinke 2022, Def. 1): η = 1 is geometric, η = 0 logarithmic.

    Give ``mean`` (then γ is the largest value, found by bisection, whose mean is at most
    the requested one: report and sample with ``RunCount.params[1]``) or ``gamma``.

    Examples
    --------
    >>> import gdp
    >>> r = gdp.truncated_negative_binomial(shape=1.0, mean=10.0)
    >>> r.params, round(r.mean, 12)
    ((1.0, 0.1), 10.0)
    """
    eta = _check_shape("shape", shape)
    if (mean is None) == (gamma is None):
        raise TypeError("give exactly one of `mean` and `gamma`")
    if gamma is not None:
        g = check_real("gamma", gamma, lo=0.0, hi=1.0, lo_open=True)
        return RunCount("tnb", (eta, g))
    m = check_real("mean", mean, lo=1.0, hi=MAX_COUNT)
    if eta == 1.0:
        return RunCount("tnb", (1.0, 1.0 / m))
    if m == 1.0:
        return RunCount("tnb", (eta, 1.0))
    # the mean decreases in gamma: the smallest gamma whose mean is at most m
    lo, hi = bisect_bracket(lambda g: np.array([_tnb_mean(eta, float(x)) <= m for x in g]),
                            np.array([1e-300]), np.array([1.0]))
    return RunCount("tnb", (eta, float(hi[0])))


def geometric_runs(mean: float) -> RunCount:
    """K geometric on {1, 2, ...} with the given mean (stop after each run with probability
    1/mean): :func:`truncated_negative_binomial` with η = 1 (Liu–Talwar 2019)."""
    return truncated_negative_binomial(shape=1.0, mean=mean)


def poisson_runs(mean: float) -> RunCount:
    r"""K ~ Poisson(mean) (nothing is released when K = 0; Papernot–Steinke 2022, Thm 6)."""
    return RunCount("poisson", (check_real("mean", mean, lo=0.0, hi=MAX_COUNT,
                                           lo_open=True),))


def binomial_runs(n: int, q: float) -> RunCount:
    r"""K ~ Binomial(n, q): each of n candidate runs is trained with probability q (nothing
    is released when K = 0); at most n runs (Koskela–Redberg–Wang 2024)."""
    return RunCount("binomial", (float(check_count("n", n)),
                                 check_real("q", q, lo=0.0, hi=1.0, lo_open=True)))


def fixed_runs(k: int) -> RunCount:
    """K = k always (the best of k runs)."""
    return RunCount("fixed", (float(check_count("k", k)),))


# ---------------------------------------------------------------------- RDP (PS22)
def rdp_tuning(rdp: Any, runs: RunCount, orders: Any = None, *,
               base: TradeOff | None = None) -> np.ndarray:
    r"""RDP of the tuned release from the base's RDP curve (Papernot–Steinke 2022).

    * truncated negative binomial (Thm 2): :math:`\varepsilon'(\lambda) = \varepsilon(\lambda)
      + (1+\eta)\min_{\hat\lambda}\big[(1 - 1/\hat\lambda)\varepsilon(\hat\lambda) +
      \log(1/\gamma)/\hat\lambda\big] + \log E[K]/(\lambda - 1)`;
    * Poisson (Thm 6): :math:`\varepsilon(\lambda) + \mu\hat\delta + \log\mu/(\lambda-1)`
      with :math:`\hat\delta = \delta(\log(1 + 1/(\lambda-1)))`, the base's profile (from
      ``base`` if given, else the sharp conversion of its RDP curve);
    * other laws: ``inf`` (no RDP theorem).

    Then made non-decreasing in λ (Rényi divergences are). Orders as :func:`gdp.eps_from_rdp`.

    Examples
    --------
    >>> import gdp
    >>> r = gdp.rdp_tuning(gdp.rdp_gaussian(1.0, [2, 4, 8]), gdp.geometric_runs(10), [2, 4, 8])
    >>> r.round(4).tolist()
    [6.0701, 6.0701, 7.6315]
    """
    r, o = _rdp_at_orders(rdp, orders)
    check_instance("runs", runs, RunCount, "a RunCount")
    if base is not None:
        check_instance("base", base, TradeOff, "a TradeOff")
    out = np.full(o.shape, np.inf)
    if runs.kind == "tnb":
        eta, g = runs.params
        with np.errstate(invalid="ignore"):
            c = (1.0 + eta) * np.min(np.where(np.isfinite(r), (1.0 - 1.0 / o) * r
                                              - math.log(g) / o, np.inf))
        out = r + math.log(runs.mean) / (o - 1.0) + c
    elif runs.kind == "poisson":
        m = runs.params[0]
        e_hat = np.log1p(1.0 / (o - 1.0))
        d_hat = np.asarray(base.delta(e_hat) if base is not None
                           else delta_from_rdp(r, e_hat, o), dtype=float)
        out = r + m * d_hat + math.log(m) / (o - 1.0)
    out = np.where(np.isnan(out), np.inf, out)
    # monotone in the order: a bound at a larger order holds at the smaller ones
    order = np.argsort(o)
    best = np.minimum.accumulate(out[order][::-1])[::-1]
    res = np.empty_like(out)
    res[order] = best
    return res


# ------------------------------------------------------------------ the profile bound
_U = np.unique(np.concatenate([np.linspace(0.0, 1.0, 61), np.geomspace(1e-9, 0.5, 30),
                               1.0 - np.geomspace(1e-9, 0.5, 60)]))
#: the ε at which the profile bound is computed (the curve is exact at these pairs)
TUNING_EPS: np.ndarray = np.unique(np.concatenate([np.linspace(0.0, 2.0, 21),
                                                   np.geomspace(2.0, 80.0, 70)]))
TUNING_EPS.setflags(write=False)
_RDP_DELTAS = np.geomspace(1e-300, 0.5, 3001)
_E_GRID = np.concatenate([[-np.inf], np.linspace(-40.0, 0.0, 401)[:-1],
                          np.geomspace(1e-6, 100.0, 800), [np.inf]])


def _profile_bound(f: TradeOff, runs: RunCount, eps: np.ndarray) -> np.ndarray:
    r"""Upper bounds on the profile of the tuned release at ``eps`` (module notes, 1-4)."""
    fs = f if f.is_symmetric else f.symmetrize()
    # the base profile on a grid, used at the grid point below (delta is non-increasing)
    hs = np.asarray(fs.hockey_stick(_E_GRID[1:-1]), dtype=float)
    h_grid = np.concatenate([[1.0], hs, [float(fs.hockey_stick(np.inf))]])
    u = _U
    n = u.size
    a, b = u[:, None], u[None, :]  # interval [u_i, u_j], i < j
    f_at = np.asarray(fs(1.0 - u), dtype=float)  # sound (lower) curve: rho never too small
    with np.errstate(invalid="ignore"):
        log_rho = runs._log_dpgf(np.broadcast_to(b, (n, n))) - runs._log_dpgf(f_at)[:, None]
    log_rho = np.where(np.isnan(log_rho), np.inf, np.maximum(log_rho, 0.0))
    inside = b > a
    # all eps at once: d[k, i, j] is the base profile at eps_k - log rho_ij (grid point below)
    idx = np.searchsorted(_E_GRID, eps[:, None, None] - log_rho[None], side="right") - 1
    d = h_grid[np.clip(idx, 0, _E_GRID.size - 1)]
    lb = runs._log_pgf(u)
    la = runs._log_pgf(np.maximum(a[None], b[None] - d))
    with np.errstate(all="ignore"):
        cost = np.where(np.isneginf(la), np.exp(lb)[None, None, :],
                        np.exp(la) * np.expm1(lb[None, None, :] - la))
    cost = np.where(inside[None], np.maximum(cost, 0.0) * (1.0 + 1e-12) + 1e-300, np.inf)
    best = np.full((eps.size, n), np.inf)  # cheapest partition of [0, u_j]
    best[:, 0] = 0.0
    for j in range(1, n):
        best[:, j] = np.min(best[:, :j] + cost[:, :j, j], axis=1)
    out = np.minimum(1.0, best[:, -1])
    return out


def _pure_dp(base: TradeOff, runs: RunCount) -> float | None:
    r"""(2 + η)ε for an :math:`f_{\varepsilon,0}` base and a truncated negative binomial K
    (Papernot–Steinke 2022, Thm 2 as ε(λ) → ε; 3ε for geometric K, Liu–Talwar 2019)."""
    if isinstance(base, EpsDelta) and base.delta_ == 0 and runs.kind == "tnb":
        return (2.0 + runs.params[0]) * base.eps
    return None


def _as_piecewise(f: TradeOff) -> PiecewiseLinear:
    """A piecewise-linear curve below ``f``: itself, its sound side, or the supremum of its
    (ε(δ), δ) pairs at 3001 values of δ."""
    if isinstance(f, Bracketed):
        f = f.lower
    if isinstance(f, PiecewiseLinear):
        return f
    e = np.asarray(f.epsilon(_RDP_DELTAS), dtype=float)
    ok = np.isfinite(e)
    return from_privacy_profile(e[ok], _RDP_DELTAS[ok])


@dataclass(frozen=True, slots=True, eq=False)
class Tuning(Delegating):
    r"""The curve of a tuned release (:func:`tuning`): the maximum of the valid bounds.

    Every question is answered with :attr:`curve`, except that :meth:`~gdp.TradeOff.delta`
    and :meth:`~gdp.TradeOff.epsilon` also take the sharp conversion of :attr:`rdp` at the
    very ε or δ asked (both statements are valid, so is the smaller), which makes them
    never looser than the RDP accounting at any δ.

    Attributes
    ----------
    base : TradeOff
        The curve of one training run.
    runs : RunCount
        The law of the number of runs.
    curve : PiecewiseLinear
        The combined (sound) curve every question is answered with.
    profile : PiecewiseLinear
        The profile bound alone (module notes).
    rdp : ndarray or None
        The RDP bound of the tuned release at ``orders`` (Papernot–Steinke), when the
        base's RDP curve is known.
    orders : ndarray or None
        Its orders.
    """

    base: TradeOff
    runs: RunCount
    curve: PiecewiseLinear = field(repr=False)
    profile: PiecewiseLinear = field(repr=False)
    rdp: np.ndarray | None = field(default=None, repr=False)
    orders: np.ndarray | None = field(default=None, repr=False)
    is_symmetric = True

    label_format = r"{{{self.base.label}}}^{{\mathrm{{tune}}}}"

    def __post_init__(self):
        check_fields(self, base=instance(TradeOff, "a TradeOff"),
                     runs=instance(RunCount, "a RunCount"),
                     curve=instance(PiecewiseLinear, "a PiecewiseLinear curve"),
                     profile=instance(PiecewiseLinear, "a PiecewiseLinear curve"))
        if (self.rdp is None) != (self.orders is None):
            raise TypeError(f"`rdp` and `orders` go together (both or neither); got "
                            f"rdp={shown(self.rdp)}, orders={shown(self.orders)}")
        if self.rdp is not None:
            r = as_real_array("rdp", self.rdp, lo=0.0, finite=False).reshape(-1)
            o = as_real_array("orders", self.orders, lo=1.0, lo_open=True).reshape(-1)
            if r.size != o.size or r.size == 0:
                raise ValueError(f"`rdp` must have one value per order (non-empty); got "
                                 f"rdp={shown(self.rdp)}, orders={shown(self.orders)}")
            object.__setattr__(self, "rdp", r)
            object.__setattr__(self, "orders", o)

    def _target(self) -> TradeOff:
        return self.curve

    # (epsilon, delta) questions also take the RDP bound's own conversion, so that they are
    # never looser than it at any delta (the curve holds its lines at 3001 values of delta)
    def _hockey(self, eps):
        eps = np.asarray(eps, dtype=float)
        out = np.asarray(self.curve._hockey(eps), dtype=float)
        if self.rdp is not None and np.any(np.isfinite(self.rdp)) and np.any(eps >= 0):
            pos = eps >= 0
            rd = np.asarray(delta_from_rdp(self.rdp, eps[pos], self.orders), dtype=float)
            out = out.copy()
            out[pos] = np.minimum(out[pos], rd.reshape(-1))
        return out

    def _epsilon(self, delta):
        out = np.asarray(self.curve._epsilon(delta), dtype=float)
        if self.rdp is not None and np.any(np.isfinite(self.rdp)):
            rd = np.asarray(eps_from_rdp(self.rdp, delta, self.orders), dtype=float)
            out = np.minimum(out, rd.reshape(out.shape))
        return out


def tuning(base: TradeOff, runs: RunCount, *, rdp: Any = None, orders: Any = None
           ) -> Tuning:
    r"""The trade-off curve of "train K times (K ~ ``runs``), release the best run", for a
    training run whose curve is ``base``.

    Parameters
    ----------
    base : TradeOff
        One run's curve (e.g. :func:`gdp.dpsgd`); symmetrised if it is not symmetric.
    runs : RunCount
        The law of K: :func:`truncated_negative_binomial`, :func:`geometric_runs`,
        :func:`poisson_runs`, :func:`binomial_runs`, :func:`fixed_runs`.
    rdp, orders : array_like, optional
        The base's RDP curve at ``orders`` (default: :func:`gdp.rdp_of` when the base has a
        closed form). Adds the Papernot–Steinke RDP bound, so the result is never looser
        than the RDP accounting of the tuning.

    Returns
    -------
    Tuning
        A symmetric piecewise-linear curve (the maximum of the profile bound, the optimal
        conversion of the RDP bound and, for bounded K, the :math:`K_{\max}`-fold
        composition); it composes, converts and plots like any other curve, so
        ``compose(tuning(...), other)`` accounts for a tuned run inside a larger analysis.

    Examples
    --------
    >>> import gdp
    >>> h = gdp.tuning(gdp.G_mu(1.0), gdp.geometric_runs(10))
    >>> single, tuned = gdp.G_mu(1.0).epsilon(1e-5), h.epsilon(1e-5)
    >>> rdp = gdp.eps_from_rdp(h.rdp, 1e-5, h.orders)
    >>> single < tuned <= rdp
    True
    >>> round(tuned, 2), round(rdp, 2)
    (7.13, 8.53)
    """
    if not isinstance(base, TradeOff):
        raise TypeError(f"`base` must be a TradeOff; got base={base!r}")
    if not isinstance(runs, RunCount):
        raise TypeError(f"`runs` must be a RunCount (e.g. geometric_runs(10)); got "
                        f"runs={runs!r}")
    prof = from_privacy_profile(TUNING_EPS, _profile_bound(base, runs, TUNING_EPS),
                                name="tuning profile")
    curve = prof
    rdp_out = o = None
    if rdp is None and orders is not None:
        raise TypeError("`orders` goes with `rdp` (the base's RDP curve at those orders)")
    if rdp is None:
        try:
            o = _orders(None)
            rdp = rdp_of(base, o)
        except TypeError:
            rdp = None
    else:
        o = _orders(orders)
    if rdp is not None:
        rdp_out = rdp_tuning(rdp, runs, o, base=base)
        if not np.any(np.isfinite(rdp_out)):  # e.g. a numeric curve with mass at +inf
            rdp_out = None
        else:  # the lines of its sharp (eps, delta) conversion
            e = np.asarray(eps_from_rdp(rdp_out, _RDP_DELTAS, o), dtype=float)
            ok = np.isfinite(e)
            if ok.any():
                curve = _max_pl(curve, from_privacy_profile(e[ok], _RDP_DELTAS[ok]), "f")
    if runs.k_max is not None:
        curve = _max_pl(curve, _as_piecewise(compose_power(base, runs.k_max)), "f")
    pure = _pure_dp(base, runs)
    if pure is not None and math.isfinite(pure):
        curve = _max_pl(curve, from_privacy_profile([pure], [0.0]), "f")
    curve = PiecewiseLinear(alpha=curve.alpha, beta=curve.beta, name="tuning",
                            symmetric=True, one_minus_beta=curve.one_minus_beta)
    return Tuning(base=base, runs=runs, curve=curve, profile=prof,
                  rdp=None if rdp_out is None else np.asarray(rdp_out),
                  orders=None if rdp_out is None else np.asarray(o))


# ------------------------------------------------------------------- the comparison
def compare_tuning(base: TradeOff, runs: RunCount, *, delta: float | None = None,
                   eps: float | None = None, rdp: Any = None, orders: Any = None
                   ) -> Comparison:
    r"""ε at δ (and/or δ at ε) of a tuned release by every applicable analysis, as a table
    (the same :class:`gdp.bounds.Comparison` as :func:`gdp.compare`).

    Rows: ``"single run"`` (the base alone: no bound on the tuned release can be below
    it), ``"K_max-fold composition"`` (bounded K), ``"pure DP (LT19/PS22)"`` (a
    :math:`f_{\varepsilon,0}` base and a truncated negative binomial K:
    :math:`(2+\eta)\varepsilon`, 3ε for geometric K), ``"RDP (PS22)"`` (the sharp conversion
    of :func:`rdp_tuning`), ``"profile bound"`` (the module notes) and ``"tuning"`` (the
    combined curve :func:`tuning` returns).

    Examples
    --------
    >>> import gdp
    >>> c = gdp.compare_tuning(gdp.G_mu(1.0), gdp.geometric_runs(10), delta=1e-5)
    >>> [(r.method, round(r.epsilon, 2)) for r in c if r.kind != "skipped"]
    [('single run', 4.38), ('RDP (PS22)', 8.53), ('profile bound', 7.13), ('tuning', 7.13)]
    """
    if delta is None and eps is None:
        raise TypeError("give `delta` (to compute ε) and/or `eps` (to compute δ)")
    d_t = None if delta is None else check_real("delta", delta, lo=0.0, hi=1.0)
    e_t = None if eps is None else check_real("eps", eps, lo=0.0)
    h = tuning(base, runs, rdp=rdp, orders=orders)
    comp = None if runs.k_max is None else compose_power(base, runs.k_max)
    pure = _pure_dp(base, runs)
    questions = ([("epsilon", d_t)] if d_t is not None else []) + \
        ([("delta", e_t)] if e_t is not None else [])
    records = []
    for solved, x in questions:
        records.extend(_tuning_rows(solved, x, base, runs, h, comp, pure))
    desc = (f"Tuning: best of K runs, K ~ {runs.kind}{runs.params}, E[K] = {runs.mean:.4g}; "
            f"base {type(base).__name__}")
    return Comparison(records=tuple(records), description=desc)


def _tuning_rows(solved: str, x: float, base: TradeOff, runs: RunCount, h: Tuning,
                 comp: TradeOff | None, pure: float | None) -> list[BoundRecord]:
    """The rows of :func:`compare_tuning` for one question (ε at δ = x, or δ at ε = x)."""
    at_delta = solved == "epsilon"

    def row(method: str, value: float | None, kind: str, notes: str) -> BoundRecord:
        e, d = (value, x) if at_delta else (x, value)
        return BoundRecord(method=method, kind=kind, epsilon=e, delta=d, solved=solved, k=1,
                           notes=notes)

    def ask(f: TradeOff) -> float:
        return float(f.epsilon(x) if at_delta else f.delta(x))

    out = [row("single run", ask(base), "exact",
               "one training run: no bound on the tuned release is below it")]
    out.append(row("K_max-fold composition", None, "skipped", "K is unbounded")
               if comp is None else
               row("K_max-fold composition", ask(comp), "bound",
                   f"all {runs.k_max} runs released"))
    if pure is None:
        out.append(row("pure DP (LT19/PS22)", None, "skipped",
                       "needs an (eps, 0)-DP base and a truncated negative binomial K"))
    else:
        out.append(row("pure DP (LT19/PS22)", pure if at_delta else (0.0 if x >= pure else 1.0),
                       "bound", "(2 + eta) eps: 3 eps for geometric K (Liu-Talwar 2019)"))
    if h.rdp is None or not np.any(np.isfinite(h.rdp)):
        out.append(row("RDP (PS22)", None, "skipped",
                       "no RDP curve of the base, or no RDP theorem for this K"))
    else:
        conv = eps_from_rdp if at_delta else delta_from_rdp
        out.append(row("RDP (PS22)", float(conv(h.rdp, x, h.orders)), "bound",
                       "Papernot-Steinke 2022, sharp conversion"))
    out.append(row("profile bound", ask(h.profile), "bound",
                   "profile of the selection from the base profile"))
    out.append(row("tuning", ask(h), "bound",
                   "maximum of every valid curve (gdp.tuning)"))
    return out
