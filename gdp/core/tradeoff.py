r"""Trade-off functions: the one abstraction of the toolkit.

Theory of operation
-------------------
For distributions :math:`P, Q` the trade-off function is
:math:`T(P,Q)(\alpha) = \inf\{\beta_\phi : \alpha_\phi \le \alpha\}` (DRS Def. 2.1); a
function :math:`f:[0,1]\to[0,1]` is one iff it is convex, continuous, non-increasing and
:math:`f(\alpha) \le 1-\alpha` (DRS Prop. 2.2).

Every :class:`TradeOff` answers the same questions through a few private hooks that a
family overrides when it has a formula ("formula first, numerics second"):

``_f(alpha)``
    The curve on an array :math:`\alpha \in [0,1]` (required).
``_one_minus_f(alpha)``
    :math:`1 - f(\alpha)` without cancellation (default ``1 - _f``).
``_hockey(eps)``
    The one-order privacy profile :math:`\delta_f(\varepsilon) = 1 + f^*(-e^\varepsilon)
    = \sup_x [1 - e^\varepsilon x - f(x)]` for every real :math:`\varepsilon` (negative
    too, and :math:`+\infty`). For :math:`f = T(P,Q)` this is the hockey-stick divergence
    :math:`\sup_S Q(S) - e^\varepsilon P(S)` (DRS Prop. 2.12). The generic default
    maximises the concave function by golden-section search (in :math:`\alpha`, then in
    :math:`\log\alpha` for tiny maximisers) and returns an *upper* bound certified by
    secants of the concave function (sound side; absolute accuracy ~1e-15). An override
    must never return less than the truth by more than rounding.
``_loss_sf(t)`` / ``_loss_sf_q(t)``
    The law of the privacy loss :math:`L = \log dQ/dP`: :math:`P[L > t]` and
    :math:`Q[L > t]` (the latter includes the atom :math:`Q[L = +\infty] = 1 - f(0)`).
    Neyman–Pearson: :math:`P[L>t]` is the type I error of the test "reject when
    :math:`L > t`", i.e. the point where the slope of :math:`f` crosses :math:`-e^t`,
    and :math:`Q[L \le t] = f(P[L>t])`. The numeric composition engine discretises these.
    Both are right-continuous in ``t`` with strict ">" at atoms (:class:`Inverse` relies
    on this: :math:`Q[L \ge s]` is ``_loss_sf_q`` at the float just below ``s``). The
    generic default is an approximation (golden section), exact only up to the search
    tolerance and not at atoms.
``_atoms()``
    For purely atomic laws (piecewise-linear curves), the exact atoms
    ``(loss, p_mass, q_mass)`` including :math:`\pm\infty`; ``None`` otherwise.
``_pl_data()``, ``_omf_lower``, ``_lines()``, ``_hockey_upper``, ``_hockey_lower``,
``_symmetric_exact()``
    The hooks of the dominance certificates (:mod:`gdp.core.dominance`): the vertex data of
    a piecewise-linear curve, bounds on :math:`1 - f` and on the profile with every
    rounding error on the side that makes a certificate harder, the lines whose maximum
    bounds :math:`f` from above, and whether :math:`f = f^{-1}` holds exactly. The defaults
    say "unknown" (``None``), except ``_hockey_upper``: ``_hockey`` plus a rounding
    allowance.

Conventions: ``delta(eps)`` answers for a *mechanism* that is f-DP, which by DRS
Prop. 2.4 is also :math:`f^S = \max\{f, f^{-1}\}`-DP, so it is the profile of
:math:`f^S` (equal to ``_hockey`` for symmetric :math:`f`; for asymmetric :math:`f` the
convex-hull construction of :func:`_sym_profile_fn`, an upper bound). ``hockey_stick(eps)``
is the one-order profile of :math:`f` itself. ``is_symmetric`` must only be True when
:math:`f = f^{-1}` (it makes ``delta`` use ``_hockey`` and ``inverse()`` return ``self``).
``_epsilon(delta)`` may be overridden by a closed form; the default inverts the profile
(:func:`_generic_epsilon`) and returns the upper end of the final bracket. The public
methods turn a NaN from any hook into the safe side (curve 0, δ = 1, ε = ∞).

References
----------
DRS: J. Dong, A. Roth, W. J. Su, "Gaussian Differential Privacy", JRSS-B 84(1), 2022.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from .._numerics import EPS, bisect_bracket, float_or_array
from .._validation import (
    as_probability_array,
    as_real_array,
    check_callable,
    check_count,
    check_instance,
    check_real,
    check_str,
)
from .dominance import _profile_proof, lines_of_vertices
from .dominance import _same_vertices as _same_curve
from .dominance import dominates as _dominates
from .generic import (
    _both_orders_profile,
    _generic_epsilon,
    _numeric_hockey,
    _numeric_hockey_inverse,
    _numeric_hockey_inverse_lower,
    _numeric_loss_sf,
    _sym_profile_fn,
    _symmetrized_profile,
)

__all__ = [
    "TradeOff", "Derived", "Delegating", "Inverse", "Symmetrized", "Group", "Bracketed",
    "register_engine",
]

# The operators ``@`` and ``**`` need the composition engine, which sits above this floor;
# the engine registers its entry points here when it is imported (``import gdp`` always
# imports it), so that the core imports nothing from above.
_ENGINE: dict[str, Callable[..., Any]] = {}

#: the largest group size of :class:`Group`: a curve without a closed form for group privacy
#: is iterated k times at every evaluation (ε of an asymmetric generic curve takes ~0.3 s
#: per unit of k, so minutes at this limit; a profile or a curve value, well under a second)
GROUP_MAX = 1000


def register_engine(*, compose: Callable[..., Any], compose_power: Callable[..., Any]) -> None:
    """Install the composition engine behind ``f @ g`` and ``f ** n`` (called by
    :mod:`gdp.engine` on import)."""
    check_callable("compose", compose, "the composition engine's compose(*fs)")
    check_callable("compose_power", compose_power, "the engine's compose_power(f, n)")
    _ENGINE["compose"] = compose
    _ENGINE["compose_power"] = compose_power


def _engine(name: str) -> Callable[..., Any]:
    try:
        return _ENGINE[name]
    except KeyError:
        raise RuntimeError("the composition engine is not loaded; `import gdp` loads it") \
            from None


class TradeOff:
    r"""A trade-off function :math:`f:[0,1]\to[0,1]` (convex, continuous, non-increasing,
    :math:`f(\alpha)\le 1-\alpha`).

    Instances are immutable values. Call one on a float or an array of type I errors
    :math:`\alpha` to get the type II errors :math:`\beta = f(\alpha)` (same shape).

    Examples
    --------
    >>> import gdp
    >>> f = gdp.G_mu(1.0)
    >>> round(f(0.05), 6)
    0.740489
    >>> f(0.0), f(1.0)
    (1.0, 0.0)
    """

    __slots__ = ()
    __array_ufunc__ = None  # keep numpy from broadcasting its operators over us

    # ------------------------------------------------------------------ hooks
    def _f(self, alpha: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _one_minus_f(self, alpha: np.ndarray) -> np.ndarray:
        return 1.0 - self._f(alpha)

    def _inverse(self) -> TradeOff:
        return Inverse(self)

    def _hockey(self, eps: np.ndarray) -> np.ndarray:
        return _numeric_hockey(self, eps)

    def _loss_sf(self, t: np.ndarray) -> np.ndarray:
        return _numeric_loss_sf(self, t)

    def _loss_sf_q(self, t: np.ndarray) -> np.ndarray:
        a = self._loss_sf(t)
        return np.clip(self._one_minus_f(a), 0.0, 1.0)

    def _atoms(self) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        return None

    def _dominates_exact(self, other: TradeOff) -> bool | None:
        """Family-specific exact dominance rule; ``None`` when there is none."""
        return None

    # hooks of the dominance certificates (gdp.core.dominance): bounds with every rounding
    # error on the side that makes a certificate harder; None where a curve has no such bound
    def _pl_data(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The vertex data ``(alpha, 1 - beta)`` of a piecewise-linear curve as stored (the
        curve *is* their interpolant); ``None`` otherwise."""
        return None

    def _omf_lower(self, alpha: np.ndarray) -> np.ndarray | None:
        """A lower bound on :math:`1 - f(\alpha)`, rounding included; ``None`` if unknown."""
        return None

    def _lines(self) -> tuple[np.ndarray, np.ndarray, bool] | None:
        """Lines ``(t_j, delta_j)`` with ``f <= max(0, 1 - delta_j - e^{t_j} alpha)`` (each
        line on or above the curve's own) and whether the set is exactly mirror-symmetric;
        by default those of the vertex data."""
        pl = self._pl_data()
        if pl is None or not np.all(np.diff(pl[0]) > 0):
            return None
        return lines_of_vertices(*pl)

    def _hockey_upper(self, eps: np.ndarray) -> np.ndarray:
        """An upper bound on the profile, rounding included: ``_hockey`` (an upper bound up
        to rounding by contract) plus 64 ulps of 1, the rounding allowance of the generic
        certified numerics on values in [0, 1]; closed forms override it with their own."""
        with np.errstate(all="ignore"):
            h = np.asarray(self._hockey(np.asarray(eps, dtype=float)), dtype=float)
        return np.where(np.isnan(h), 1.0, np.minimum(h + 64 * EPS, 1.0))

    def _hockey_lower(self, eps: np.ndarray) -> np.ndarray | None:
        """A lower bound on the profile, rounding included; ``None`` if unknown."""
        return None

    def _symmetric_exact(self) -> bool:
        """True when :math:`f = f^{-1}` holds exactly (a closed form), not just up to
        rounding or a check on a grid."""
        return False

    def _group(self, k: int) -> TradeOff:
        return Group(self, k)

    @property
    def is_symmetric(self) -> bool:
        """True when :math:`f = f^{-1}` (``delta`` then uses the one-order profile and
        ``inverse()`` returns ``self``): the ``symmetric`` field of curves that carry one;
        a family that is always symmetric sets ``is_symmetric = True``."""
        return bool(getattr(self, "symmetric", False))

    #: How :attr:`label` is built from the fields: a :meth:`str.format` template with
    #: ``self``, e.g. ``"G_{{{self.mu:g}}}"``; ``None``: the ``name`` field, or the class name.
    label_format: ClassVar[str | None] = None

    #: True for the curve of *one order* of a neighbouring pair whose other order is its
    #: inverse (a Poisson-subsampled step under add/remove neighbours, a mixture mechanism):
    #: the mechanism is then :math:`\min\{f, f^{-1}\}`-DP, not :math:`f`-DP, and
    #: :meth:`delta` / :meth:`epsilon` answer for it with :math:`\max(\delta_f,
    #: \delta_{f^{-1}})` (the profile of both orders) instead of the profile of
    #: :math:`f^S = \max\{f, f^{-1}\}`, which would under-state δ. The curve itself (and
    #: composition, which takes each order separately) is unchanged.
    one_order: ClassVar[bool] = False

    @property
    def label(self) -> str:
        """A short LaTeX-safe name for legends, e.g. ``G_{1}`` (see :attr:`label_format`)."""
        if self.label_format is not None:
            return self.label_format.format(self=self)
        return str(getattr(self, "name", type(self).__name__))

    # --------------------------------------------------------------- public API
    def __call__(self, alpha: Any) -> Any:
        """Type II error :math:`f(\\alpha)`; float for a scalar, array of the same shape
        for an array. ``ValueError`` for α outside [0, 1] or NaN."""
        a = as_probability_array("alpha", alpha)
        flat = a.reshape(-1)
        with np.errstate(all="ignore"):
            out = np.asarray(self._f(flat), dtype=float).reshape(-1)
        # fail safe: a NaN from a hook becomes the lowest possible curve value
        out = np.clip(np.where(np.isnan(out), 0.0, out), 0.0, 1.0 - flat)
        out[flat == 1.0] = 0.0
        return float_or_array(out, a.shape)

    def one_minus(self, alpha: Any) -> Any:
        """:math:`1 - f(\\alpha)` computed without cancellation (power of the best test)."""
        a = as_probability_array("alpha", alpha)
        flat = a.reshape(-1)
        with np.errstate(all="ignore"):
            out = np.asarray(self._one_minus_f(flat), dtype=float).reshape(-1)
        out = np.clip(np.where(np.isnan(out), 1.0, out), flat, 1.0)
        out[flat == 1.0] = 1.0
        return float_or_array(out, a.shape)

    def inverse(self) -> TradeOff:
        r""":math:`f^{-1}(\alpha) = \inf\{t\in[0,1] : f(t) \le \alpha\}`; for
        :math:`f = T(P,Q)` it is :math:`T(Q,P)` (DRS Sec. 2.3)."""
        if self.is_symmetric:
            return self
        return self._inverse()

    def symmetrize(self) -> TradeOff:
        r""":math:`f^S = \max\{f, f^{-1}\}`, also a trade-off function; an f-DP mechanism
        is :math:`f^S`-DP (DRS Prop. 2.4)."""
        if self.is_symmetric:
            return self
        return Symmetrized(self)

    def group(self, k: int) -> TradeOff:
        r"""Group privacy: an f-DP mechanism is :math:`1-(1-f)^{\circ k}`-DP for groups of
        size ``k`` (DRS Thm 2.14); :math:`G_\mu \mapsto G_{k\mu}` exactly."""
        k = check_count("k", k)
        return self if k == 1 else self._group(k)

    def hockey_stick(self, eps: Any) -> Any:
        r"""One-order privacy profile :math:`\delta_f(\varepsilon) = 1 + f^*(-e^\varepsilon)`
        for any real :math:`\varepsilon` (``inf`` allowed), vectorised.

        For :math:`f = T(P,Q)` this is :math:`\sup_S Q(S) - e^{\varepsilon}P(S)`. Use
        :meth:`delta` for the (ε, δ) guarantee of an f-DP mechanism.
        """
        e = as_real_array("eps", eps, finite=False)
        if np.any(np.isneginf(e)):
            raise ValueError("`eps` must be a real number or +inf; got eps=-inf")
        flat = e.reshape(-1)
        with np.errstate(all="ignore"):
            out = np.asarray(self._hockey(flat), dtype=float).reshape(-1)
        out = np.clip(np.where(np.isnan(out), 1.0, out), 0.0, 1.0)  # NaN -> the safe side
        return float_or_array(out, e.shape)

    def delta(self, eps: Any) -> Any:
        r"""Privacy profile: the smallest :math:`\delta` such that an f-DP mechanism is
        :math:`(\varepsilon, \delta)`-DP, for :math:`\varepsilon \ge 0` (vectorised).

        .. math:: \delta(\varepsilon) = 1 + (f^S)^*(-e^{\varepsilon})

        (DRS Prop. 2.12 applied to :math:`f^S = \max\{f, f^{-1}\}`, MATH.md §2). For a
        symmetric :math:`f` this is :meth:`hockey_stick`. Numeric paths answer with an
        upper bound (the sound side).
        """
        e = as_real_array("eps", eps, lo=0.0, finite=False)
        flat = e.reshape(-1)
        with np.errstate(all="ignore"):
            if self.is_symmetric:
                out = np.asarray(self._hockey(flat), dtype=float).reshape(-1)
            elif self.one_order:
                out = _both_orders_profile(self)(flat)
            else:
                out = _symmetrized_profile(self, flat)
        out = np.clip(np.where(np.isnan(out), 1.0, out), 0.0, 1.0)  # NaN -> the safe side
        return float_or_array(out, e.shape)

    def epsilon(self, delta: Any) -> Any:
        r"""Smallest :math:`\varepsilon \ge 0` with :math:`\delta(\varepsilon) \le \delta`
        (vectorised); ``inf`` when no finite ε achieves ``delta``.

        Computed by bisection on :meth:`delta`, returning the upper end of the final
        bracket, so the answer never under-states ε.
        """
        d = as_probability_array("delta", delta)
        flat = d.reshape(-1)
        with np.errstate(all="ignore"):
            out = np.asarray(self._epsilon(flat), dtype=float).reshape(-1)
        out = np.where(np.isnan(out), np.inf, np.maximum(out, 0.0))  # NaN -> the safe side
        return float_or_array(out, d.shape)

    def _epsilon(self, delta: np.ndarray) -> np.ndarray:
        if self.is_symmetric:
            def profile(e):
                with np.errstate(all="ignore"):
                    return np.clip(np.asarray(self._hockey(np.asarray(e, dtype=float)),
                                              dtype=float), 0.0, 1.0)

            return _generic_epsilon(profile, delta)
        if self.one_order:
            return _generic_epsilon(_both_orders_profile(self), delta)
        # asymmetric: build the symmetrised profile's hull once, then bisect on it
        return _generic_epsilon(_sym_profile_fn(self), delta)

    def dominates(self, other: TradeOff, *, rtol: float = 0.0, atol: float = 0.0) -> bool:
        r"""True when ``other`` :math:`\le` ``self`` pointwise on [0, 1] is *proved* (``self``
        is at least as private); ``False`` when it is false or cannot be proved numerically.

        A ``True`` is a certificate for the curves as defined: every rounding error is
        charged against it (:mod:`gdp.core.dominance`). It is proved by an exact rule of a
        family (``G_mu`` vs ``G_mu``, ``laplace`` vs ``laplace``, ``f_eps_delta`` vs
        ``f_eps_delta``, anything vs ``identity()``, :math:`f^S \ge f`, identical curves),
        at the vertices of a piecewise-linear ``self`` (``from_curve``,
        ``from_distributions``, numeric compositions), against the lines of a
        piecewise-linear ``other`` (:math:`\delta_{self}(t_j) \le \delta_j`), or, for two
        exactly symmetric closed forms (``laplace`` vs ``G_mu``), by their profiles on a
        refined grid. Anything else answers ``False``, as do curves that touch (equality
        cannot be proved across different formulas). A :class:`Bracketed` ``self`` is
        represented by its lower curve and a :class:`Bracketed` ``other`` by its upper one.

        Parameters
        ----------
        other : TradeOff
        rtol, atol : float
            Tolerances granted by the caller (default 0: a proof). With them a ``True`` only
            certifies :math:`1 - \mathrm{self} \le (1 + \mathrm{rtol})(1 - \mathrm{other})
            + \mathrm{atol}` at the check points (profiles alike), e.g. for curves that are
            equal up to rounding.
        """
        check_instance("other", other, TradeOff, "a TradeOff")
        rtol = check_real("rtol", rtol, lo=0.0)
        atol = check_real("atol", atol, lo=0.0, hi=1.0)
        tol = (rtol, atol)
        if isinstance(other, Bracketed):
            other = other.upper
        if isinstance(self, Bracketed):
            # a bracketed curve that is exactly symmetric (a symmetrised composition) is
            # compared by its sound profile for eps >= 0, which the masses its lower curve
            # puts at -inf (a flat zero tail before alpha = 1) do not touch
            if self._symmetric_exact() and other._symmetric_exact() and \
                    _profile_proof(self, other, tol):
                return True
            return _dominates(self.lower, other, tol)
        return _dominates(self, other, tol)

    # ---------------------------------------------------------- composition ops
    def __matmul__(self, other: Any) -> TradeOff:
        if not isinstance(other, TradeOff):
            return NotImplemented
        return _engine("compose")(self, other)

    def __pow__(self, n: Any) -> TradeOff:
        if isinstance(n, bool) or not isinstance(n, int | np.integer):
            return NotImplemented
        return self.self_compose(int(n))

    def self_compose(self, n: int) -> TradeOff:
        """The n-fold tensor power :math:`f^{\\otimes n}` (``f ** n``)."""
        n = check_count("n", n)
        return _engine("compose_power")(self, n)

    def __repr__(self) -> str:  # dataclasses override this
        return f"{type(self).__name__}()"


