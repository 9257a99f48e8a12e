r"""Reference δ(ε) for rarely sampled DP-SGD (and heavily sampled at large ε) by
importance-sampled Monte Carlo.

The rare-event corner (tiny p, small T: most steps never sampled) is where Laplace inversion
(``make_laplace_reference.py``) refuses and where dp-accounting's two discretisations
disagree with each other. This script estimates δ(ε) of the T-fold Poisson-subsampled
Gaussian (noise multiplier σ, rate p, :math:`\mu = 1/\sigma`, add/remove neighbours)
without any discretisation, from the definition:

* first order (loss :math:`\sum_i \log r(x_i)`, :math:`r(x) = 1 - p + p e^{\mu x -
  \mu^2/2}`): :math:`\delta(\varepsilon) = E_{x \sim N(0,1)^T}[(\prod_i r(x_i) -
  e^\varepsilon)_+]`;
* second order (loss :math:`-\sum_i \log r(x_i)` under :math:`N(0,1)^T`): δ(ε) = 0 for
  :math:`\varepsilon \ge -T\log(1-p)`, since :math:`r \ge 1 - p`. The configurations are
  chosen with ε above that, so the first order is the whole profile (the script checks),
  or, below it, where the second order's δ by Laplace inversion
  (``make_laplace_reference.py``) lies five standard errors below the estimate (checked,
  and stored as ``other_order_delta``), or where that inversion refuses (its integrand
  does not decay: few steps sampled), a Chernoff-type upper bound on that δ does
  (``other_order_delta_bound``): the profile, the larger of the two orders' δ, is then
  the first order's.

The integrand vanishes unless some :math:`x_i` exceeds :math:`x^* = (\log((e^\varepsilon - 1
+ p)/p) + \mu^2/2)/\mu` (about 7 here: the event has probability 1e-12 and below), so plain
sampling sees nothing. The proposal is a defensive mixture: with probability 1/2 all
coordinates from N(0, 1), with probability 1/2 one coordinate, uniform among the T, from
:math:`N(m, 1)` with :math:`m = x^* + 0.2` and the others from N(0, 1); the weight is
:math:`1/(\tfrac12 + \tfrac1{2T}\sum_i e^{m x_i - m^2/2})`. Each configuration is run with a
fixed seed; the file stores the estimate and its standard error (the sample standard
deviation over :math:`\sqrt N`).

Where ε is the sum of many sampled steps' losses (``TILTED``: σ = 0.465, p = 0.625,
T = 1,273, ε about 1,693 at δ = 1e-5) one shifted coordinate sees nothing, and
dp-accounting's two discretisations both lie above the truth (optimistic 1694.163 and
pessimistic 1694.226 at 1e-4; the estimate puts the truth near 1693.25). There the
coordinates are independent, each from a density constant on the cells of a grid of
2,000,000 cells over [-12, 40] with cell masses proportional to :math:`\varphi(x)
r(x)^\lambda` at the cells' midpoints, λ such that the tilted mean of :math:`\sum_i \log
r(x_i)` is the first ε (the saddle point). The proposal's density is known exactly on each
cell, so the weights :math:`\prod_i \varphi(x_i)/g(x_i)` make the estimate unbiased for the
integral over :math:`[-12, 40]^T`; outside it the integrand carries less than :math:`T
e^{\mu^2/2}\bar\Phi(40 - \mu) + T\bar\Phi(12) < 10^{-28}` (below 1e-22 of the δ
estimated). Checked on p = 1 (the Gaussian :math:`G_{\mu\sqrt T}`, exact δ): at σ =
0.465, T = 1,273, ε = 3,260 and 3,280, 20,000 samples gave 1.3497e-5 ± 2e-7 and 4.0734e-6 ±
6.5e-8 against 1.3376e-5 and 4.0918e-6. The records say which proposal (``mixture`` or
``tilted``) each estimate used.

Writes ``rare_mc_reference.json`` next to this script (provenance in the file); used by
``tests/engine/test_rare_mc_oracle.py``. Run ``python
tests/engine/data/make_rare_mc_reference.py`` (about two hours on one core).
"""

from __future__ import annotations

