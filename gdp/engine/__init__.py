r"""Privacy-loss distributions on a lattice: the sound numeric engine behind ``f @ g``.

Theory of operation
-------------------
**Laws.** A trade-off function :math:`f = T(P, Q)` is fixed by the law of the privacy loss
:math:`L = \log dQ/dP` (MATH.md §1). This module works with the *Q-law* of :math:`L`:
for every real :math:`\varepsilon` (the one-order hockey-stick profile)

.. math:: \delta_f(\varepsilon) = E_Q\big[(1 - e^{\varepsilon - L})_+\big]
          = \sum_k q_k\,(1 - e^{\varepsilon - t_k})_+ + Q[L = +\infty],

and the P-masses of finite atoms follow from :math:`p_k = q_k e^{-t_k}`. The integrand is
in :math:`[0, 1]` and increasing in :math:`L`, so moving Q-mass to larger losses (or to
:math:`+\infty`) can only increase :math:`\delta`. Composition adds independent losses:
the Q-law of :math:`f \otimes g` is the convolution of the two Q-laws (Q is a product
measure), with :math:`Q[L=\infty]` combining as :math:`1-(1-a)(1-b)`.

**Pessimistic discretisation (the sound side).** Each factor is put on the lattice
:math:`t_k = k h` by *connect-the-dots* (Doroshenko, Ghazi, Kamath, Kumar, Manurangsi,
PETS 2022): the exact P- and Q-masses of every cell :math:`(t_i, t_{i+1}]` (whose
likelihood ratio lies in :math:`[e^{t_i}, e^{t_{i+1}}]`) are split between the two end
points, preserving both masses. Every outcome of the cell is a mixture of the two end
atoms, so the true pair is a garbling of the split pair: the lattice pair is *more*
informative (Blackwell), its curve is a rigorous lower bound, and the split has no
first-order bias (plain rounding up shifts each loss by about :math:`h/2`, and
:math:`10^4` compositions multiply that). The profile of the split law equals the true
profile at lattice points and interpolates linearly in :math:`e^\varepsilon` between
them. Truncated tails are spreads too: the upper tail :math:`(p, q)` becomes
:math:`(0, q)` at :math:`+\infty` and :math:`(p, 0)` at :math:`-\infty`; the lower tail
puts its Q-mass on the lowest lattice point and the rest of its P-mass at
:math:`-\infty`. No mass is dropped. Atoms (randomized response, Laplace, exact curves)
are split individually with ``expm1`` weights. A factor known only through its
``_hockey`` hook (a certified upper bound on the profile) is discretised by the envelope
of its supporting lines :math:`1 - \hat\delta(t_k) - e^{t_k}\alpha`, each of which lies
below the curve.

**Optimistic discretisation (the other side).** A garbling (post-processing) can only
raise a curve. The losses in :math:`(t_k - h/2, t_k + h/2]` are merged into one atom,
whose ratio misses :math:`e^{t_k}` only at second order. The imbalance is then removed
by merging a sliver of a neighbouring atom (one with a larger ratio for a deficit, a
smaller one for an excess; lending leaves the lender's ratio unchanged): the slivers
solve a weakly coupled linear system, solved by fixed-point iteration and verified
afterwards. Where no suitable neighbour exists (ends of the support, steep rises such
as the floor :math:`\log(1-p)` of a subsampled loss) an atom is carried whole into a
neighbour, as reverse connect-the-dots would do, or its excess Q-mass is dropped; of
these strategies the one keeping the most Q-mass is used. Atoms sitting on lattice
points stay exact and serve as lenders. The lower tail goes to :math:`-\infty` (its
Q-mass dropped), the upper tail joins the top atom. Every step is a garbling or a
removal of Q-mass, so :math:`\delta` can only decrease. Atoms off the lattice make the
garbling first order in :math:`h`, so the optimistic side uses a 4 times finer lattice
when a factor has atoms; a factor's lattice is shifted so that its heaviest atom sits on
a lattice point (compositions of shifted lattices are shifted lattices), and for a
single atomic factor the step makes the spacing of its two heaviest atoms a multiple of
:math:`h`.

**Composition.** Equal factors are grouped into powers. Distinct single factors are
first combined by linear convolutions; the rest is multiplied in the Fourier domain
(one ``rfft`` per group, :math:`Z^n` for an :math:`n`-fold power, one ``irfft``) on a
circular lattice window :math:`[A, B]` of :math:`N` points. A long power on the sound side
may be composed in two levels: blocks of :math:`m` factors on a finer step, each split
once more by connect-the-dots onto a step :math:`\sqrt m` times coarser, then the blocks
(:mod:`gdp.engine.coarsening`). Aliased (wrapped) mass is
non-negative, so on the window the circular result is at least the true pmf; the mass
outside the window is bounded with Chernoff, :math:`Q[S > B] \le \inf_\lambda
\prod_i M_i(\lambda)^{n_i} e^{-\lambda B}`, from the exact moment generating functions of
the discretised factors, and charged: the upper tail to :math:`+\infty`, the lower tail
to the lowest window point (the profile integrand is increasing). The window comes from
the same bounds at the requested tail mass, the step :math:`h` from the requested
relative accuracy: connect-the-dots adds at most :math:`h^2/4` to the variance of each
factor's loss, so :math:`h = \sqrt{8\,\mathrm{rtol}\,V/K}` keeps the relative
variance error of the composed loss (variance :math:`V`, :math:`K` factors) near
:math:`2\,\mathrm{rtol}`. The same moment generating functions give a second sound
profile, :math:`\delta(\varepsilon) \le Q[S=\infty] + \inf_\lambda
M(\lambda)e^{-\lambda\varepsilon}\lambda^\lambda/(1+\lambda)^{1+\lambda}` (from
:math:`(1-e^{-u})_+ \le e^{\lambda u}\lambda^\lambda/(1+\lambda)^{1+\lambda}`): without
a frame, it tells where the other neighbouring order cannot set the answer.

**Tilted frames.** An answer is read off a *frame*: the composition of the factors'
lattice laws each multiplied by :math:`e^{\lambda t}` and normalised
(:mod:`gdp.engine.fourier`), the tilt λ and the step chosen for the question
(:mod:`gdp.engine.numeric`: about the tilt minimising the moment bound at the δ asked).
Tilting commutes with convolution, so every round-off allowance is relative to the tilted
mass near the ε asked, not to the whole: δ far below the additive floor of an untilted
transform (about 1e-12) is answered as tightly as ordinary δ (down to about where, see
:class:`Accuracy`). The profile of a frame on either side is :mod:`gdp.engine.frames`'s;
a power of rarely sampled steps at tiny δ is split by its number of large losses
(:mod:`gdp.engine.jumps`).

**Floating point.** Three kinds of allowance are tracked and charged to the sound side
(subtracted on the other). (i) Relative Q-mass errors of the factors (cell masses are
differences of tail probabilities taken on the short side): masses are non-negative,
so relative errors stay relative through convolution, at most :math:`(1+\eta)^n - 1`
after :math:`n` factors; they multiply δ. (ii) Errors that change a cell's P-mass at
fixed Q-mass (the excess :math:`Q - e^{t}P` that positions a split, the rounding of the
lattice points :math:`kh`) move its implied loss: they are charged as a shift of all
losses by their sum. (iii) Fourier round-off is additive: the forward transform errs by
at most :math:`\gamma = 8\epsilon_{\rm mach}(\log_2 N + 4)` per coefficient
(relative to the mass) or :math:`\gamma\|Z\|_2` in norm, :math:`Z^n` (computed as
:math:`e^{n\log Z}` where it is not negligible) amplifies that by
:math:`n(|Z|+\gamma)^{n-1}`, a spectrum error :math:`\Delta Y` changes the masses by at
most :math:`\|\Delta Y\|_2` in :math:`\ell_1` (Parseval), and the inverse transform adds
at most :math:`\min(\gamma\sum_m|Y_m|, \gamma\sqrt N\|c\|_2)` (after Higham, *Accuracy
and Stability of Numerical Algorithms*, §24.1; a documented allowance, not a
machine-checked proof); the additive
allowance goes to the top of the window. Negative round-off entries are clipped (clipping
never moves a value away from the truth). Losses beyond ~745, where P-masses underflow,
are handled through :math:`\log\alpha` at the vertices.

**Results.** :class:`LossCurve` is an exact piecewise-linear curve stored with its
privacy-loss atoms (vertex :math:`\alpha_j = P[L > t_j]`, :math:`1-\beta_j =
Q[L > t_j]`), with :math:`O(\log N)` profile evaluation and exact inversion
:math:`\varepsilon(\delta)` piece by piece. :class:`Composition` brackets a numeric
composition between two LossCurves; its ``delta``/``epsilon`` are the sound side
(upper bounds) and ``delta_bounds``/``epsilon_bounds`` show both sides.

References
----------
Doroshenko, Ghazi, Kamath, Kumar, Manurangsi, "Connect the Dots: Tighter Discrete
Approximations of Privacy Loss Distributions", PETS 2022. Koskela, Jälkö, Honkela,
"Computing Tight Differential Privacy Guarantees Using FFT", AISTATS 2020. Gopi, Lee,
Wutschitz, "Numerical Composition of Differential Privacy", NeurIPS 2021. Dong, Roth, Su,
"Gaussian Differential Privacy", JRSS-B 2022 (Prop. 2.12, Thm 3.2). Higham, "Accuracy and
Stability of Numerical Algorithms", 2nd ed., SIAM 2002, §24.1.
"""

from __future__ import annotations

from . import (
    curves,
    dispatch,
    kov,
    laws,
    numeric,
    randomized_response,
    result,
    settings,
    with_delta,
)
from .curves import *
from .dispatch import *
from .kov import *
from .laws import *
from .numeric import *
from .randomized_response import *
from .result import *
from .settings import *
from .with_delta import *

__all__ = [
    *curves.__all__,
    *dispatch.__all__,
    *kov.__all__,
    *laws.__all__,
    *numeric.__all__,
    *randomized_response.__all__,
    *result.__all__,
    *settings.__all__,
    *with_delta.__all__,
]