def _inv_label(name: str) -> str:
    """Label of the inverse: ``h`` -> ``{h}^{-1}`` -> ``h``."""
    if name.startswith("{") and name.endswith("}^{-1}"):
        return name[1: -len("}^{-1}")]
    if name.endswith("^{-1}"):
        return name[: -len("^{-1}")]
    return "{" + name + "}^{-1}"


class SidedProfile:
    """Mixin of the closed forms whose profile has a bound on both sides,
    ``_profile(eps, side)`` (``side = 1``: raised by its rounding bound, the profile itself
    and its upper bound; ``side = -1``: lowered); list it before :class:`TradeOff`."""

    __slots__ = ()

    def _hockey(self, eps):
        return self._profile(eps, 1.0)

    def _hockey_upper(self, eps):
        return self._profile(eps, 1.0)

    def _hockey_lower(self, eps):
        return self._profile(eps, -1.0)

    def delta_bounds(self, eps: Any) -> tuple[Any, Any]:
        """``(lower, upper)`` bounds on δ(ε) (ε ≥ 0): the closed form's profile lowered and
        raised by its rounding bound (these curves are symmetric); :meth:`delta` is the
        upper one. The same pair of methods as a numeric composition's."""
        e = as_real_array("eps", eps, lo=0.0, finite=False)
        hi = np.asarray(self.delta(e), dtype=float).reshape(-1)
        with np.errstate(all="ignore"):
            lo = np.asarray(self._profile(e.reshape(-1), -1.0), dtype=float)
        lo = np.minimum(np.clip(np.where(np.isnan(lo), 0.0, lo), 0.0, 1.0), hi)
        return float_or_array(lo, e.shape), float_or_array(hi, e.shape)

    def epsilon_bounds(self, delta: Any) -> tuple[Any, Any]:
        """``(lower, upper)`` bounds on ε(δ): :meth:`epsilon` (the upper one), and the
        lower end of a bisection on the lowered profile, an ε where that profile, hence
        the true one, is still above δ (:func:`~gdp.core.generic._generic_epsilon`)."""
        d = as_probability_array("delta", delta)
        hi = np.asarray(self.epsilon(d), dtype=float).reshape(-1)

        def lowered(e):
            with np.errstate(all="ignore"):
                v = np.asarray(self._profile(np.asarray(e, dtype=float), -1.0), dtype=float)
            return np.clip(np.where(np.isnan(v), 0.0, v), 0.0, 1.0)

        lo = _generic_epsilon(lowered, d.reshape(-1), lower=True)
        lo = np.minimum(np.maximum(lo, 0.0), hi)
        return float_or_array(lo, d.shape), float_or_array(hi, d.shape)


