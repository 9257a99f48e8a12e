r"""The mechanisms of the notes, with their exact f-DP guarantees and accuracy bounds.

Theory of operation
-------------------
A mechanism is a frozen value object built with keyword arguments (so ε and δ can never
be swapped silently). Calling it releases a noisy answer::

    mech = Laplace(sensitivity=1.0, eps=0.5)
    y = mech(true_answer, rng=np.random.default_rng(2024))

``rng`` must be a :class:`numpy.random.Generator` (reproducible: the same seed gives the
same release) or ``None``, which draws a fresh ``numpy.random.default_rng()`` seeded from
the operating system. Integer seeds are refused on purpose: passing ``rng=0`` to every
call would reuse the same noise, which destroys privacy.

Every mechanism has ``mech.tradeoff``, its f-DP guarantee as a :class:`~gdp.TradeOff`
(the curve below which :math:`T(M(D), M(D'))` never falls, for all neighbours):

* :class:`Gaussian`: :math:`G_{\Delta_2/\sigma}` (exact; DRS Thm 2.7);
* :class:`Laplace`: ``laplace(Δ₁/b)`` (exact; MATH.md §3);
* :class:`RandomizedResponse`: :math:`T(P, Q)` of the two output pmfs (exact);
* :class:`Exponential`, :class:`ReportNoisyMax`: :math:`f_{\varepsilon,0}` (sound; tighter
  analyses exist);
* :class:`DiscreteGaussian`: :math:`T(N_{\mathbb Z}(0,\sigma^2), N_{\mathbb Z}(\Delta,
  \sigma^2))` (exact to float rounding, truncated tails charged soundly);
* :class:`DiscreteLaplace`: :math:`T(\mathrm{Lap}_{\mathbb Z}(0,t),
  \mathrm{Lap}_{\mathbb Z}(\Delta,t))` (exact).

Noise scales are rounded *up* (``σ = Δ/μ`` is the smallest float not below the real
quotient), so the stated curve is never above the one the floats achieve.

.. warning::
   Floating-point noise leaks. :class:`Gaussian`, :class:`Laplace` and the noisy-max
   mechanisms draw IEEE doubles; the set of doubles reachable as ``x + noise`` depends on
   ``x``, and Mironov (2012) showed that the low-order bits of such releases can reveal
   the true answer exactly. Their ``tradeoff`` is a statement about the ideal real-valued
   mechanism. For integer-valued queries use :class:`DiscreteGaussian` or
   :class:`DiscreteLaplace`, which sample exactly with rational arithmetic
   (Canonne–Kamath–Steinke 2020, Algorithms 1–3) from random bits drawn from the
   Generator; the only remaining channel is timing.

References
----------
DRS: Dong, Roth, Su, "Gaussian Differential Privacy", JRSS-B 2022, Thm 2.7.
Dwork, Roth, "The Algorithmic Foundations of Differential Privacy", 2014: Thm 3.6, 3.8,
Claim 3.9, Thm 3.10–3.11. Canonne, Kamath, Steinke, "The Discrete Gaussian for
Differential Privacy", NeurIPS 2020, Algorithms 1–3, Thm 7. Mironov, "On Significance of
the Least Significant Bits for Differential Privacy", CCS 2012. McSherry, Talwar,
"Mechanism Design via Differential Privacy", FOCS 2007. Durfee, Rogers, "Practical
Differentially Private Top-k Selection with Pay-what-you-get Composition", NeurIPS 2019.
Dong, Durfee, Rogers, "Optimal Differential Privacy Composition for Exponential
Mechanisms", ICML 2020.
"""

from __future__ import annotations

from . import (
    additive,
    auditing,
    base,
    discrete,
    one_run_audit,
    randomized_response,
    selection,
    sensitivity,
)
from .additive import *
from .auditing import *
from .base import *
from .discrete import *
from .one_run_audit import *
from .randomized_response import *
from .selection import *

__all__ = [
    *additive.__all__,
    *auditing.__all__,
    *base.__all__,
    *discrete.__all__,
    *one_run_audit.__all__,
    *randomized_response.__all__,
    *selection.__all__,
    "sensitivity",
]
