r"""Sensitivities of the queries the notes use, and the smooth sensitivity of the median.

Theory of operation
-------------------
The *global sensitivity* of a query :math:`q` in the norm :math:`\|\cdot\|_p` is
:math:`\Delta_p q = \max_{D \sim D'} \|q(D) - q(D')\|_p` over neighbouring datasets
(seed 003; Dwork–Roth Def. 3.1). It depends on the **neighbouring relation**, and every
function here names the one it assumes:

``"add_remove"``
    :math:`D'` is :math:`D` with one record added or removed (unbounded DP; Dwork–Roth's
    histogram distance :math:`\|x-y\|_1 = 1`).
``"replace"``
    :math:`D'` is :math:`D` with one record replaced (bounded DP; datasets of equal size).
    A replacement is a removal followed by an addition, so sensitivities at most double.

Noise is calibrated to the norm the mechanism needs: the Laplace mechanism to
:math:`\Delta_1` (Dwork–Roth Thm 3.6), the Gaussian mechanism to :math:`\Delta_2` (DRS
Thm 2.7). In dimension :math:`d`,
:math:`\|v\|_q \le d^{\max(0,\, 1/q - 1/p)}\,\|v\|_p` (:func:`norm_bound`), so
:math:`\Delta_2 \le \Delta_1 \le \sqrt d\,\Delta_2`.

*Local sensitivity* :math:`LS_q(x) = \max_{y \sim x}\|q(x)-q(y)\|` depends on the data, so
noise scaled to it leaks. A :math:`\beta`-*smooth upper bound* :math:`S` satisfies
:math:`S(x) \ge LS_q(x)` and :math:`S(x) \le e^{\beta} S(y)` for neighbours; the smallest
one is the *smooth sensitivity* (Nissim–Raskhodnikova–Smith 2007, Def. 2.2, Lemma 3.1)

.. math:: S^*_{q,\beta}(x) = \max_{k \ge 0} e^{-k\beta} A^{(k)}(x),\qquad
          A^{(k)}(x) = \max_{y:\ d(x,y)\le k} LS_q(y),

with :math:`d` the Hamming distance (the ``"replace"`` relation). For the median of data in
:math:`[\Lambda_0, \Lambda_1]` it has a closed form (NRS Prop. 3.4), implemented in
:func:`median_smooth`.

References
----------
Dwork, Roth, "The Algorithmic Foundations of Differential Privacy", 2014, Def. 3.1,
Examples 3.1–3.2, Thm 3.6. Nissim, Raskhodnikova, Smith, "Smooth Sensitivity and
Sampling in Private Data Analysis", STOC 2007, Def. 2.2, Lemma 2.6, Prop. 3.4.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._validation import as_real_array, check_count, check_real, shown

__all__ = [
    "count", "counts", "histogram", "clipped_sum", "clipped_mean", "clipped_vector_sum", "vector",
    "norm_bound", "median_at_distance", "median_local", "median_smooth", "NEIGHBOURING",
]

#: The neighbouring relations understood by this module.
NEIGHBOURING = ("add_remove", "replace")


def _relation(neighbouring: Any) -> str:
    if not isinstance(neighbouring, str) or neighbouring not in NEIGHBOURING:
        raise ValueError("`neighbouring` must be 'add_remove' or 'replace'; got "
                         f"neighbouring={neighbouring!r:.60}")
    return neighbouring


def _norm(norm: Any, name: str = "norm") -> float:
    if isinstance(norm, bool) or not isinstance(norm, int | float | np.integer | np.floating):
        raise TypeError(f"`{name}` must be 1, 2 or inf (a p >= 1); got {name}={shown(norm)}")
    try:
        p = float(norm)
    except OverflowError:
        raise ValueError(f"`{name}` must be a number p >= 1 (or inf); got {name}="
                         f"{shown(norm)} (too large for a floating-point number)") from None
    if not (p >= 1.0):
        raise ValueError(f"`{name}` must be a number p >= 1 (or inf); got {name}={norm!r}")
    return p


def count(*, neighbouring: str = "add_remove") -> float:
    r"""Sensitivity of a counting query ("how many records satisfy P?"): 1.

    Under ``"add_remove"`` one record changes the count by at most 1; under
    ``"replace"`` too (the old record may stop counting and the new one start, but not
    both in the same direction). Dwork–Roth Example 3.1.

    Examples
    --------
    >>> from gdp import sensitivity
    >>> sensitivity.count(), sensitivity.count(neighbouring="replace")
    (1.0, 1.0)
    """
    _relation(neighbouring)
    return 1.0


def counts(k: int, *, norm: Any = 1) -> float:
    r"""Sensitivity of ``k`` arbitrary (possibly overlapping) counting queries.

    One record can change every count by one, so the difference vector is at most the
    all-ones vector: :math:`\Delta_p = k^{1/p}` (:math:`\Delta_1 = k`,
    :math:`\Delta_2 = \sqrt k`, :math:`\Delta_\infty = 1`), under either relation.
    Dwork–Roth Example 3.1 (":math:`m` counting queries have sensitivity :math:`m`").

    Examples
    --------
    >>> from gdp import sensitivity
    >>> sensitivity.counts(4), sensitivity.counts(4, norm=2)
    (4.0, 2.0)
    """
    k = check_count("k", k)
    p = _norm(norm)
    return 1.0 if math.isinf(p) else float(k ** (1.0 / p))


def histogram(*, neighbouring: str = "add_remove", norm: Any = 1) -> float:
    r"""Sensitivity of a histogram (counts of disjoint cells).

    Each record lies in one cell. ``"add_remove"``: one count moves by 1, so
    :math:`\Delta_p = 1` for every :math:`p` (Dwork–Roth Example 3.2). ``"replace"``: one
    count may drop by 1 and another rise by 1, so :math:`\Delta_p = 2^{1/p}`
    (:math:`\Delta_1 = 2`, :math:`\Delta_2 = \sqrt2`, :math:`\Delta_\infty = 1`).

    Examples
    --------
    >>> from gdp import sensitivity
    >>> sensitivity.histogram(), sensitivity.histogram(neighbouring="replace")
    (1.0, 2.0)
    """
    rel = _relation(neighbouring)
    p = _norm(norm)
    if rel == "add_remove" or math.isinf(p):
        return 1.0
    return float(2.0 ** (1.0 / p))


def _bounds(lower: Any, upper: Any) -> tuple[float, float]:
    lo = check_real("lower", lower)
    hi = check_real("upper", upper)
    if not hi > lo:
        raise ValueError(f"`upper` must be greater than `lower`; got lower={lo!r}, upper={hi!r}")
    return lo, hi


def clipped_sum(*, lower: float, upper: float, neighbouring: str = "add_remove") -> float:
    r"""Sensitivity of :math:`\sum_i \mathrm{clip}(x_i, [\ell, u])`.

    ``"add_remove"``: adding or removing one clipped value changes the sum by at most
    :math:`\max(|\ell|, |u|)`. ``"replace"``: by at most :math:`u - \ell`. Values must be
    clipped to ``[lower, upper]`` *before* summing; the bound says nothing otherwise.

    Examples
    --------
    >>> from gdp import sensitivity
    >>> sensitivity.clipped_sum(lower=0.0, upper=5.0)
    5.0
    >>> sensitivity.clipped_sum(lower=-1.0, upper=3.0, neighbouring="replace")
    4.0
    """
    rel = _relation(neighbouring)
    lo, hi = _bounds(lower, upper)
    if rel == "replace":
        return hi - lo
    return max(abs(lo), abs(hi))


def clipped_mean(*, lower: float, upper: float, n: int,
                 neighbouring: str = "replace") -> float:
    r"""Sensitivity of the mean of values clipped to ``[lower, upper]``.

    ``"replace"`` (size :math:`n` public and fixed): :math:`(u-\ell)/n`.
    ``"add_remove"``: if :math:`D` has :math:`m` records and :math:`D' = D \cup \{x\}`,
    the mean moves by :math:`|x - \bar D|/(m+1) \le (u-\ell)/(m+1)`; here ``n`` must be a
    public lower bound on the size of the smaller dataset, and the result is
    :math:`(u-\ell)/(n+1)`.

    Notes
    -----
    Under ``"add_remove"`` the size itself is private; releasing a noisy sum and a noisy
    count separately (and dividing) is usually better than relying on a size bound.

    Examples
    --------
    >>> from gdp import sensitivity
    >>> sensitivity.clipped_mean(lower=0.0, upper=1.0, n=100)
    0.01
    """
    rel = _relation(neighbouring)
    lo, hi = _bounds(lower, upper)
    n = check_count("n", n)
    return (hi - lo) / (n if rel == "replace" else n + 1)


def clipped_vector_sum(*, clip_norm: float, neighbouring: str = "add_remove") -> float:
    r"""Sensitivity, in the clipping norm, of :math:`\sum_i \mathrm{clip}_C(g_i)` where each
    vector is rescaled to norm at most :math:`C` (as in DP-SGD).

    ``"add_remove"``: :math:`C`. ``"replace"``: :math:`2C` (two vectors of norm
    :math:`\le C` differ by at most :math:`2C`). The norm is the one used for clipping
    (:math:`\ell_2` in DP-SGD, matching the Gaussian mechanism).

    Examples
    --------
    >>> from gdp import sensitivity
    >>> sensitivity.clipped_vector_sum(clip_norm=1.0, neighbouring="replace")
    2.0
    """
    rel = _relation(neighbouring)
    c = check_real("clip_norm", clip_norm, lo=0.0, lo_open=True)
    return 2.0 * c if rel == "replace" else c


def vector(bounds: Any, *, norm: Any = 1) -> float:
    r"""Sensitivity of a vector query when one record can change coordinate :math:`i` by up
    to :math:`c_i` (all coordinates at once): :math:`\Delta_p = \|c\|_p`.

    :math:`\Delta_1 = \sum_i c_i` calibrates Laplace noise, :math:`\Delta_2 =
    \sqrt{\sum_i c_i^2}` Gaussian noise. When the coordinates are disjoint (a record
    affects one of them, like a histogram) use :func:`histogram` instead: then
    :math:`\Delta_p = \max_i c_i`.

    Examples
    --------
    >>> from gdp import sensitivity
    >>> sensitivity.vector([3.0, 4.0]), sensitivity.vector([3.0, 4.0], norm=2)
    (7.0, 5.0)
    """
    c = as_real_array("bounds", bounds, lo=0.0).reshape(-1)
    if c.size == 0:
        raise ValueError("`bounds` must hold at least one entry; got an empty array")
    p = _norm(norm)
    return float(np.linalg.norm(c, ord=np.inf if math.isinf(p) else p))


def norm_bound(sensitivity: float, *, from_norm: Any, to_norm: Any, dim: int) -> float:
    r"""The :math:`\ell_q` sensitivity implied by an :math:`\ell_p` one in dimension ``dim``:
    :math:`\|v\|_q \le d^{\max(0,\,1/q-1/p)}\|v\|_p` (Hölder; tight).

    So :math:`\Delta_2 \le \Delta_1` and :math:`\Delta_1 \le \sqrt d\,\Delta_2`: Laplace
    noise calibrated from an :math:`\ell_2` bound must pay :math:`\sqrt d`.

    Examples
    --------
    >>> from gdp import sensitivity
    >>> sensitivity.norm_bound(1.0, from_norm=2, to_norm=1, dim=100)
    10.0
    >>> sensitivity.norm_bound(1.0, from_norm=1, to_norm=2, dim=100)
    1.0
    """
    s = check_real("sensitivity", sensitivity, lo=0.0)
    p = _norm(from_norm, "from_norm")
    q = _norm(to_norm, "to_norm")
    d = check_count("dim", dim)
    expo = max(0.0, 1.0 / q - 1.0 / p)
    return float(s * d**expo)


# ---------------------------------------------------------------------------
# median: local and smooth sensitivity (Nissim–Raskhodnikova–Smith 2007, Prop. 3.4)
# ---------------------------------------------------------------------------
def _sorted_data(x: Any, lower: Any, upper: Any) -> tuple[np.ndarray, float, float]:
    lo, hi = _bounds(lower, upper)
    arr = as_real_array("x", x).reshape(-1)
    if arr.size == 0:
        raise ValueError("`x` must hold at least one value; got an empty array")
    out = (arr < lo) | (arr > hi)
    if out.any():
        raise ValueError(f"`x` must lie in [lower, upper] = [{lo!r}, {hi!r}] (clip it first); "
                         f"got x={float(arr[out][0])!r} with `lower`={lo!r}, `upper`={hi!r}")
    return np.sort(arr), lo, hi


def _padded(xs: np.ndarray, lo: float, hi: float, pad: int) -> np.ndarray:
    """x_{1-pad}, ..., x_{n+pad} with x_i = lower for i < 1 and upper for i > n."""
    return np.concatenate([np.full(pad, lo), xs, np.full(pad, hi)])


def median_at_distance(x: Any, k: int, *, lower: float, upper: float) -> float:
    r""":math:`A^{(k)}(x) = \max_{y:\,d(x,y)\le k} LS_{\mathrm{med}}(y)` (NRS Prop. 3.4).

    With :math:`x_1\le\dots\le x_n` sorted, the median at rank :math:`m=\lceil n/2\rceil`
    (the lower median for even :math:`n`), :math:`x_i = \ell` for :math:`i<1` and
    :math:`x_i = u` for :math:`i>n`:

    .. math:: A^{(k)}(x) = \max_{0\le t\le k+1}\,(x_{m+t} - x_{m+t-k-1}).

    Examples
    --------
    >>> from gdp import sensitivity
    >>> x = [1.0, 2.0, 4.0, 7.0, 8.0]
    >>> [sensitivity.median_at_distance(x, k, lower=0.0, upper=10.0) for k in range(4)]
    [3.0, 5.0, 6.0, 8.0]
    """
    xs, lo, hi = _sorted_data(x, lower, upper)
    k = check_count("k", k, lo=0)
    return float(_a_k(xs, lo, hi, np.array([k]))[0])


def _a_k(xs: np.ndarray, lo: float, hi: float, ks: np.ndarray) -> np.ndarray:
    n = xs.size
    m = (n + 1) // 2  # 1-based rank of the (lower) median
    out = np.empty(ks.size)
    for j, k in enumerate(ks.tolist()):
        if k >= n:
            out[j] = hi - lo
            continue
        pad = k + 2
        xp = _padded(xs, lo, hi, pad)
        # 1-based index i lives at position i - 1 + pad
        t = np.arange(k + 2)
        top = xp[m + t - 1 + pad]
        bottom = xp[m + t - k - 2 + pad]
        out[j] = np.max(top - bottom)
    return out


def median_local(x: Any, *, lower: float, upper: float) -> float:
    r"""Local sensitivity of the median under ``"replace"``:
    :math:`LS(x) = \max(x_m - x_{m-1},\ x_{m+1} - x_m)` (:math:`A^{(0)}`), with
    :math:`x_0 = \ell`, :math:`x_{n+1} = u`.

    Examples
    --------
    >>> from gdp import sensitivity
    >>> sensitivity.median_local([1.0, 2.0, 4.0, 7.0, 8.0], lower=0.0, upper=10.0)
    3.0
    """
    return median_at_distance(x, 0, lower=lower, upper=upper)


def median_smooth(x: Any, *, beta: float, lower: float, upper: float) -> float:
    r"""The :math:`\beta`-smooth sensitivity of the median (NRS 2007, Prop. 3.4):

    .. math:: S^*_{\mathrm{med},\beta}(x) = \max_{k=0,\dots,n} e^{-k\beta}
              \max_{0\le t\le k+1}(x_{m+t} - x_{m+t-k-1}),

    for data in ``[lower, upper]`` under the ``"replace"`` relation (Hamming distance),
    :math:`m = \lceil n/2\rceil` (the lower median for even :math:`n`).

    Parameters
    ----------
    x : array_like
        The data (1-D, non-empty, inside ``[lower, upper]`` — clip first).
    beta : float
        Smoothing parameter :math:`\beta > 0`.
    lower, upper : float
        The public data range :math:`[\ell, u]`.

    Notes
    -----
    It is the smallest :math:`\beta`-smooth upper bound on the local sensitivity: it is
    at least :func:`median_local` and changes by a factor at most :math:`e^\beta` between
    neighbours. Releasing :math:`\mathrm{med}(x) + \frac{2S^*(x)}{\varepsilon} Z` with
    :math:`Z \sim \mathrm{Lap}(1)` and :math:`\beta = \varepsilon/(2\ln(2/\delta))` is
    :math:`(\varepsilon,\delta)`-DP (NRS Lemma 2.6 with the Laplace admissible noise;
    the rule quoted in seed 003). Cost :math:`O(n^2)` in the worst case; the loop stops
    as soon as :math:`e^{-k\beta}(u-\ell)` cannot beat the running maximum.

    References
    ----------
    Nissim, Raskhodnikova, Smith, STOC 2007, Def. 2.2, Prop. 3.4, Lemma 2.6.

    Examples
    --------
    >>> from gdp import sensitivity
    >>> x = [1.0, 2.0, 4.0, 7.0, 8.0]
    >>> round(sensitivity.median_smooth(x, beta=0.5, lower=0.0, upper=10.0), 6)
    3.032653
    """
    xs, lo, hi = _sorted_data(x, lower, upper)
    b = check_real("beta", beta, lo=0.0, lo_open=True)
    n = xs.size
    best = 0.0
    for k in range(n + 1):
        weight = math.exp(-k * b)
        if weight * (hi - lo) <= best:
            break
        best = max(best, weight * float(_a_k(xs, lo, hi, np.array([k]))[0]))
    return best
