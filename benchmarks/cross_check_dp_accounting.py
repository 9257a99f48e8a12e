"""Cross-check gdp's DP-SGD answers against dp-accounting on a fresh seeded sample of the box.

Draws configurations with :func:`scan_engine_box.configurations` (σ, p, T, δ log-uniform over
the box of issue 10; ``--seed`` picks a sample never used for tuning), keeps those where
dp-accounting is affordable (p < 1, T ≤ ``--max-steps``, p·T ≥ 0.01), and for each prints
gdp's sound ε and the lower end of its bracket beside dp-accounting's optimistic (privacy
buckets) and pessimistic (connect-the-dots) ε at the value discretisation ``--disc``,
computed in a child process under ``--limit`` seconds. Flags:

* ``SOUND<OPT``: gdp's sound ε below dp-accounting's optimistic one;
* ``LOWER>PESS``: the lower end of gdp's bracket above dp-accounting's pessimistic one.

A flag says that one of the two libraries is wrong there, not which: dp-accounting's two
estimates are not bounds at large ε or tiny δ (its transforms' round-off, its tail
truncation), and they can be out of order themselves. Where they disagree with gdp, an
independent estimate decides, e.g. the importance-sampled Monte Carlo of
``tests/engine/data/make_rare_mc_reference.py`` (at seed 20261127 it sided with gdp in the
three flags it was run on). At seed 20261128, 8 of 80 flagged, all at δ ≤ 1.4e-11 or
ε ≥ 17: where decided, gdp was right (one step at δ = 3.4e-15 against its 30-digit closed
form, dp-accounting 1% high; T = 51 at δ = 6.4e-15 by the Monte Carlo; at δ = 2.3e-12
prv-accountant's bounds exclude dp-accounting's pessimistic ε and hold gdp's bracket).
At seed 20261129, 8 of 80, all at δ ≤ 3.5e-13; in four dp-accounting's optimistic ε lies
above its pessimistic one. Two steps at σ = 3.128, p = 0.0121, δ = 7.1e-15, decided by
40-digit quadrature (``tests/engine/data/make_two_step_reference.py``): the truth is
0.0971315, inside gdp's [0.0971204, 0.0971678]; dp-accounting's 0.09771 / 0.09781 both
lie 0.6% above it.
At seed 20261130, 10 of 80, nine at δ ≤ 4.1e-13, each of them decided for gdp: six by
Laplace inversion (``make_laplace_reference.py``: dp-accounting's optimistic ε above the
truth in five, by up to 18%, its pessimistic ε below it in two), two steps at δ = 2.4e-14
by the 40-digit quadrature, σ = 1.143, p = 1.07e-3, T = 7,598, δ = 1.2e-15 (dp-accounting
3.500 / 2.941, gdp 1.0308) by the Monte Carlo, and one step at δ = 1.3e-15 (dp-accounting 7%
above gdp's closed form, whose 30-digit check is in ``tests/engine/test_oracles.py``). The
tenth, at δ = 1.0e-9 (σ = 0.440, p = 4.0e-5, T = 6,116), has gdp's lower end 5.06153 above
dp-accounting's pessimistic 5.06135; its pessimistic ε is not monotone in the
discretisation (5.06135, 5.06164, 5.06139 at 1e-4, 3e-5, 1e-5), gdp's bracket narrows to
[5.061561, 5.061575] at ``rtol=1e-5``, and prv-accountant's estimate (5.061567) lies inside
it; its bounds at ``eps_error=1.5e-4``, ``delta_error`` = 1e-5 δ ([5.061412, 5.061720])
exclude dp-accounting's pessimistic values at 1e-4 and 1e-5 and hold gdp's bracket.
At seed 20261201, 10 of 80, nine at δ ≤ 5.7e-13, each decided for gdp: seven by the Monte
Carlo (dp-accounting's optimistic ε above the truth by up to 53%: σ = 0.494, p = 0.0040,
T = 859, δ = 2.4e-15, dp-accounting 29.12 / 28.97 against a truth near gdp's 19.775; its
pessimistic ε below the truth in three, by up to 17%), one by Laplace inversion
(T = 14,490, truth 12559.499 inside gdp's [12558.21, 12561.26], dp-accounting's two values
above it) and one step (dp-accounting 0.14% above the closed form). The tenth is of the kind
above: δ = 8.6e-10, σ = 0.747, p = 4.0e-4, T = 17,345, gdp's lower end 1.496698 above
dp-accounting's pessimistic 1.496533 (1.496902 and 1.496495 at 3e-5 and 1e-5), gdp's
bracket [1.496727, 1.496746] at ``rtol=1e-5``, prv-accountant's estimate 1.4967413 inside
it; its bounds at ``eps_error=1.8e-4``, ``delta_error`` = 1e-5 δ ([1.496560, 1.496923];
with ``eps_error=2e-4``, ``delta_error`` = 1e-3 δ they were [1.49638, 1.49710]) exclude
dp-accounting's pessimistic values at 1e-4 and 1e-5 and hold gdp's bracket.
At seed 20261202, 12 of 80, each decided for gdp. Three at ordinary δ and large ε, where
both of dp-accounting's values lie above the truth by Laplace inversion (δ = 8.4e-5:
1188.780 / 1188.912 against 1187.940, inside gdp's [1187.592, 1188.109]; likewise at
δ = 5.4e-7, ε = 968.9, and δ = 1.9e-10, ε = 2283.9), two more by Laplace inversion where its
pessimistic ε lies below the truth (δ = 6.5e-11 and 2.2e-13), and seven by the Monte Carlo
(δ from 3.0e-15 to 8.9e-14: its optimistic ε above the truth in six, up to 2.4 times the
truth, its pessimistic below it in two; at σ = 2.182, p = 0.127, T = 5, δ = 8.9e-14 its
optimistic ε 1.790828 lies 4.6e-5 above gdp's sound 1.790745, and 20 million samples put
δ there 7.8 standard errors below the δ asked).
At seed 20261203, 11 of 80, all at δ ≤ 3.7e-12, each decided for gdp: four by Laplace
inversion (its pessimistic ε below the truth in three, e.g. δ = 9.1e-15: 196.799 against
197.6279; δ = 3.7e-12: 2.412072 against 2.412278; both of its values above the truth in one,
δ = 1.4e-12: 1373.123 / 1373.196 against 1372.158) and seven by the Monte Carlo (δ from
1.1e-15 to 1.3e-13): at the centre of gdp's bracket at ``rtol=1e-5`` the estimate is the δ
asked within 1.9 standard errors each time, and dp-accounting's optimistic ε lies above the
truth in all seven, up to six times it (6.346 against about 1.063 at σ = 0.713, p = 3.0e-5,
T = 10,883, δ = 1.8e-14); the finest, σ = 0.693, p = 0.547, T = 10, δ = 7.2e-14: its
optimistic ε 34.29985 lies 2.8e-3 above gdp's sound 34.29702, and 10 million samples put δ
there 17 standard errors below the δ asked.
At seed 20261204, 5 of 80, all at δ ≤ 1.1e-12, each decided for gdp: one by Laplace
inversion (σ = 1.719, p = 0.888, T = 18,291, δ = 2.7e-15: both of its values on their
unsafe sides, 3045.272 / 2965.008 against 3003.3020, inside gdp's [3003.047, 3003.837]),
four by the Monte Carlo (at the centre of gdp's bracket at ``rtol=1e-5`` the estimate is the
δ asked within 1.5 standard errors each time): its optimistic ε above the truth in three
(4.058 against about 0.6985 at σ = 0.927, p = 2.2e-4, T = 1,079, δ = 4.9e-15; 16.552605,
4.2e-3 above gdp's sound 16.548397, at σ = 0.672, p = 0.083, T = 16, δ = 6.9e-14, where
ten million samples put δ 12 standard errors below the δ asked), its pessimistic ε below
it in one (σ = 0.472, p = 7.8e-5, T = 18,363, δ = 1.1e-12: 7.2988 against about 7.3723,
where δ lies 32 standard errors above the δ asked).
At seed 20261205, 13 of 80, all at δ ≤ 3.4e-12, each decided for gdp: seven by Laplace
inversion (its optimistic ε above the truth in five, e.g. 92.865 against 86.10770 at
σ = 5.384, p = 0.302, T = 17,612, δ = 2.8e-15; its pessimistic below it in three, e.g.
643.304 / 629.946 against 651.7729 at σ = 0.627, p = 0.143, T = 7,275, δ = 2.1e-15), six by
the Monte Carlo (at the centre of gdp's bracket at ``rtol=1e-5`` the estimate is the δ
asked within 1.2 standard errors each time): its optimistic ε above the truth in four
(14.658 against about 4.573 at σ = 0.579, p = 6.6e-5, T = 2,593, δ = 2.9e-15; 11.299906,
0.1% above gdp's sound 11.288910 at σ = 0.463, p = 2.4e-3, T = 8, δ = 3.6e-14, where δ lies
20 standard errors below the δ asked), its pessimistic below it in three (4.785915 against
about 4.9146 at σ = 0.746, p = 2.1e-3, T = 4,704, δ = 2.2e-13, 73 standard errors).
At seed 20261206, 10 of 80, all at δ ≤ 2.2e-8, each decided for gdp: three by Laplace
inversion (its optimistic ε above the truth in one, 1281.3085 against 1281.01999 at
σ = 0.855, p = 0.290, T = 13,265, δ = 2.2e-8; its pessimistic below it in two), seven by the
Monte Carlo (at the centre of gdp's bracket at ``rtol=1e-5`` the estimate is the δ asked
within 1.6 standard errors each time): its optimistic ε above the truth in five (10.5935
against about 10.5255 at σ = 0.834, p = 0.122, T = 4, δ = 5.5e-15, where δ lies 307
standard errors below the δ asked), its pessimistic below it in two (4.773610 against about
4.7862 at σ = 1.151, p = 0.031, T = 179, δ = 8.2e-14, 26 standard errors).
At seed 20261207, 9 of 80, all at δ ≤ 1.1e-13, each decided for gdp by the Monte Carlo
(within 1.3 standard errors at gdp's bracket centre): its optimistic ε above the truth in
eight (20.23 against about 6.6514 at σ = 0.422, p = 1.5e-6, T = 19,985, δ = 1.2e-15), its
pessimistic below it in two (26.7176 against about 26.8199 at σ = 0.418, p = 2.8e-3,
T = 1,340, δ = 1.1e-13, 19 standard errors; 3.566270 at σ = 1.009, p = 0.021, T = 13,
δ = 9.1e-14, 4.6 standard errors).
At seed 20261208, 8 of 80, all at δ ≤ 1.5e-11, each decided for gdp: four by Laplace
inversion (its optimistic ε above the truth in one, 78.6755 against 74.670326 at σ = 2.971,
p = 0.279, T = 4,917, δ = 4.2e-15; its pessimistic below it in three), four by the Monte
Carlo (within 1.8 standard errors at gdp's bracket centre): its optimistic ε above the
truth in two (18.477918 against about 18.4628 at σ = 1.043, p = 0.159, T = 72, δ = 5.9e-15,
20 standard errors), its pessimistic below it in two (2.894169 against about 2.89691 at
σ = 0.482, p = 1.1e-5, T = 1,739, δ = 1.5e-11, where ten million samples put δ 10.7
standard errors above the δ asked: a million could not tell).
Run::

    python benchmarks/cross_check_dp_accounting.py --seed 20261127 --n 60
"""

