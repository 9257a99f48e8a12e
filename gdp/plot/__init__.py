r"""Plots of trade-off functions, privacy profiles and composition comparisons.

Theory of operation
-------------------
A trade-off function :math:`f = T(P, Q)` lives in the unit square: the type I error
:math:`\alpha` of a test on the horizontal axis, the smallest type II error
:math:`\beta = f(\alpha)` on the vertical one, below the diagonal :math:`\beta = 1 - \alpha`
of the useless test (perfect privacy, :math:`\mathrm{Id}`). Higher curves are more private
(DRS Sec. 2). Every function here

* draws each curve with its own colour, dash pattern and hollow marker
  (:data:`CYCLE`: readable in grayscale and by colour-blind readers, and two curves
  that coincide both stay visible); :func:`style` sets sizes and fonts for a paper
  column, the text width or slides, and TrueType (Type 42) fonts in PDFs;
* takes ``ax=None`` (a new square figure is made when none is given), returns the
  :class:`~matplotlib.axes.Axes` and never calls ``plt.show()``;
* names the curves by the objects' own LaTeX-safe :attr:`~gdp.TradeOff.label`, rendered
  with mathtext (``$G_{1}$``; no ``usetex`` needed);
* draws the *sound* side of a numeric result (the rigorous lower bound on the curve, the
  upper bound on :math:`\delta(\varepsilon)`) as the line and, when the object has
  ``lower`` and ``upper`` brackets, the bracket as a band;
* can hand back the plotted numbers (``return_data=True``, or :func:`curve_data` /
  :func:`profile_data` directly) as a :class:`PlotData` with a :meth:`PlotData.to_csv`
  method, so the figure can be re-drawn with any other tool.

Matplotlib is imported by this module only; ``import gdp`` does not load it.

References
----------
DRS: J. Dong, A. Roth, W. J. Su, "Gaussian Differential Privacy", JRSS-B 84(1), 2022
(Fig. 1-6 show the same kinds of picture).
"""

from __future__ import annotations

from . import audit, base, comparison, curves, roc_plot, styles
from .audit import *
from .base import *
from .comparison import *
from .curves import *
from .roc_plot import *
from .styles import *

__all__ = [*audit.__all__, *base.__all__, *comparison.__all__, *curves.__all__,
           *roc_plot.__all__, *styles.__all__]
