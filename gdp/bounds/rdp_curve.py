r"""The trade-off curve that Rényi divergences imply: optimal RDP / zCDP → f-DP conversion.

Theory of operation
-------------------
A mechanism is :math:`(\lambda, \varepsilon(\lambda))`-RDP when
:math:`D_\lambda(M(S)\|M(S')) \le \varepsilon(\lambda)` for all neighbours, in both orders
(the neighbour relation is symmetric). Any test :math:`\phi` post-processes the pair
:math:`(P, Q) = (M(S), M(S'))` into the Bernoulli pair :math:`(\mathrm{Bern}(\alpha),
\mathrm{Bern}(1-\beta))` of its errors, and Rényi divergences only shrink under
post-processing, so every achievable pair of errors satisfies, at every order,

.. math:: d_\lambda(1-\beta \,\|\, \alpha) \le \varepsilon(\lambda), \qquad
          d_\lambda(\alpha \,\|\, 1-\beta) \le \varepsilon(\lambda),

with :math:`d_\lambda(a\|b) = \frac{1}{\lambda-1}\log\big(a^\lambda b^{1-\lambda}
+ (1-a)^\lambda(1-b)^{1-\lambda}\big)` (Balle et al. 2020, Sec. 3; Zhu, Dong, Wang 2022,
App. F). The curve

.. math:: f_{\mathrm{RDP}}(\alpha) = \max_\lambda \min\{\beta \in [0, 1-\alpha] :
          \text{both inequalities hold at } \lambda\}

is therefore a lower bound on every :math:`T(P, Q)`, and it is the *tightest* one: at each
α the Bernoulli pair :math:`(\mathrm{Bern}(\alpha), \mathrm{Bern}(1-\beta))` itself has
the given divergences and a test with errors :math:`(\alpha, \beta)`. Each inequality is a
sublevel set of a jointly convex function (the perspective of :math:`t^\lambda`), so the
feasible region is convex and :math:`f_{\mathrm{RDP}}` is a trade-off function; it is
symmetric because the two inequalities swap under :math:`(\alpha, \beta) \mapsto (\beta,
\alpha)`. Both divergences decrease as β grows towards :math:`1 - \alpha`, so each order
contributes one root.

Soundness. At each α of a grid every order's root is bracketed by a root finder in
:math:`\log\beta` (relative precision in the tails), and both ends are *certified*: the
lower end is moved down until the computed divergence exceeds the order's ε by more than
a bound on its rounding error (16 ulps of the sum of the magnitudes of the logarithms it
adds, which covers the few correctly rounded operations that form it), the upper end up
until it is below by as much. Between grid points the convex curve is bounded from below
by its supporting lines: at :math:`\alpha_i` the slope lies between the secants to the
neighbours, which the certified ends bound, so the lines through :math:`(\alpha_i,
\underline\beta_i)` with the smallest secant slope to the left neighbour (extended to the
right) and the largest to the right neighbour (extended to the left) stay below the curve;
their upper envelope, mirrored in the diagonal and replaced by its convex minorant, is the
sound ``lower`` curve. The ``upper`` curve is the convex hull of the certified upper
points (chords above a convex curve lie above it). Any subset of orders gives a lower
curve, so a finite grid of orders for zCDP is sound too (and tight as the grid refines).

For the Gaussian's RDP curve :math:`\lambda\mu^2/2` the result lies between the curve of
the classical conversion :math:`\sup_\delta f_{\varepsilon(\delta), \delta}` and
:math:`G_\mu` (the Gaussian itself has these divergences).

References
----------
B. Balle, G. Barthe, M. Gaboardi, J. Hsu, T. Sato, "Hypothesis Testing Interpretations and
Rényi Differential Privacy", AISTATS 2020, Sec. 3 and Thm 21.
Y. Zhu, J. Dong, Y.-X. Wang, "Optimal Accounting of Differential Privacy via Characteristic
Function", AISTATS 2022, App. F (the f-DP implied by RDP).
M. Bun, T. Steinke, "Concentrated Differential Privacy", TCC 2016 (zCDP: ε(λ) ≤ ρλ).

Imports: the ground floor, :mod:`gdp.core`, :mod:`gdp.bounds.rdp`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._numerics import EPS, find_root_bracket, log1mexp, lower_convex_hull, step_until
from .._validation import as_real_array, check_real, check_str, shown
from ..core.piecewise import Identity, PiecewiseLinear, _make_piecewise, from_privacy_profile
from ..core.tradeoff import Bracketed, TradeOff
from .rdp import _orders, eps_from_rdp

__all__ = ["from_rdp", "from_zcdp", "ZCDP_ORDERS"]

#: Orders used for a zCDP curve: dense near 1, out to 10^4 (any subset is sound).
ZCDP_ORDERS: np.ndarray = 1.0 + np.geomspace(1e-3, 1e4, 200)
ZCDP_ORDERS.setflags(write=False)

# the grids of type I errors on (0, 1/2] (the symmetric curve meets the diagonal below 1/2
# and its mirror image covers the rest): a coarse one on which every order is solved (the
# upper curve, and the orders that matter where), and a fine one for the lower curve on
# which only the orders near the best one are solved (any subset of orders is sound)
_COARSE = np.unique(np.concatenate([np.geomspace(1e-30, 0.5, 100), np.linspace(0.05, 0.5, 20)]))
_FINE = np.unique(np.concatenate([np.geomspace(1e-30, 1e-10, 200), np.geomspace(1e-10, 0.5, 700),
                                  np.linspace(0.05, 0.5, 200)]))
_WINDOW = 3  # orders kept on each side of a best order of the coarse grid
_THIN = 8  # and every 8th order
_DELTAS = np.geomspace(1e-300, 0.5, 1501)  # where the sharp conversion's lines are added
_U_FAR = 700.0  # roots below e^-700 are bounded from below by 0


def _divergence(lam: np.ndarray, lx: np.ndarray, l1x: np.ndarray, ly: np.ndarray,
                l1y: np.ndarray, *, with_error: bool = False) -> Any:
    r""":math:`\max\{d_\lambda(1-\beta\|\alpha), d_\lambda(\alpha\|1-\beta)\}` from the logs
    of α, 1-α, β, 1-β (and, with ``with_error``, a bound on its rounding error)."""
    with np.errstate(all="ignore"):
        terms = (lam * l1y, (1.0 - lam) * lx, lam * ly, (1.0 - lam) * l1x,
                 lam * lx, (1.0 - lam) * l1y, lam * l1x, (1.0 - lam) * ly)
        d = np.maximum(np.logaddexp(terms[0] + terms[1], terms[2] + terms[3]),
                       np.logaddexp(terms[4] + terms[5], terms[6] + terms[7])) / (lam - 1.0)
        d = np.where(np.isnan(d), np.inf, d)
        if not with_error:
            return d
        err = 16.0 * EPS * (sum(np.abs(t) for t in terms) + 1.0) / (lam - 1.0)
    return d, np.where(np.isnan(err), np.inf, err)


def _order_roots(alpha: np.ndarray, lam: np.ndarray, eps: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    r"""Certified brackets ``(lo, hi)`` of the smallest feasible β at each α for each order
    (shape ``(orders, alphas)``); α strictly inside (0, 1), ε finite and positive.

    Solved in :math:`u = -\log\beta` (relative precision for β near 0 and 1 alike; the
    divergence increases with u): ``u_in`` is certified infeasible, ``u_ok`` feasible.
    """
    a = np.broadcast_to(alpha[None, :], (lam.size, alpha.size)).reshape(-1)
    lm = np.broadcast_to(lam[:, None], (lam.size, alpha.size)).reshape(-1)
    ep = np.broadcast_to(eps[:, None], (lam.size, alpha.size)).reshape(-1)
    lx, l1x = np.log(a), np.log1p(-a)

    def gap(u, lm, lx, l1x, ep):  # divergence minus its budget at beta = e^-u
        d = _divergence(lm, lx, l1x, -u, log1mexp(-u))
        return np.where(np.isinf(d), 1e300, d - ep)

    def certified(u: np.ndarray, infeasible: bool) -> np.ndarray:
        d, err = _divergence(lm, lx, l1x, -u, log1mexp(-u), with_error=True)
        return d - ep > err if infeasible else d - ep < -err

    u_top = -l1x  # beta = 1 - alpha is always feasible
    # the term (1-alpha)^lam beta^(1-lam) alone exceeds the budget of the second divergence
    # below beta = (1-alpha)^(lam/(lam-1)) e^-eps: the root lies at a smaller u
    u_far = np.minimum(_U_FAR, (ep - lm / (lm - 1.0) * l1x) * (1.0 + 1e-9) + 1e-12)
    g_far = gap(u_far, lm, lx, l1x, ep)
    u_in = np.full(a.shape, np.inf)  # beta = 0
    u_ok = np.where(g_far <= 0, u_far, u_top)
    inside = g_far > 0
    if inside.any():
        ul, ur, fl, fr = find_root_bracket(gap, u_top, u_far, args=(lm, lx, l1x, ep),
                                           xrtol=1e-13)
        # the solver stops at an exact zero without shrinking the other end
        ul, ur = np.where(fr == 0, ur, ul), np.where(fl == 0, ul, ur)
        u_in = np.where(inside, ur, u_in)
        u_ok = np.where(inside, ul, u_ok)
    # move each end to its certified side; an end that cannot be certified falls back to
    # the always-valid beta = 0 (lower) and beta = 1 - alpha (upper)
    fin = np.isfinite(u_in)
    u_in = np.where(fin, step_until(lambda u: ~fin | certified(u, True),
                                    np.where(fin, u_in, 1.0), np.inf, rel=4 * EPS, tries=200),
                    np.inf)
    u_in = np.where(np.isinf(u_in) | certified(np.minimum(u_in, 1e300), True), u_in, np.inf)
    u_ok = step_until(lambda u: (u <= u_top) | certified(np.maximum(u, u_top), False), u_ok,
                      0.0, rel=4 * EPS, tries=200)
    u_ok = np.where(certified(np.maximum(u_ok, u_top), False), np.maximum(u_ok, u_top), u_top)
    # beta = e^-u, rounded down for the lower end and up for the upper one
    lo = np.nextafter(np.nextafter(np.exp(-u_in), 0.0), 0.0)
    hi = np.minimum(np.nextafter(np.nextafter(np.exp(-u_ok), 2.0), 2.0), 1.0 - a)
    return lo.reshape(lam.size, alpha.size), hi.reshape(lam.size, alpha.size)


def _sound_bracket(alpha: np.ndarray, lo: np.ndarray, hi: np.ndarray, alpha_up: np.ndarray,
                   up: np.ndarray, name: str) -> Bracketed:
    r"""Symmetric convex curves below and above a convex symmetric curve with
    :math:`f(0) = 1`: the lower one from certified brackets ``[lo, hi]`` at ``alpha``
    (increasing, up to 1/2) of a convex symmetric curve below it, the upper one from
    certified upper values ``up`` at ``alpha_up`` (see the module notes). The part on
    :math:`[0, \max\alpha]` is bounded directly; its mirror image in the diagonal covers
    :math:`[f(\max\alpha), 1]`, which contains :math:`[1/2, 1]`."""
    a = np.concatenate([[0.0], alpha])
    lo = np.concatenate([[1.0], lo])
    hi_f = np.concatenate([[1.0], hi])
    n = a.size
    da = np.diff(a)
    with np.errstate(all="ignore"):
        # at interior point i (1 <= i <= n-2) the slope lies in [s_min(i), s_max(i)]
        s_min = np.concatenate([[np.nan], (lo[1:-1] - hi_f[:-2]) / da[:-1], [np.nan]])
        s_max = np.concatenate([[np.nan], (hi_f[2:] - lo[1:-1]) / da[1:], [np.nan]])
        # [0, a_1]: only the line from point 1 with slope s_max(1), extended to the left
        v0 = min(1.0, float(lo[1] - s_max[1] * a[1]))
        # [a_i, a_{i+1}], 1 <= i <= n-3: the line from i (slope s_min(i)) to the right and
        # the line from i+1 (slope s_max(i+1)) to the left; their max is lowest where they
        # cross
        i = np.arange(1, n - 2)
        sl, sr = s_min[i], s_max[i + 1]
        x = (lo[i + 1] - lo[i] + sl * a[i] - sr * a[i + 1]) / (sl - sr)
        x = np.where(np.isfinite(x), np.clip(x, a[i], a[i + 1]), a[i])
        y = np.maximum(lo[i] + sl * (x - a[i]), lo[i + 1] + sr * (x - a[i + 1]))
        y = y - 4.0 * EPS * (1.0 + np.abs(sl * (x - a[i])))  # the arithmetic of the lines
    # the chord over the last interval [a_{n-2}, a_{n-1}] is not below the curve: the
    # lower chain stops at a_{n-2}, whose mirror image still reaches past 1/2
    px = np.concatenate([[0.0], a[1:-1], x])
    py = np.concatenate([[v0], lo[1:-1], y])
    order = np.argsort(px, kind="stable")
    px, py = px[order], py[order]
    hull = lower_convex_hull(px, py)
    px, py = _clip_at_zero(px[hull], np.minimum(py[hull], 1.0))
    lower = _make_piecewise(np.concatenate([px, py]), np.concatenate([py, px]), name=name,
                            symmetric=True)
    ah = np.concatenate([[0.0], alpha_up, [1.0]])
    hh = np.concatenate([[1.0], up, [0.0]])
    upper = _make_piecewise(np.concatenate([ah, hh]), np.concatenate([hh, ah]),
                            name=name + "^{+}", symmetric=True)
    return Bracketed(lower=lower, upper=upper, name=name)


def _clip_at_zero(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The vertices of ``max(0, g)`` for a convex non-increasing chain ``g`` (sorted x)."""
    neg = np.flatnonzero(y <= 0.0)
    if neg.size == 0:
        return x, y
    if neg[0] == 0:
        return x[:1], np.zeros(1)
    k = int(neg[0])
    x0 = x[k - 1] + y[k - 1] * (x[k] - x[k - 1]) / (y[k - 1] - y[k])
    return (np.concatenate([x[:k], [x0, 1.0]]), np.concatenate([y[:k], [0.0, 0.0]]))


