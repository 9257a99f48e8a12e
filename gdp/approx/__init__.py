r"""The central limit theorem for composition, and its Edgeworth refinement.

Theory of operation
-------------------
A trade-off function :math:`f = T(P,Q)` is fixed by the law of the privacy loss
:math:`L = \log dQ/dP` under :math:`P`; equivalently :math:`L = \log|f'(U)|` with
:math:`U` uniform on [0, 1] (Neyman–Pearson: the slope of :math:`f` at type I error
:math:`x` is :math:`-e^{t}` where :math:`P[L>t] = x`). The four functionals of DRS Sec. 3
are moments of that law:

.. math::
    \mathrm{kl}(f) = -\int_0^1 \log|f'(x)|\,dx = -E_P[L],\qquad
    \kappa_2(f) = \int_0^1 \log^2|f'(x)|\,dx = E_P[L^2],

    \kappa_3(f) = \int_0^1 |\log|f'(x)||^3\,dx = E_P|L|^3,\qquad
    \bar\kappa_3(f) = \int_0^1 |\log|f'(x)| + \mathrm{kl}(f)|^3\,dx = E_P|L - E_P L|^3.

Composition adds independent privacy losses, so for symmetric :math:`f_1,\dots,f_n` the
standardised total loss is close to normal and (DRS Thm 3.4, Berry–Esseen)

.. math::
    G_\mu(\alpha+\gamma)-\gamma \le f_1\otimes\cdots\otimes f_n(\alpha)
    \le G_\mu(\alpha-\gamma)+\gamma,\quad
    \mu = \frac{2\|\mathrm{kl}\|_1}{\sqrt{\|\kappa_2\|_1-\|\mathrm{kl}\|_2^2}},\quad
    \gamma = \frac{0.56\,\|\bar\kappa_3\|_1}{(\|\kappa_2\|_1-\|\mathrm{kl}\|_2^2)^{3/2}}.

:func:`clt` returns :math:`G_\mu` (an **approximation**, not a bound: it can under-state
ε) together with the two Berry–Esseen curves made into valid trade-off functions on all
of [0, 1]. :func:`edgeworth` refines the normal approximation by the Edgeworth expansion
of the law of the total loss under :math:`P` and under :math:`Q` (ZDLS), again an
approximation.

Where the functionals come from ("formula first, numerics second"): a closed form for
:math:`G_\mu`, :math:`f_{\varepsilon,0}`, the Laplace curve and the identity, and for
the subsampled curve :math:`C_p(f)` of a symmetric f its exact decomposition into the laws
of :math:`f_p` and :math:`f_p^{-1}` (there is no closed form for the subsampled Gaussian;
its one-sided law is integrated by quadrature); this is a ``functools.singledispatch``
registry in this module. Otherwise the exact atoms of a
piecewise-linear curve (``_atoms``); otherwise the survival function ``_loss_sf`` of the
loss law, integrated by adaptive quadrature on its support; otherwise quadrature of
:math:`\log|f'(x)|` on the curve itself (a five-point derivative), which handles the
endpoint singularities and kinks but is only as accurate as the curve.

A functional is infinite when :math:`f' = 0` on a set of positive measure (the loss has
P-mass at :math:`-\infty`, e.g. :math:`f_{\varepsilon,\delta}` with δ > 0): then a
``ValueError`` says so rather than returning ``inf`` silently.

References
----------
DRS: J. Dong, A. Roth, W. J. Su, "Gaussian Differential Privacy", JRSS-B 84(1), 2022,
Sec. 3.2–3.3 (Thm 3.4, Thm 3.5, Cor. 3.6).
BDLS: Z. Bu, J. Dong, Q. Long, W. J. Su, "Deep Learning with Gaussian Differential
Privacy", Harvard Data Science Review 2(3), 2020 (arXiv 1911.11607).
ZDLS: Q. Zheng, J. Dong, Q. Long, W. J. Su, "Sharp Composition Bounds for Gaussian
Differential Privacy via Edgeworth Expansion", ICML 2020 (arXiv 2003.04493).
I. Shevtsova, "An improvement of convergence rate estimates in the Lyapunov theorem",
Doklady Math. 82, 2010 (the Berry–Esseen constant 0.56 for non-identical summands).
"""

from __future__ import annotations

from . import central_limit, edgeworth_series, limits, loss_moments
from .central_limit import *
from .edgeworth_series import *
from .limits import *
from .loss_moments import *

__all__ = [
    *central_limit.__all__,
    *edgeworth_series.__all__,
    *loss_moments.__all__,
    *limits.__all__,
]