@dataclass(frozen=True, slots=True, eq=False)
class Inverse(TradeOff):
    r""":math:`f^{-1}(\alpha)=\inf\{t\in[0,1]: f(t)\le\alpha\}`, i.e. :math:`T(Q,P)`.

    Computed by bisection on :math:`f`, returning the lower end of the final bracket (a
    lower curve, hence safe). Its profile is a certified upper bound from the mirrored
    graph, :math:`\delta_{f^{-1}}(\varepsilon) = \sup_t[1 - t - e^{\varepsilon}f(t)]`,
    combined for :math:`\varepsilon \le 0` with the exact identity
    :math:`\delta_{f^{-1}}(\varepsilon) = e^{\varepsilon}\delta_f(-\varepsilon)+1-e^{\varepsilon}`
    (which amplifies errors by :math:`e^{\varepsilon}` and is not used for ε > 0).
    """

    base: TradeOff

    def __post_init__(self):
        check_instance("base", self.base, TradeOff, "a TradeOff")

    @property
    def label(self):
        return _inv_label(self.base.label)

    def _f(self, alpha):
        alpha = np.asarray(alpha, dtype=float)
        shape = alpha.shape
        alpha = alpha.reshape(-1)
        f0 = float(np.asarray(self.base._f(np.zeros(1)), dtype=float)[0])
        out = np.zeros_like(alpha)
        need = alpha < f0
        if need.any():
            target = alpha[need]
            lo, _ = bisect_bracket(
                lambda t: np.asarray(self.base._f(t), dtype=float) <= target,
                np.zeros(target.shape), np.ones(target.shape), rtol=0.0, xtol=1e-16)
            out[need] = lo
        return out.reshape(shape)

    def _inverse(self):
        return self.base

    def _hockey_lower(self, eps):
        """A lower bound on the profile from the base's values
        (:func:`~gdp.core.generic._numeric_hockey_inverse_lower`)."""
        return _numeric_hockey_inverse_lower(self.base, np.asarray(eps, dtype=float))

    def _hockey(self, eps):
        eps = np.asarray(eps, dtype=float).reshape(-1)
        out = _numeric_hockey_inverse(self.base, eps)
        neg = eps <= 0
        if neg.any():
            e = eps[neg]
            with np.errstate(all="ignore"):
                d = np.exp(e) * np.asarray(self.base._hockey(-e), dtype=float) - np.expm1(e)
            d = np.where(np.isfinite(d), d, 1.0)
            out[neg] = np.minimum(out[neg], d)
        return np.clip(out, 0.0, 1.0)

    def _loss_sf(self, t):
        # P' = Q, L' = -L:  P'[L' > t] = Q[L < -t] = 1 - Q[L >= -t]; Q[L >= s] is
        # Q[L > s'] at the float s' just below s (no atom can sit strictly between)
        t = np.asarray(t, dtype=float)
        below = np.nextafter(-t, -np.inf)
        return np.clip(1.0 - np.asarray(self.base._loss_sf_q(below), dtype=float), 0.0, 1.0)

    def _loss_sf_q(self, t):
        t = np.asarray(t, dtype=float)
        below = np.nextafter(-t, -np.inf)
        return np.clip(1.0 - np.asarray(self.base._loss_sf(below), dtype=float), 0.0, 1.0)

    def _atoms(self):
        at = self.base._atoms()
        if at is None:
            return None
        loss, p, q = at
        return -loss, q, p