from __future__ import annotations

import argparse
import multiprocessing as mp

from scan_engine_box import configurations

import gdp


def _dp_accounting(args: tuple, queue) -> None:
    s, p, t, d, disc = args
    from dp_accounting.pld import privacy_loss_distribution as pld

    out = []
    for pessimistic in (False, True):
        x = pld.from_gaussian_mechanism(s, sampling_prob=p, value_discretization_interval=disc,
                                        pessimistic_estimate=pessimistic,
                                        use_connect_dots=pessimistic)
        out.append(float(x.self_compose(t).get_epsilon_for_delta(d)))
    queue.put(out)


def dp_accounting_eps(s: float, p: float, t: int, d: float, disc: float,
                      limit: float) -> tuple[float, float] | None:
    """dp-accounting's (optimistic, pessimistic) ε at δ = ``d``, or None past ``limit`` s."""
    queue = mp.Queue()
    child = mp.Process(target=_dp_accounting, args=((s, p, t, d, disc), queue))
    child.start()
    child.join(limit)
    if child.is_alive():
        child.kill()
        child.join()
        return None
    return tuple(queue.get()) if not queue.empty() else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=20261127)
    ap.add_argument("--n", type=int, default=60, help="configurations checked")
    ap.add_argument("--draw", type=int, default=400, help="configurations drawn")
    ap.add_argument("--max-steps", type=int, default=20_000)
    ap.add_argument("--disc", type=float, default=1e-4, help="dp-accounting's discretisation")
    ap.add_argument("--limit", type=float, default=30.0, help="seconds per dp-accounting call")
    a = ap.parse_args()
    cfgs = [c for c in configurations(a.draw, a.seed, "delta")
            if c[1] < 1.0 and c[2] <= a.max_steps and c[1] * c[2] >= 1e-2][:a.n]
    flags = 0
    for s, p, t, d in cfgs:
        h = gdp.dpsgd(sigma=s, p=p, steps=t)
        eps = float(h.epsilon(d))
        lo = float(h.epsilon_bounds(d)[0])
        ref = dp_accounting_eps(s, p, t, d, a.disc, a.limit)
        if ref is None:
            print(f"({s!r}, {p!r}, {t}, {d!r}): dp-accounting over {a.limit:g} s", flush=True)
            continue
        opt, pess = ref
        flag = (" SOUND<OPT" if eps < opt * (1 - 1e-9) else "") + \
            (" LOWER>PESS" if lo > pess * (1 + 1e-9) else "")
        flags += bool(flag)
        print(f"({s!r}, {p!r}, {t}, {d!r}): gdp {eps:.9g} [lower {lo:.9g}]  "
              f"dp-accounting {opt:.9g} / {pess:.9g}{flag}", flush=True)
    print(f"{len(cfgs)} configurations, {flags} flagged")


if __name__ == "__main__":
    main()