def _curve(orders: np.ndarray, eps: np.ndarray, name: str) -> TradeOff:
    keep = np.isfinite(eps)
    if np.any(keep & (eps <= 0)):
        return Identity()  # a zero divergence at one order: P = Q
    if not keep.any():
        raise ValueError("`rdp` must be finite at one order at least; got inf at every order")
    order = np.argsort(orders[keep], kind="stable")
    o, e = orders[keep][order], eps[keep][order]
    lo_c, hi_c = _order_roots(_COARSE, o, e)
    # a fixed subset S of the orders for the fine grid: the best ones of the coarse grid
    # with their neighbours, and a thinned spread of the rest; max over S is a convex curve
    # below the full one, so the secant bounds of the fine grid apply to it
    best = np.unique(np.argmax(lo_c, axis=0))
    near = (best[:, None] + np.arange(-_WINDOW, _WINDOW + 1)[None, :]).reshape(-1)
    pick = np.unique(np.concatenate([near[(near >= 0) & (near < o.size)],
                                     np.arange(0, o.size, _THIN), [o.size - 1]]))
    lo_f, hi_f = _order_roots(_FINE, o[pick], e[pick])
    out = _sound_bracket(_FINE, lo_f.max(axis=0), hi_f.max(axis=0), _COARSE,
                         hi_c.max(axis=0), name)
    # the lines of the sharp (epsilon, delta) conversion are valid too: the lower curve
    # never falls below them, whatever the grid
    sharp = eps_from_rdp(e, _DELTAS, o)
    ok = np.isfinite(sharp)
    if ok.any():
        lines = from_privacy_profile(sharp[ok], _DELTAS[ok])
        out = Bracketed(lower=_max_pl(out.lower, lines, name), upper=out.upper, name=name)
    return out