import datetime
import json
import math
import platform
from pathlib import Path

import numpy as np

OUT = Path(__file__).with_name("rare_mc_reference.json")

CONFIGS = [  # sigma, p, steps, epsilons, samples
    # dp-accounting's optimistic eps at 1e-6 (0.014527) is above the truth here
    (1.346297650957301, 0.00012151036487113445, 4, [0.01445, 0.01449, 0.0145], 20_000_000),
    (0.9235521564416774, 3.103541714320955e-05, 10, [0.0062, 0.0064], 10_000_000),
    (1.2413868716195133, 6.1478304230438074e-06, 82, [0.00105, 0.0011], 2_000_000),
    (0.5327298492864665, 1.3528255457652824e-06, 82, [0.234, 0.3], 2_000_000),
    # the engine's sound side was 5x loose in delta here (the double transforms' round-off);
    # dp-accounting's pessimistic eps at 3e-5 (0.1217 at delta 1.1e-13) is below the truth
    # (about 0.126)
    (0.739, 8.16e-06, 2022, [0.12, 0.125], 400_000),
    # the engine's sound eps at delta 2.1e-14 was 0.0326 (65% high) until the frames whose
    # round-off dominates worked in extended precision
    (0.7915013370863916, 2.514402862746131e-06, 1108, [0.0197, 0.025], 400_000),
    # a flag of a fresh cross-check (seed 20261201): dp-accounting's optimistic /
    # pessimistic eps at 1e-4 0.108737 / 0.111010 against gdp's [0.111333, 0.111350] at
    # delta = 6.99e-14
    (1.441317117779653, 0.000921995869327206, 51, [0.11101, 0.11133], 10_000_000),
    # seed 20261202: 0.115794 / 0.118515 against [0.119344, 0.119362] at delta = 5.74e-14
    (1.2892111544048086, 0.000533132416451327, 79, [0.119346, 0.118515], 2_000_000),
    # seed 20261203: 1.487706 / 1.488967 against [1.482642, 1.483082] at delta = 2.12e-14
    # (6 steps); 3.388529 / 8.489694 against [2.318830, 2.319204] at 2.11e-15
    (1.1468859013472044, 0.006190322162060042, 6, [1.48285935, 1.4877058], 10_000_000),
    (0.7841397424372643, 0.00043235934311503145, 91, [2.31900097, 3.38852946], 2_000_000),
]
# sigma, p, steps, epsilons, samples: the mixture proposal over many steps, in batches of
# LONG_BATCH_CELLS coordinates (the samples' rows are drawn as in CONFIGS)
LONG = [
    # the rare-jump family (gdp.engine.jumps): delta about 2.4e-15 and 1.0e-15; the engine's
    # ordinary bracket at delta = 1e-15 was [0.0354, 0.0403], the split's [0.03551, 0.03555]
    (1 / 1.2, 3e-6, 10_000, [0.031, 0.0355], 200_000),
    # a row of the sweep (delta = 1.447e-11): dp-accounting's pessimistic eps at 1e-3
    # (1.4199) is below gdp's lower bracket end (1.4683)
    (0.5474840674758684, 5.892441479305467e-06, 98_632, [1.42, 1.4684], 200_000),
    # a fresh cross-check's flag (seed 20261130; p T = 8.1, where Laplace inversion refuses
    # the first order): at delta = 1.16e-15 dp-accounting's eps at 1e-4 are 3.500
    # (optimistic) and 2.941 (pessimistic), gdp's bracket [1.03043, 1.03083]; below the
    # second order's support end (8.13), its delta 1.4e-31 at eps = 1.03
    (1.1426552400820913, 0.0010695327835238027, 7_598, [1.03, 1.1], 400_000),
    # flags of a fresh cross-check (seed 20261201, dp-accounting at 1e-4, its optimistic /
    # pessimistic eps): 5.408 / 3.273 against gdp's [3.52287, 3.52295] at
    # delta = 4.81e-14; 0 / 0.018799 against [0.0226059, 0.0226122] at delta = 2.01e-13,
    # below the second order's support end (0.0303; its delta about 2e-18 there)
    (0.5133071882530841, 1.0322345943421408e-05, 2_226, [3.2726, 3.5229], 1_000_000),
    (0.8337925796721664, 4.648763021837938e-06, 6_514, [0.0188, 0.0226], 1_000_000),
    # seed 20261202: 12.477 / 15.605 against [5.23377, 5.23413] at delta = 3.03e-15
    (0.6100386422977583, 0.00022582535167337152, 2_202, [5.23387], 1_000_000),
    # seed 20261203: 2.679829 / 4.081389 against [0.982161, 0.982554] at delta = 1.32e-13
    # (below the second order's support end, 3.47); 6.346326 / 7.131101 against
    # [1.062988, 1.063175] at 1.84e-14
    (0.978349203605272, 0.0006088310881530968, 5_700, [0.982474693], 400_000),
    (0.7126669434616945, 2.9919722159944097e-05, 10_883, [1.06309831], 300_000),
    # seed 20261204: 4.057567 / 3.279297 against [0.698354, 0.698620] at delta = 4.93e-15;
    # 0.333290 / 0.340472 against [0.040333, 0.040363] at 3.76e-15 (both above the second
    # order's support end, 0.237 and 0.034)
    (0.9274501370593443, 0.00021982752061306424, 1_079, [0.698514016], 1_000_000),
    (1.2203008877689676, 9.260249562655971e-05, 366, [0.040358273], 1_000_000),
    # seed 20261205: 9.029940 / 7.090777 against [3.221161, 3.222098] at delta = 4.30e-15;
    # 0.0424946 / 0.1062178 against [0.1064149, 0.1065196] at 3.34e-12; 14.657869 /
    # 14.016698 against [4.572946, 4.573263] at 2.94e-15
    (0.907866663397705, 0.0027263800055565453, 1_018, [3.22166935], 1_000_000),
    (1.1185300550053376, 0.00024164781590485496, 1_301, [0.10650236, 0.106217767],
     2_000_000),
    (0.5793344014226616, 6.576967816203426e-05, 2_593, [4.57306232], 1_000_000),
    # seed 20261206: 1.167201 / 0.344425 against [0.333423, 0.333538] at delta = 5.76e-13
    (0.7805425150291124, 3.6920435577186704e-05, 4_896, [0.333476615], 1_000_000),
    # seed 20261207: 20.226621 / 21.705198 against [6.651416, 6.651450] at delta = 1.15e-15;
    # 0.257148 / 0.283726 against [0.041813, 0.041820] at 2.69e-15 (below the second
    # order's support end, 0.244; its delta there under 1e-25); 14.228003 / 13.608917
    # against [4.559318, 4.559738] at 2.32e-15
    (0.42192728073821756, 1.4818697030476126e-06, 19_985, [6.651421831], 1_000_000),
    (1.33313596773318, 0.00012159346915732617, 2_004, [0.041816103], 1_000_000),
    (0.623686827032486, 0.00016631220801786598, 1_885, [4.559429981], 1_000_000),
    # seed 20261208: 0 / 0.126030138 against [0.126656939, 0.126721629] at delta = 2.30e-13;
    # 2.765895 / 2.894169 against [2.896876, 2.896965] at 1.49e-11 (ten million samples:
    # a million put the pessimistic eps three standard errors of delta below the truth)
    (0.7827133911347945, 1.5077651881924068e-05, 2_145, [0.1266967465, 0.126030138],
     1_000_000),
    (0.4819542123409863, 1.1365620098288995e-05, 1_739, [2.896908175, 2.89416939],
     10_000_000),
]
LONG_BATCH_CELLS = 20_000_000
# sigma, p, steps, epsilons (the tilt from the first), samples: the tilted proposal
TILTED = [
    # dp-accounting's optimistic eps at 1e-4 (1694.163 at delta 1.032e-5) is above the truth
    (0.4653705662856274, 0.6248438517653735, 1273, [1693.0, 1693.26, 1693.5, 1694.16],
     300_000),
    # dp-accounting's optimistic eps at 1e-4 (51.421 at delta 6.37e-15) is above the truth
    # (a fresh cross-check's flag, seed 20261128: gdp's bracket [51.309, 51.325])
    (0.6606288228706622, 0.25010800617475204, 51, [51.317, 51.30, 51.335, 51.421],
     1_000_000),
    # flags of a fresh cross-check (seed 20261201, where Laplace inversion refuses: the
    # integrand does not decay), dp-accounting's optimistic / pessimistic eps at 1e-4 against
    # gdp's bracket: 29.123 / 28.969 against [19.7721, 19.7750] at delta = 2.44e-15;
    # 17.4126 / 17.3842 against [17.3433, 17.3474] at 2.54e-14; 8.0256 / 8.0247 against
    # [8.0013, 8.0034] at 5.31e-15 (20 steps); 14.026 / 14.326 against [13.526, 13.532]
    # at 1.15e-15 (3 steps)
    (0.49397888157363457, 0.004040206753331786, 859, [19.775, 19.7, 20.5], 300_000),
    (0.7761599291874595, 0.04027873749753075, 309, [17.347, 17.40], 300_000),
    (1.018706473175426, 0.08167838768230928, 20, [8.0034, 8.025], 300_000),
    (0.6507559112576684, 0.07132627812219391, 3, [13.532, 14.03], 300_000),
    # seed 20261202: 52.4767 / 52.4763 against [52.3109, 52.3251] at delta = 1.17e-14;
    # 37.399 / 28.857 against [30.2875, 30.2908] at 6.45e-15; 1.90045 / 1.90012 against
    # [1.88910, 1.88951] at 4.54e-15 (8 steps); 1.790828 / 1.791324 against [1.790350,
    # 1.790745] at 8.89e-14 (5 steps: the optimistic eps 4.6e-5 above gdp's sound one,
    # 20 million samples); 22.078 / 22.159 against [11.1055, 11.1077] at 1.64e-14
    (0.6028969475907782, 0.24350203405680723, 39, [52.3166, 52.4763], 300_000),
    (0.4225993739829519, 0.005125098728060654, 519, [30.2887, 28.857], 300_000),
    (2.9963421174403773, 0.18694695618645468, 8, [1.88923, 1.90012], 1_000_000),
    (2.182232830461997, 0.1273771207514189, 5, [1.79051, 1.790828], 20_000_000),
    (0.5474444110263942, 0.0013086014282716306, 5_099, [11.1064], 300_000),
    # seed 20261203: 31.843424 / 31.671556 against [30.598570, 30.605929] at
    # delta = 1.09e-15 (17 steps); 34.299848 / 34.300203 against [34.289764, 34.297017]
    # at 7.19e-14 (10 steps); 10.193340 / 14.863442 against [6.010208, 6.011708] at
    # 8.76e-15 (below the second order's support end, 6.96)
    (0.8724300382198623, 0.4462984659331581, 17, [30.6013412, 31.6715556], 2_000_000),
    (0.6929395389812958, 0.5472945338946206, 10, [34.2921374, 34.2998476], 10_000_000),
    (0.6926762746689215, 0.001562761904047748, 4_447, [6.01083865], 1_200_000),
    # seed 20261204 (Laplace inversion refuses both: the integrand does not decay):
    # 16.552605 / 16.557712 against [16.543467, 16.548397] at delta = 6.93e-14 (16 steps);
    # 6.590234 / 7.298815 against [7.372111, 7.372662] at 1.11e-12
    (0.6722832295697915, 0.0828315469876234, 16, [16.546327553, 16.552605], 10_000_000),
    (0.47201140112410833, 7.808660696111959e-05, 18_363, [7.372267705, 7.29881523],
     300_000),
    # seed 20261205: 4.660898 / 4.785915 against [4.914203, 4.915229] at delta = 2.23e-13;
    # 5.988151 / 5.978513 against [5.982860, 5.984639] at 1.91e-14 (34 steps); 11.299906 /
    # 11.293450 against [11.287932, 11.288910] at 3.62e-14 (8 steps). The last two need this
    # proposal: the event takes two sampled steps, which the mixture's one shifted
    # coordinate rarely draws (it gave 7.29e-15 +- 8.9e-16 for 1.914659e-14 +- 2.5e-17)
    (0.7462441693647255, 0.002082581447252944, 4_704, [4.91458876, 4.78591532], 300_000),
    (0.8091960545640352, 0.015798005088850046, 34, [5.98367222, 5.98815095, 5.97851286],
     10_000_000),
    (0.46279938736102805, 0.002394769619258737, 8, [11.2884099, 11.2999058], 10_000_000),
    # seed 20261206 (the first five need this proposal: Laplace inversion refuses them, and
    # the event takes more than one sampled step): 1.562498 / 1.537481 against [1.513840,
    # 1.514191] at delta = 2.15e-15 (11 steps); 10.593462 / 10.586791 against [10.522170,
    # 10.526869] at 5.52e-15 (4 steps); 4.397793 / 4.396585 against [4.384636, 4.386612]
    # at 1.16e-14 (2 steps); 25.129798 / 25.135490 against [25.110302, 25.114330] at
    # 4.13e-14 (15 steps; 20 million samples: ten million from other seeds scattered about
    # three times their standard error); 4.764884 / 4.773610 against [4.785493, 4.787055]
    # at 8.16e-14; 5.296715 / 5.330145 against [5.337132, 5.337571] at 4.27e-12 (the
    # mixture proposal agrees there)
    (1.1152642010240026, 0.003924904806377888, 11, [1.513984641, 1.53748144, 1.56249777],
     10_000_000),
    (0.8344116240957734, 0.12243155977503281, 4, [10.52551713, 10.5867914, 10.5934615],
     10_000_000),
    (1.0436647500100789, 0.05233675685467597, 2, [4.385775341, 4.39658496, 4.39779269],
     10_000_000),
    (0.4005459961478463, 0.013442763429453696, 15, [25.112532328, 25.1297983, 25.13549],
     20_000_000),
    (1.1507588032529812, 0.03147325269612113, 179, [4.786235585, 4.77361042], 1_000_000),
    (0.5349021091065829, 0.00024278342028164745, 831, [5.337237947, 5.33014481], 300_000),
    # seed 20261207 (Laplace inversion refuses them): 3.567212 / 3.566270 against [3.566469,
    # 3.567669] at delta = 9.06e-14 (13 steps); 13.902054 / 13.906874 against [13.865715,
    # 13.872100] at 1.14e-14 (2 steps); 7.399059 / 9.594042 against [5.578803, 5.580713] at
    # 1.35e-14; 24.343882 / 24.384710 against [23.984571, 23.991131] at 2.67e-15 (17
    # steps); 28.237495 / 26.717617 against [26.819068, 26.822065] at 1.12e-13; 100.996374 /
    # 102.388068 against [96.798495, 96.831740] at 1.48e-15
    (1.0085903111502663, 0.021072111835380974, 13, [3.5670155984, 3.56626958], 10_000_000),
    (0.5391642191303272, 0.03511062753614724, 2, [13.870031698, 13.9020541], 10_000_000),
    (1.0054132740193265, 0.007634365976440797, 4_185, [5.579770857], 300_000),
    (0.5708859331433448, 0.07240514145676873, 17, [23.988434344], 10_000_000),
    (0.4178970924879998, 0.002797693051440091, 1_340, [26.819917081, 26.7176174], 300_000),
    (0.49527682881931284, 0.1726063963518768, 104, [96.817232203], 1_000_000),
    # seed 20261208 (Laplace inversion refuses them): 18.477918 / 18.524569 against
    # [18.461527, 18.465077] at delta = 5.88e-15 (72 steps); 4.209060 / 4.208909 against
    # [4.207826, 4.208575] at 1.26e-13 (2 steps)
    (1.0433491510776423, 0.15924700215590612, 72, [18.46280765, 18.477918], 2_000_000),
    (0.8474785310763602, 0.014505100085506062, 2, [4.208167195, 4.20906008], 10_000_000),
]
BATCH = 200_000
TILTED_BATCH = 400
GRID = (-12.0, 40.0, 2_000_000)
SEED = 20261123


