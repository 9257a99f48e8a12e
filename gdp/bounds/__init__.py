r"""Classical composition bounds, the optimal KOV composition and Rényi DP, side by side.

Theory of operation
-------------------
A k-fold composition of (ε, δ)-DP mechanisms has, in f-DP terms, the exact answer
:math:`f_{\varepsilon_1,\delta_1}\otimes\cdots\otimes f_{\varepsilon_k,\delta_k}` (DRS
Thm 3.2); the closed-form theorems below are the bounds a paper usually quotes instead, and
this module computes them so they can be put next to the exact tensor product:

* **basic**: :math:`(\sum\varepsilon_i, \sum\delta_i)`;
* **advanced** (Dwork–Rothblum–Vadhan 2010): :math:`\varepsilon' =
  \sqrt{2\ln(1/\delta')\sum\varepsilon_i^2} + \sum\varepsilon_i(e^{\varepsilon_i}-1)`,
  :math:`\delta = \sum\delta_i + \delta'` (the k-fold homogeneous form is
  :math:`\varepsilon\sqrt{2k\ln(1/\delta')} + k\varepsilon(e^\varepsilon-1)`);
* **Kairouz–Oh–Viswanath closed form** (KOV Thm 3.4/3.5): the minimum of
  :math:`\sum\varepsilon_i` and of :math:`\sum\varepsilon_i\tanh(\varepsilon_i/2) +
  \sqrt{2\sum\varepsilon_i^2\,\ln(\cdot)}` with :math:`\ln(1/\tilde\delta)` or
  :math:`\ln(e+\sqrt{\sum\varepsilon_i^2}/\tilde\delta)`, at
  :math:`\delta = 1-(1-\tilde\delta)\prod(1-\delta_i)`;
* **optimal KOV** (KOV Thm 3.3): for homogeneous :math:`(\varepsilon_0,\delta_0)` the exact
  privacy profile of :math:`f_{\varepsilon_0,\delta_0}^{\otimes k} =
  f_{\varepsilon_0,0}^{\otimes k} \otimes f_{0,1-(1-\delta_0)^k}`, from the binomial law of
  the privacy loss of randomized response (:func:`kov_delta`, :func:`kov_epsilon`);
* **Rényi DP** (Mironov 2017; Mironov–Talwar–Zhang 2019): closed forms per mechanism,
  addition under composition, conversion to (ε, δ) minimised over a set of orders, and the
  optimal conversion of RDP / zCDP to a whole trade-off curve (:func:`from_rdp`,
  :func:`from_zcdp`; Balle et al. 2020, Zhu–Dong–Wang 2022).

:func:`compare` puts all of them, the GDP central limit theorem (an approximation) and the
exact tensor product (:func:`gdp.compose`, :func:`gdp.dpsgd`; sound, with its numeric bracket)
in one table; :func:`epsilon_vs_k` gives the same numbers along a list of k for plots.

Every function returns a sound value (an ε or δ never below what its theorem states); the
optimal KOV profile, computed in floating point, is rounded up by a relative margin that
covers its rounding error.

References
----------
DRV: C. Dwork, G. N. Rothblum, S. Vadhan, "Boosting and Differential Privacy", FOCS 2010,
Thm III.3 (Dwork–Roth, "The Algorithmic Foundations of DP", Thm 3.20).
KOV: P. Kairouz, S. Oh, P. Viswanath, "The Composition Theorem for Differential Privacy",
ICML 2015, Thm 3.3 (optimal), Thm 3.4 (homogeneous closed form), Thm 3.5 (heterogeneous).
I. Mironov, "Rényi Differential Privacy", CSF 2017, Prop. 1, 3, 5, 6 and Table II.
I. Mironov, K. Talwar, L. Zhang, "Rényi Differential Privacy of the Sampled Gaussian
Mechanism", arXiv:1908.10530, 2019, Sec. 3.3.
C. Canonne, G. Kamath, T. Steinke, "The Discrete Gaussian for Differential Privacy",
NeurIPS 2020, Prop. 12; B. Balle, G. Barthe, M. Gaboardi, J. Hsu, T. Sato, "Hypothesis
Testing Interpretations and Rényi DP", AISTATS 2020, Thm 21 (the sharper conversion).
DRS: J. Dong, A. Roth, W. J. Su, "Gaussian Differential Privacy", JRSS-B 2022, Thm 3.4.
"""

from __future__ import annotations

from ..engine.kov import kov_delta, kov_epsilon
from . import classical, comparison, rdp, rdp_curve, tables
from .classical import *
from .comparison import *
from .rdp import *
from .rdp_curve import *
from .tables import *

__all__ = [
    *classical.__all__,
    *comparison.__all__,
    *rdp.__all__,
    *rdp_curve.__all__,
    *tables.__all__,
    "kov_delta",
    "kov_epsilon",
]