def _max_pl(f: PiecewiseLinear, g: PiecewiseLinear, name: str) -> PiecewiseLinear:
    """The maximum of two convex symmetric piecewise-linear curves: both are linear between
    consecutive vertices of either, so the maximum has its vertices there and where the two
    cross."""
    x = np.union1d(f.alpha, g.alpha)
    fv, gv = np.interp(x, f.alpha, f.beta), np.interp(x, g.alpha, g.beta)
    d = fv - gv
    cross = np.flatnonzero(d[:-1] * d[1:] < 0)
    t = d[cross] / (d[cross] - d[cross + 1])
    xc = x[cross] + t * (x[cross + 1] - x[cross])
    yc = fv[cross] + t * (fv[cross + 1] - fv[cross])
    return _make_piecewise(np.concatenate([x, xc]), np.concatenate([np.maximum(fv, gv), yc]),
                           name=name, symmetric=True)


def _rdp_at_orders(rdp: Any, orders: Any) -> tuple[np.ndarray, np.ndarray]:
    """Validated RDP values ``rdp`` (>= 0, ``inf`` allowed) and their ``orders`` (as
    :func:`gdp.eps_from_rdp`; the default orders when ``None``), one value per order."""
    r = as_real_array("rdp", rdp, lo=0.0, finite=False).reshape(-1)
    o = _orders(orders)
    if r.size != o.size:
        raise ValueError(f"`rdp` must have one value per order of `orders`; got {r.size} "
                         f"values for {o.size} orders (orders={shown(orders)})")
    return r, o