@dataclass(frozen=True, slots=True, eq=False)
class Symmetrized(TradeOff):
    r""":math:`f^S = \max\{f, f^{-1}\}` (DRS Prop. 2.4); its profile is the convex-hull
    construction of :func:`_sym_profile_fn` (an upper bound)."""

    base: TradeOff
    _inv: TradeOff = field(init=False, repr=False, compare=False)
    is_symmetric = True

    def __post_init__(self):
        check_instance("base", self.base, TradeOff, "a TradeOff")
        object.__setattr__(self, "_inv", self.base.inverse())

    label_format = "{{{self.base.label}}}^{{S}}"

    def _dominates_exact(self, other):
        # max(f, f^-1) >= f and >= f^-1: proved by construction
        if other is self.base or other is self._inv or any(
                _same_curve(other, c) for c in (self.base, self._inv)):
            return True
        return None

    def _f(self, alpha):
        return np.maximum(self.base._f(alpha), self._inv._f(alpha))

    def _one_minus_f(self, alpha):
        return np.minimum(self.base._one_minus_f(alpha), self._inv._one_minus_f(alpha))

    def _hockey(self, eps):
        return _symmetrized_profile(self.base, np.asarray(eps, dtype=float))


class Derived(TradeOff):
    """A curve built from another, ``base``, and symmetric whenever ``base`` is."""

    __slots__ = ()

    @property
    def is_symmetric(self):  # type: ignore[override]
        return self.base.is_symmetric