def estimate(sigma: float, p: float, steps: int, eps: float, n: int, seed: int,
             batch: int = BATCH) -> tuple[float, float]:
    """Importance-sampled estimate of the first order's δ(ε) and its standard error
    (``batch`` samples at a time)."""
    mu = 1.0 / sigma
    lq1, lp = math.log1p(-p), math.log(p)
    x_star = (math.log((math.expm1(eps) + p) / p) + 0.5 * mu * mu) / mu
    m = x_star + 0.2
    rng = np.random.default_rng(seed)
    tot = tot2 = 0.0
    done = 0
    while done < n:
        b = min(batch, n - done)
        x = rng.standard_normal((b, steps))
        shifted = rng.random(b) < 0.5
        j = rng.integers(0, steps, b)
        idx = np.flatnonzero(shifted)
        x[idx, j[idx]] += m
        w = 1.0 / (0.5 + 0.5 / steps * np.sum(np.exp(m * x - 0.5 * m * m), axis=1))
        lr = np.sum(np.logaddexp(lq1, lp + mu * x - 0.5 * mu * mu), axis=1)
        g = np.where(lr > eps, np.exp(lr) - math.exp(eps), 0.0) * w
        tot += float(np.sum(g))
        tot2 += float(np.sum(g * g))
        done += b
    mean = tot / n
    se = math.sqrt(max(tot2 / n - mean * mean, 0.0) / n)
    return mean, se