def from_rdp(rdp: Any, orders: Any = None, *, name: str = "f_{RDP}") -> TradeOff:
    r"""The tightest trade-off curve implied by Rényi DP at a set of orders.

    Parameters
    ----------
    rdp : array_like
        :math:`\varepsilon(\lambda) \ge 0` at each order (``inf`` allowed: that order says
        nothing), e.g. :func:`gdp.rdp_sampled_gaussian` times the number of steps.
    orders : array_like, optional
        The orders λ > 1 (default :data:`gdp.bounds.DEFAULT_ORDERS`).
    name : str
        Label for plots.

    Returns
    -------
    Bracketed
        ``lower`` (the sound side every question uses) and ``upper`` bound the curve
        :math:`\max_\lambda f_\lambda` of the module notes; both are symmetric and
        piecewise linear, so they compose, plot and convert like any other curve.
        :class:`~gdp.core.Identity` when a divergence is 0.

    Notes
    -----
    The conversion is pointwise optimal: no (ε, δ) conversion of the same RDP curve can be
    better. The sound curve also contains the lines of the sharp conversion
    (:func:`gdp.eps_from_rdp` at 1501 values of δ from 1e-300 to 1/2), so its ε(δ) is at
    most the sharp conversion's at those δ and within about 1e-4 (relative) of it in
    between; the conversion's gain over (ε, δ) shows in the curve itself (e.g. the power
    of tests at a given type I error), which no single (ε, δ) pair describes. Building it
    takes about a second (a root per order and grid point).

    The RDP numbers must hold for both orders of the neighbours (as RDP is defined);
    numbers for one order only give a curve for that order.

    References
    ----------
    Balle et al., AISTATS 2020, Sec. 3; Zhu, Dong, Wang, AISTATS 2022, App. F.

    Examples
    --------
    >>> import gdp
    >>> f = gdp.from_rdp(gdp.rdp_gaussian(1.0))
    >>> g = gdp.G_mu(1.0)
    >>> bool(f(0.05) <= g(0.05)), round(f(0.05), 3), round(g(0.05), 3)
    (True, 0.664, 0.74)
    >>> r = gdp.rdp_gaussian(1.0)
    >>> round(f.epsilon(1e-5), 3), round(gdp.eps_from_rdp(r, 1e-5, conversion="classical"), 3)
    (4.753, 5.303)
    """
    r, o = _rdp_at_orders(rdp, orders)
    return _curve(o, r, check_str("name", name))