@dataclass(frozen=True, slots=True, eq=False)
class Group(Derived):
    r"""Group privacy curve :math:`1-(1-f)^{\circ k}` (DRS Thm 2.14).

    Symmetric when ``base`` is: with :math:`u = 1-f` and :math:`R(x) = 1-x`, a symmetric
    :math:`f` has :math:`u^{-1} = R\circ u\circ R`, hence so does :math:`u^{\circ k}`.
    """

    base: TradeOff
    k: int

    def __post_init__(self):
        check_instance("base", self.base, TradeOff, "a TradeOff")
        object.__setattr__(self, "k", check_count(
            "k", self.k, hi=GROUP_MAX, why="a curve without a closed form for group privacy "
            "is iterated k times at every evaluation"))

    label_format = "{self.base.label}^{{[{self.k}]}}"

    def _one_minus_f(self, alpha):
        x = np.asarray(alpha, dtype=float)
        for _ in range(self.k):
            x = np.clip(np.asarray(self.base._one_minus_f(x), dtype=float), 0.0, 1.0)
        return x

    def _f(self, alpha):
        return 1.0 - self._one_minus_f(alpha)


class Delegating(TradeOff):
    """A curve that answers every question with another curve, :meth:`_target` (a
    bracket with its sound lower curve, an approximation with the curve that realises it)."""

    __slots__ = ()

    def _target(self) -> TradeOff:  # pragma: no cover - abstract
        raise NotImplementedError

    def _f(self, alpha):
        return self._target()._f(alpha)

    def _one_minus_f(self, alpha):
        return self._target()._one_minus_f(alpha)

    def _hockey(self, eps):
        return self._target()._hockey(eps)

    def _loss_sf(self, t):
        return self._target()._loss_sf(t)

    def _loss_sf_q(self, t):
        return self._target()._loss_sf_q(t)

    def _atoms(self):
        return self._target()._atoms()

    def _pl_data(self):
        return self._target()._pl_data()

    def _omf_lower(self, alpha):
        return self._target()._omf_lower(alpha)

    def _lines(self):
        return self._target()._lines()

    def _hockey_upper(self, eps):
        return self._target()._hockey_upper(eps)

    def _hockey_lower(self, eps):
        return self._target()._hockey_lower(eps)