def _log_r(x: np.ndarray, mu: float, p: float) -> np.ndarray:
    return np.logaddexp(math.log1p(-p), math.log(p) + mu * x - 0.5 * mu * mu)


def estimate_tilted(sigma: float, p: float, steps: int, epss: list[float], n: int,
                    seed: int) -> list[tuple[float, float]]:
    """Importance-sampled estimates of the first order's δ at each ε of ``epss`` from the
    tilted proposal (its tilt from the first ε) and their standard errors, from the same
    samples."""
    mu = 1.0 / sigma
    edges = np.linspace(*GRID[:2], GRID[2] + 1)
    w = edges[1] - edges[0]
    mid = 0.5 * (edges[1:] + edges[:-1])
    log_phi = -0.5 * mid * mid - 0.5 * math.log(2.0 * math.pi)
    lr = _log_r(mid, mu, p)

    def tilted(lam: float) -> np.ndarray:
        a = log_phi + lam * lr
        g = np.exp(a - a.max())
        return g / g.sum()

    lo, hi = 0.0, 50.0  # (the tilted mean of log r increases with the tilt)
    for _ in range(100):
        lam = 0.5 * (lo + hi)
        if float(np.sum(tilted(lam) * lr)) * steps < epss[0]:
            lo = lam
        else:
            hi = lam
    g = tilted(0.5 * (lo + hi))
    cdf = np.cumsum(g)
    cdf[-1] = 1.0
    with np.errstate(divide="ignore"):
        log_g = np.log(g / w)   # the proposal's density on each cell
    rng = np.random.default_rng(seed)
    tot = np.zeros(len(epss))
    tot2 = np.zeros(len(epss))
    for _ in range(n // TILTED_BATCH):
        k = np.minimum(np.searchsorted(cdf, rng.random((TILTED_BATCH, steps)), side="right"),
                       g.size - 1)
        x = edges[k] + rng.random((TILTED_BATCH, steps)) * w
        lrs = _log_r(x, mu, p).sum(axis=1)
        log_w = (-0.5 * x * x - 0.5 * math.log(2.0 * math.pi) - log_g[k]).sum(axis=1)
        for i, e in enumerate(epss):
            with np.errstate(over="ignore", invalid="ignore"):
                v = np.where(lrs > e, np.exp(lrs + log_w) * -np.expm1(e - lrs), 0.0)
            tot[i] += float(np.sum(v))
            tot2[i] += float(np.sum(v * v))
    m = n // TILTED_BATCH * TILTED_BATCH
    out = []
    for i in range(len(epss)):
        mean = tot[i] / m
        out.append((mean, math.sqrt(max(tot2[i] / m - mean * mean, 0.0) / m)))
    return out


def _chernoff(sigma: float, p: float, t: int, e: float) -> float:
    r"""An upper bound on the second order's δ at ``e``: for every λ > 0,
    :math:`(1 - e^{\varepsilon - L})_+ \le \lambda^\lambda (\lambda + 1)^{-\lambda - 1}
    e^{\lambda(L - \varepsilon)}` (the left side over the right is largest where
    :math:`e^{\varepsilon - L} = \lambda/(\lambda + 1)`), so :math:`\delta(\varepsilon)
    \le \lambda^\lambda (\lambda + 1)^{-\lambda - 1} e^{K(\lambda) - \lambda
    \varepsilon}` with K the composition's cumulant generating function (by quadrature,
    ``make_laplace_reference.log_mgf``); λ by bounded minimisation over [1e-3, 1e4] (any λ
    gives a bound)."""
    from make_laplace_reference import log_mgf  # (this script's folder)
    from scipy import optimize

    def log_bound(lam: float) -> float:
        return (t * log_mgf(lam, 1.0 / sigma, p, -1).real - lam * e + lam * math.log(lam)
                - (lam + 1.0) * math.log1p(lam))

    res = optimize.minimize_scalar(log_bound, bounds=(1e-3, 1e4), method="bounded",
                                   options=dict(xatol=1e-7))
    return math.exp(float(res.fun))


def _second_order(sigma: float, p: float, t: int, e: float) -> tuple[float, str]:
    """The second order's δ at ``e`` and how it was found: 0 at or above its support end,
    else by Laplace inversion, or where that refuses (the integrand does not decay) or
    answers 0 or below (round-off about a δ under 1e-20), an upper bound (``_chernoff``)."""
    if e >= -t * math.log1p(-p):
        return 0.0, "support"
    from make_laplace_reference import delta as laplace_delta  # (this script's folder)

    try:
        d = laplace_delta(e, sigma, p, t, -1)
    except ValueError:
        d = 0.0
    if d > 0.0:
        return d, "other_order_delta"
    return _chernoff(sigma, p, t, e), "other_order_delta_bound"


def _record(sigma: float, p: float, t: int, e: float, d: float, se: float, n: int,
            proposal: str) -> dict:
    """One record; where the second order's δ is not 0, it (or an upper bound on it) is
    stored, and must lie five standard errors below the estimate (the profile is the larger
    of the two)."""
    rec = dict(sigma=sigma, p=p, steps=t, eps=e, delta=d, se=se, samples=n, proposal=proposal)
    other, key = _second_order(sigma, p, t, e)
    if other > 0.0:
        if not other <= d - 5.0 * se:
            raise ValueError(f"eps={e}: the second order's delta {other} is not five "
                             f"standard errors ({se}) below the estimate {d}")
        rec[key] = other
    return rec


def main() -> None:
    recs = []
    for k, (s, p, t, epss, n) in enumerate(CONFIGS):
        for i, e in enumerate(epss):
            d, se = estimate(s, p, t, e, n, SEED + 100 * k + i)
            recs.append(_record(s, p, t, e, d, se, n, "mixture"))
            print(recs[-1], flush=True)
    for k, (s, p, t, epss, n) in enumerate(LONG):
        for i, e in enumerate(epss):
            d, se = estimate(s, p, t, e, n, SEED + 5000 + 100 * k + i,
                             batch=max(1, LONG_BATCH_CELLS // t))
            recs.append(_record(s, p, t, e, d, se, n, "mixture"))
            print(recs[-1], flush=True)
    for k, (s, p, t, epss, n) in enumerate(TILTED):
        for e, (d, se) in zip(epss, estimate_tilted(s, p, t, epss, n, SEED + 7 + 100 * k),
                              strict=True):
            recs.append(_record(s, p, t, e, float(d), se, n, "tilted"))
            print(recs[-1], flush=True)
    prov = dict(script="tests/engine/data/make_rare_mc_reference.py",
                date=datetime.date.today().isoformat(), python=platform.python_version(),
                numpy=np.__version__, seed=SEED,
                method="importance-sampled Monte Carlo of E[(prod r(x_i) - e^eps)_+], "
                       "defensive mixture or exponentially tilted proposal (see the "
                       "script's docstring)")
    OUT.write_text(json.dumps(dict(provenance=prov, configurations=recs), indent=1) + "\n")


if __name__ == "__main__":
    main()