def from_zcdp(rho: float, *, orders: Any = None, name: str | None = None) -> TradeOff:
    r"""The trade-off curve implied by ρ-zCDP (:math:`D_\lambda \le \rho\lambda` for every
    λ > 1), through :func:`from_rdp` on a dense grid of orders.

    Parameters
    ----------
    rho : float
        ρ ≥ 0 (0 gives the identity).
    orders : array_like, optional
        The orders to use (default :data:`ZCDP_ORDERS`); any subset of the orders gives a
        sound (lower) curve, a denser grid a tighter one.
    name : str, optional
        Label (default ``f_{zCDP}``).

    Notes
    -----
    The Gaussian :math:`G_\mu` is :math:`\mu^2/2`-zCDP, so ``from_zcdp(mu**2 / 2)`` lies
    below :math:`G_\mu`; the gap is what zCDP loses against GDP.

    Examples
    --------
    >>> import gdp
    >>> f = gdp.from_zcdp(0.5)
    >>> bool(f(0.1) <= gdp.G_mu(1.0)(0.1)), round(f(0.1), 3)
    (True, 0.516)
    """
    p = check_real("rho", rho, lo=0.0)
    o = np.array(ZCDP_ORDERS) if orders is None else _orders(orders)
    if p == 0.0:
        return Identity()
    return _curve(o, p * o, "f_{zCDP}" if name is None else check_str("name", name))