@dataclass(frozen=True, slots=True, eq=False)
class Bracketed(Delegating):
    r"""A numeric trade-off function known up to a two-sided bracket.

    ``lower`` is a rigorous lower bound on the true curve (the sound side, used by
    every question: ``f(alpha)``, ``delta``, ``epsilon``), ``upper`` an upper bound;
    :meth:`gap` measures their distance.
    """

    lower: TradeOff
    upper: TradeOff
    name: str = "f"

    def __post_init__(self):
        check_instance("lower", self.lower, TradeOff, "a TradeOff")
        check_instance("upper", self.upper, TradeOff, "a TradeOff")
        check_str("name", self.name)

    @property
    def is_symmetric(self):  # type: ignore[override]
        return self.lower.is_symmetric and self.upper.is_symmetric

    def __repr__(self):
        return f"Bracketed(name={self.name!r}, lower={self.lower!r}, upper={self.upper!r})"

    def _target(self) -> TradeOff:
        return self.lower

    def _hockey_upper(self, eps):
        return self._hockey(eps)  # the sound side's profile, an upper bound by contract

    def _hockey_lower(self, eps):
        # (the true curve lies below the upper one: its profile above the upper one's, so a
        # lower bound of that is one of the truth's; the lower curve's would not be)
        return self.upper._hockey_lower(eps)

    def _inverse(self):
        return Bracketed(lower=self.lower.inverse(), upper=self.upper.inverse(),
                         name=_inv_label(self.name))

    def gap(self, alpha: Any) -> Any:
        """``upper(alpha) - lower(alpha)``: how far the sound answer may be from the truth."""
        return np.asarray(self.upper(alpha)) - np.asarray(self.lower(alpha))

    def delta_bounds(self, eps: Any) -> tuple[Any, Any]:
        """``(lower, upper)`` bounds on δ(ε); the default :meth:`delta` is the upper one."""
        return self.upper.delta(eps), self.lower.delta(eps)

    def epsilon_bounds(self, delta: Any) -> tuple[Any, Any]:
        """``(lower, upper)`` bounds on ε(δ); the default :meth:`epsilon` is the upper one."""
        return self.upper.epsilon(delta), self.lower.epsilon(delta)
