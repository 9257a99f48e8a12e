"""The numeric engine over the practical box, side by side with dp-accounting and prv.

Part 1, DP-SGD per regime (small p, few steps, tiny δ, long T, p = 1, moderate, and a
seeded random sample of the box σ ∈ [0.4, 10], p ∈ [1e-6, 1], T ∈ [1, 1e7],
δ ∈ [1e-15, 1e-2]): for each configuration the wall-clock time of

* gdp: ``gdp.dpsgd(...).epsilon(δ)`` (sound ε, default accuracy; the median of ``--runs``
  runs, default 3, each on a new curve) and with its bracket (``epsilon_bounds``, the second
  call reusing the first's frames);
* dp-accounting: connect-the-dots PLD, pessimistic, discretisation 1e-3, ε at δ (the median
  of ``--runs`` runs);
* dp-accounting at matched accuracy: the same PLD at the coarsest discretisation of the
  fixed ladder 1e-3, 3e-4, 1e-4, 3e-5, 1e-5, 3e-6, 1e-6 whose ε is within 0.1% of gdp's
  bracket, i.e. at most 1.001 × the bracket's lower end; the time shown is that one run's
  (the coarser steps tried before it are not added), with the discretisation used. The
  ladder is walked from the coarsest step and ends at the first step that matches, fails or
  exceeds the time limit (shown ``>limit@step``, or the error and the step); ``unmatched``
  if even 1e-6 is more than 0.1% above. Where gdp's bracket is wider than 0.1% the truth may
  lie above 1.001 × its lower end, and then no discretisation matches (dp-accounting's
  pessimistic ε is at least the truth): such rows end in a timeout or ``unmatched`` whatever
  dp-accounting's speed. A step whose ε lies below the bracket's lower end (below the
  true ε: at δ under about 1e-10 its transforms' round-off, which it does not bound, can
  put it there) matches nothing and ends the ladder, shown ``below@step`` (a finer step
  does not lower that floor). The 1e-3 step is the run of the previous column; the finer
  steps run under a memory cap (``--memory``, default 4 GiB) as well;
* prv-accountant: ``PRVAccountant`` with ``eps_error`` 1e-3 ε (about gdp's default accuracy)
  and ``delta_error`` δ/1000;

each external run in a child process with a time limit (``--limit``, default 20 s: a run
that exceeds it is shown as ``>limit``), timed after its imports. Prints per configuration
ε, the times and the ratio gdp / dp-accounting(1e-3), per regime the median ratios gdp /
dp-accounting (at 1e-3 and at matched accuracy, over the configurations where dp-accounting
matched) and gdp / prv, the worst gdp time, and every configuration where gdp took over half
of dp-accounting's time at 1e-3 (the issue's bound, run by run), with dp-accounting's ε there
(at small p often far above the true one: compare gdp's bracket).

Part 2, long mixed lists: K mechanisms (a quarter each Gaussian, Laplace, randomized
response, Poisson-subsampled Gaussian, seeded parameters), ``gdp.compose_two_orders``,
sound ε at δ = 1e-6 and the bracket, K = 10, 100, 1,000, 5,000.

Part 3, the FFT floor: for σ = 1, p = 0.01, T = 10⁴, δ = 1e-5, the median time of the sound ε
(a fresh curve each call) against the median time of the transforms of both orders' frames
(their lengths recorded in one uncounted call, then each ``rfft``/``irfft`` timed on its own;
the sound answer may skip the second order's frame, but the floor keeps its transforms).

Part 4, runs in phases (``gdp.dpsgd(phases=...)``, each phase its own σ, p and steps):
the lists of ``tests/engine/data/make_phases_reference.py`` (200 phases of 1 to 49 steps;
three lists of 10 or 17 rarely sampled phases) and seeded random lists of 17 to 200
phases (σ in [0.5, 4], a number of epochs p T in [0.01, 20], δ in [1e-12, 1e-4]), half
with p in [1e-3, 0.1], half with p in [1e-5, 0.1]: gdp's sound ε and its time, the
bracket's width and extra time, dp-accounting's pessimistic ε at the discretisation 1e-3
(its PLDs of both orders, ``self_compose`` per phase, then ``compose``) and its time in a
child process, and the ratio (both times the medians of ``--runs`` runs).

Part 5, distinct factors at tiny δ: the 30 distinct Poisson-subsampled Gaussians of
``tests/engine/data/make_heterogeneous_reference.py`` (σ from 0.4 to 10, p from 1e-6 to
1) at δ = 1e-10, 1e-12, 1e-13 and 1e-15: gdp's sound ε, bracket and times, and
dp-accounting's PLDs (pessimistic with connect-the-dots, an upper bound; optimistic
without, a lower bound) at the discretisations 1e-3 and 1e-4, their ε at each δ and the
time of each (one composition answers every δ), in a child process.

Run ``python benchmarks/bench_engine_sweep.py`` (``--quick``: fewer random configurations,
K up to 1,000; ``--floor``: part 3 only; ``--phases``: part 4 only; ``--distinct``: part 5
only). Note the machine's
load (``uptime``) with the figures.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import os
import resource
import statistics
import time

import numpy as np

import gdp

REGIMES = {
    "small p": [(0.8, 1e-3, 1000, 1e-5), (1.28, 6.48e-4, 1486, 1e-5),
                (1.0, 256 / 60000, 235, 1e-5), (0.5395661445072627, 5.528894961464357e-4, 24,
                                                 1e-5),
                (0.8, 1e-3, 100, 1e-5), (2.0, 1e-4, 100_000, 1e-8)],
    "few steps": [(1.0, 0.01, 1, 1e-5), (1.0, 0.01, 10, 1e-5), (1.0, 0.01, 100, 1e-5),
                  (0.5, 0.5, 10, 1e-3)],
    "tiny delta": [(0.6722645446711544, 0.007027710081870188, 255, 1.59e-10),
                   (1.0, 0.01, 10_000, 1e-10), (1.0, 0.01, 10_000, 1e-12),
                   (1.0, 0.01, 10_000, 1e-15), (2.0, 0.05, 3000, 1e-12)],
    "long T": [(1.0, 0.01, 10_000, 1e-5), (5.0, 0.05, 1_000_000, 1e-10),
               (1.0, 1e-3, 10_000_000, 1e-6), (3.0, 0.02, 10_000_000, 1e-5)],
    "p = 1": [(1.0, 1.0, 100, 1e-5), (0.7, 1.0, 3, 1e-9)],
}


def _random(n: int, seed: int = 20251123) -> list[tuple[float, float, int, float]]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        s = float(np.exp(rng.uniform(math.log(0.4), math.log(10.0))))
        lo, hi = (1e-6, 3e-3) if i % 2 == 0 else (3e-3, 1.0)
        p = float(np.exp(rng.uniform(math.log(lo), math.log(hi))))
        t = max(1, int(round(math.exp(rng.uniform(0.0, math.log(1e7))))))
        d = float(np.exp(rng.uniform(math.log(1e-15), math.log(1e-2))))
        out.append((s, p, t, d))
    return out


LADDER = (1e-3, 3e-4, 1e-4, 3e-5, 1e-5, 3e-6, 1e-6)  # dp-accounting's discretisations
MATCH = 1.001  # matched: dp-accounting's pessimistic eps <= MATCH * gdp's lower bracket end
HALF = 0.5  # the bound on the time ratio gdp / dp-accounting(1e-3), run by run


def _dpa(s: float, p: float, t: int, d: float, disc: float = 1e-3) -> float:
    from dp_accounting.pld import privacy_loss_distribution as pldm

    pl = pldm.from_gaussian_mechanism(standard_deviation=s, sampling_prob=p,
                                      value_discretization_interval=disc)
    return float(pl.self_compose(t).get_epsilon_for_delta(d))


def _prv(s: float, p: float, t: int, d: float, err: float) -> float:
    import prv_accountant as prv

    m = prv.PoissonSubsampledGaussianMechanism(noise_multiplier=s, sampling_probability=p)
    acc = prv.PRVAccountant(prvs=[m], max_self_compositions=[t], eps_error=err,
                            delta_error=d / 1000)
    return float(acc.compute_epsilon(delta=d, num_self_compositions=[t])[2])


def _child(q, fn, args, memory=None):
    try:
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        import dp_accounting.pld.privacy_loss_distribution  # noqa: F401 - not timed
        import prv_accountant  # noqa: F401 - not timed

        t0 = time.perf_counter()
        v = fn(*args)
        q.put((v, time.perf_counter() - t0))
    except BaseException as ex:  # noqa: BLE001 - reported, not raised
        q.put((f"{type(ex).__name__}", None))


def _timed(fn, args, limit: float, memory: int | None = None) -> tuple[object, float | None]:
    """(value, seconds) of ``fn(*args)`` in a child process; (reason, None) on failure."""
    q = mp.Queue()
    pr = mp.Process(target=_child, args=(q, fn, args, memory))
    pr.start()
    pr.join(limit)
    if pr.is_alive():
        pr.kill()
        pr.join()
        return f">{limit:g}s", None
    return q.get() if not q.empty() else ("killed", None)


def _matched(s: float, p: float, t: int, d: float, lower: float, first: tuple,
             limit: float, memory: int) -> tuple[str, float | None]:
    """dp-accounting's time at the coarsest ladder step within 0.1% of gdp's bracket.

    Parameters
    ----------
    s, p, t, d : float, float, int, float
        The configuration (σ, p, T, δ).
    lower : float
        The lower end of gdp's bracket; a step matches if its ε is at least ``lower``
        and at most ``MATCH * lower`` (below ``lower``, at most the true ε, it is wrong:
        ``below``).
    first : tuple
        The (value, seconds) already measured at the first step of the ladder (1e-3).
    limit : float
        Time limit in seconds of each step.
    memory : int
        Memory cap in bytes of each step after the first.

    Returns
    -------
    tuple of (str, float or None)
        The table cell (time and discretisation, ``>limit`` or the error with the step that
        failed, ``below`` with the step, or ``unmatched``) and the matched run's seconds
        (``None`` if no step matched).
    """
    for i, disc in enumerate(LADDER):
        v, secs = first if i == 0 else _timed(_dpa, (s, p, t, d, disc), limit, memory)
        if secs is None:
            return f"{v}@{disc:.0e}", None
        if v < lower:
            return f"below@{disc:.0e}", None
        if v <= MATCH * lower:
            return f"{secs:.3f}@{disc:.0e}", secs
    return "unmatched", None


def _gdp_sound_time(s: float, p: float, t: int, d: float) -> float:
    t0 = time.perf_counter()
    gdp.dpsgd(sigma=s, p=p, steps=t).epsilon(d)
    return time.perf_counter() - t0


def _gdp(s: float, p: float, t: int, d: float) -> tuple[float, float, float, float, float]:
    t0 = time.perf_counter()
    h = gdp.dpsgd(sigma=s, p=p, steps=t)
    e = float(h.epsilon(d))
    t1 = time.perf_counter() - t0
    lo, hi = h.epsilon_bounds(d)
    return e, float(lo), float(hi), t1, time.perf_counter() - t0


def _median_runs(runs: int, fn, *args) -> tuple:
    """``fn(*args)`` ``runs`` times: the first run's result with the median of the
    times (the time is the last item; a failed run's time is ``None`` and ends the runs)."""
    first, times = None, []
    for _ in range(runs):
        out = fn(*args)
        first = out if first is None else first
        if out[-1] is None:
            return out
        times.append(out[-1])
    return (*first[:-1], statistics.median(times))


def sweep(configs: dict[str, list], limit: float, memory: int = 4 << 30,
          runs: int = 3) -> None:
    worst = (0.0, None)
    over: list[tuple[float, tuple, float]] = []  # (ratio, config, dp-accounting's ε)
    print(f"{'config (sigma, p, T, delta)':44s} {'gdp eps':>11s} {'width':>7s} "
          f"{'gdp s':>7s} {'+brkt s':>7s} {'dpa eps':>11s} {'dpa s':>7s} {'prv eps':>11s} "
          f"{'prv s':>7s} {'dpa matched s':>17s} {'/dpa':>6s}")
    for regime, cfgs in configs.items():
        print(f"-- {regime}")
        r_dpa, r_prv, r_match, times = [], [], [], []
        for s, p, t, d in cfgs:
            e, lo, hi, tg, tb = _gdp(s, p, t, d)
            if runs > 1:  # (the sound answer's time: the median of the runs, each a new curve)
                tg = statistics.median([tg] + [_gdp_sound_time(s, p, t, d)
                                               for _ in range(runs - 1)])
            times.append(tg)
            if tg > worst[0]:
                worst = (tg, (s, p, t, d))
            if p < 1.0:
                ve, td = _median_runs(runs, _timed, _dpa, (s, p, t, d), limit)
                vp, tp = _timed(_prv, (s, p, t, d, max(1e-3 * e, 1e-7)), limit)
                cell, tm = _matched(s, p, t, d, lo, (ve, td), limit, memory)
            else:
                ve, td, vp, tp, cell, tm = "n/a", None, "n/a", None, "n/a", None
            if td:
                r_dpa.append(tg / td)
                if tg / td > HALF:
                    over.append((tg / td, (s, p, t, d), ve))
            if tp:
                r_prv.append(tg / tp)
            if tm:
                r_match.append(tg / tm)
            w = (hi - lo) / hi if hi > 0 and math.isfinite(hi) else 0.0

            def f(v):
                return f"{v:11.6g}" if isinstance(v, float) else f"{v!s:>11s}"

            def sec(x):
                return f"{x:7.3f}" if x is not None else f"{'-':>7s}"

            print(f"({s:.4g}, {p:.3g}, {t}, {d:.2g})".ljust(44) +
                  f" {e:11.6g} {w:7.2%} {tg:7.3f} {tb - tg:7.3f} {f(ve)} {sec(td)} {f(vp)} "
                  f"{sec(tp)} {cell:>17s} {f'{tg / td:6.2f}' if td else '-':>6s}",
                  flush=True)
        def med(r):
            return f"{statistics.median(r):.3g}" if r else "-"

        print(f"   median time ratio gdp/dp-accounting(1e-3) = {med(r_dpa)}, gdp/prv = "
              f"{med(r_prv)}; gdp max {max(times):.3f} s")
        n_ext = sum(p < 1.0 for _, p, _, _ in cfgs)
        print(f"   median time ratio gdp/dp-accounting(matched) = {med(r_match)} "
              f"({len(r_match)} of {n_ext} matched)")
    print(f"worst gdp time {worst[0]:.3f} s at {worst[1]}")
    n = sum(len(c) for c in configs.values())
    print(f"configurations over {HALF:g} of dp-accounting's time at 1e-3: {len(over)} of {n}")
    for r, (s, p, t, d), ve in sorted(over, reverse=True):
        print(f"   {r:5.2f}  ({s:.4g}, {p:.3g}, {t}, {d:.2g}), dp-accounting's eps {ve:.6g}")


def mixed(ks: list[int], seed: int = 20240611) -> None:
    print("-- mixed lists: compose_two_orders, eps at delta = 1e-6")
    for k in ks:
        rng = np.random.default_rng(seed)
        q = max(1, k // 4)
        fs = [gdp.G_mu(x) for x in rng.uniform(0.01, 0.05, q)]
        fs += [gdp.laplace(x) for x in rng.uniform(0.01, 0.05, q)]
        fs += [gdp.f_eps_delta(x) for x in rng.uniform(0.01, 0.05, q)]
        fs += [gdp.poisson_subsample(gdp.G_mu(1.0 / s), p)
               for s, p in zip(rng.uniform(0.8, 2.0, k - 3 * q), rng.uniform(0.001, 0.02,
                                                                               k - 3 * q),
                               strict=True)]
        fs = fs[:k]
        t0 = time.perf_counter()
        h = gdp.compose_two_orders(*fs)
        e = float(h.epsilon(1e-6))
        t1 = time.perf_counter() - t0
        lo, hi = h.epsilon_bounds(1e-6)
        t2 = time.perf_counter() - t0
        print(f"K={k:5d}: eps={e:.6g} bracket [{lo:.6g}, {hi:.6g}] sound {t1:.3f} s, "
              f"bracket +{t2 - t1:.3f} s", flush=True)


def _phase_lists(n: int, seed: int = 20261129) -> list[tuple[str, list, float]]:
    """(name, phases [(σ, p, steps)], δ) of part 4."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parents[1] / "tests" / "engine" / "data"))
    from make_phases_reference import runs

    out = [(f"reference {k}", [tuple(x) for x in r["phases"]], r["delta"])
           for k, r in runs().items()]
    rng = np.random.default_rng(seed)

    def lu(a: float, b: float) -> float:
        return float(np.exp(rng.uniform(math.log(a), math.log(b))))

    for i in range(n):
        pmin = 1e-3 if i % 2 == 0 else 1e-5
        k = int(round(lu(17, 200)))
        ph = []
        for _ in range(k):
            sg, pp = lu(0.5, 4.0), lu(pmin, 0.1)
            ph.append((sg, pp, int(min(1e6, max(1, round(lu(0.01, 20.0) / pp))))))
        out.append((f"random, p from {pmin:g}", ph, lu(1e-12, 1e-4)))
    return out


def _dpa_phases(phases: list, d: float, disc: float = 1e-3) -> float:
    from dp_accounting.pld import privacy_loss_distribution as pldm

    out = None
    for s, p, t in phases:
        pl = pldm.from_gaussian_mechanism(standard_deviation=s, sampling_prob=p,
                                          value_discretization_interval=disc).self_compose(t)
        out = pl if out is None else out.compose(pl)
    return float(out.get_epsilon_for_delta(d))


def _phases_sound_time(ph: list, d: float) -> float:
    t0 = time.perf_counter()
    gdp.dpsgd(phases=[dict(sigma=s, p=p, steps=t) for s, p, t in ph]).epsilon(d)
    return time.perf_counter() - t0


def phases(n: int, limit: float, runs: int = 3) -> None:
    print("-- runs in phases: gdp.dpsgd(phases=...) against dp-accounting at 1e-3")
    ratios = []
    for name, ph, d in _phase_lists(n):
        t0 = time.perf_counter()
        h = gdp.dpsgd(phases=[dict(sigma=s, p=p, steps=t) for s, p, t in ph])
        e = float(h.epsilon(d))
        tg = time.perf_counter() - t0
        lo, hi = (float(v) for v in h.epsilon_bounds(d))
        tb = time.perf_counter() - t0 - tg
        if runs > 1:  # (the sound answer's time: the median of the runs, each a new curve)
            tg = statistics.median([tg] + [_phases_sound_time(ph, d) for _ in range(runs - 1)])
        ve, td = _median_runs(runs, _timed, _dpa_phases, (ph, d), limit)
        if td:
            ratios.append(tg / td)
        w = (hi - lo) / hi if hi > 0 and math.isfinite(hi) else 0.0
        dpa = f"{ve:.6g} in {td:.3f} s (ratio {tg / td:.3g})" if td else str(ve)
        print(f"{name}: {len(ph)} phases, {sum(t for _, _, t in ph)} steps, delta {d:.2g}: "
              f"eps {e:.6g}, bracket {w:.3%} wide, sound {tg:.3f} s, bracket +{tb:.3f} s; "
              f"dp-accounting {dpa}", flush=True)
    if ratios:
        print(f"   median time ratio gdp/dp-accounting(1e-3) = {statistics.median(ratios):.3g}, "
              f"max {max(ratios):.3g}")


def _dpa_list(par: list, deltas: list[float], disc: float, pessimistic: bool
              ) -> list[float]:
    from dp_accounting.pld import privacy_loss_distribution as pldm

    kw = {"value_discretization_interval": disc, "pessimistic_estimate": pessimistic,
          "use_connect_dots": pessimistic}
    out = None
    for s, p in par:
        pl = pldm.from_gaussian_mechanism(standard_deviation=s, sampling_prob=p, **kw)
        out = pl if out is None else out.compose(pl)
    return [float(out.get_epsilon_for_delta(d)) for d in deltas]


def distinct(limit: float, deltas: tuple[float, ...] = (1e-10, 1e-12, 1e-13, 1e-15)) -> None:
    """Part 5: the 30 distinct subsampled Gaussians of
    ``tests/engine/data/make_heterogeneous_reference.py`` at tiny δ."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parents[1] / "tests" / "engine" / "data"))
    from make_heterogeneous_reference import heterogeneous_list

    par = heterogeneous_list()
    fs = [gdp.poisson_subsample(gdp.G_mu(1.0 / s), p) for s, p in par]
    print("-- 30 distinct subsampled Gaussians (sigma 0.4 to 10, p 1e-6 to 1), tiny delta")
    for d in deltas:
        t0 = time.perf_counter()
        h = gdp.compose_two_orders(*fs)
        e = float(h.epsilon(d))
        tg = time.perf_counter() - t0
        lo, hi = (float(v) for v in h.epsilon_bounds(d))
        tb = time.perf_counter() - t0 - tg
        print(f"delta {d:.0e}: gdp eps {e:.6g}, bracket [{lo:.6g}, {hi:.6g}] "
              f"({(hi - lo) / hi:.3%} wide), sound {tg:.3f} s, bracket +{tb:.3f} s", flush=True)
    for disc in (1e-3, 1e-4):
        for pess in (True, False):
            v, t = _timed(_dpa_list, (par, list(deltas), disc, pess), limit)
            name = "pessimistic (upper)" if pess else "optimistic (lower)"
            vals = ", ".join(f"{x:.6g}" for x in v) if t else str(v)
            took = f" in {t:.3f} s" if t else ""
            print(f"dp-accounting {disc:g} {name}: eps [{vals}]{took}", flush=True)


def floor(cfg: tuple[float, float, int, float] = (1.0, 0.01, 10_000, 1e-5),
          runs: int = 21) -> None:
    from scipy import fft as sfft

    s, p, t, d = cfg
    lengths: list[tuple[str, int]] = []
    real = {"rfft": sfft.rfft, "irfft": sfft.irfft}

    def rec(name):
        def f(x, n=None, *a, **k):
            lengths.append((name, int(n) if n is not None else int(np.shape(x)[-1])))
            return real[name](x, n, *a, **k)
        return f

    sfft.rfft, sfft.irfft = rec("rfft"), rec("irfft")
    try:
        h = gdp.dpsgd(sigma=s, p=p, steps=t)
        h.epsilon(d)
        done = len(lengths)
        # (the floor of the issue: both orders' frames, whether or not the sound answer
        # needed the second)
        h.sound.engine.answer("pess", -1, "eps", np.array([d]))
    finally:
        sfft.rfft, sfft.irfft = real["rfft"], real["irfft"]

    def med(fn) -> float:
        ts = []
        for _ in range(runs):
            t0 = time.perf_counter()
            fn()
            ts.append(time.perf_counter() - t0)
        return statistics.median(ts)

    rng = np.random.default_rng(0)
    tr = 0.0
    for name, n in lengths:
        x = rng.random(n) if name == "rfft" else real["rfft"](rng.random(n))
        tr += med(lambda x=x, n=n, name=name: real[name](x, n))
    tg = statistics.median(_gdp_sound_time(s, p, t, d) for _ in range(runs))
    print(f"-- FFT floor at {cfg}: {len(lengths)} transforms of both orders' frames "
          f"({', '.join(f'{a} {n}' for a, n in lengths)}) {tr * 1e3:.2f} ms (the sound "
          f"answer did {done} of them); sound eps {tg * 1e3:.2f} ms; ratio {tg / tr:.1f}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--limit", type=float, default=20.0)
    ap.add_argument("--runs", type=int, default=3,
                    help="runs of gdp's sound answer and of dp-accounting at 1e-3 (median)")
    ap.add_argument("--memory", type=float, default=4.0,
                    help="memory cap (GiB) of dp-accounting's finer ladder steps")
    ap.add_argument("--random", type=int, default=None, help="random configurations")
    ap.add_argument("--floor", action="store_true", help="the FFT floor only")
    ap.add_argument("--phases", action="store_true", help="runs in phases only")
    ap.add_argument("--distinct", action="store_true",
                    help="30 distinct factors at tiny delta only")
    args = ap.parse_args(argv)
    if args.floor:
        floor()
        return
    if args.phases:
        print(f"load: {os.getloadavg()}")
        phases(4 if args.quick else 10, args.limit, args.runs)
        print(f"load: {os.getloadavg()}")
        return
    if args.distinct:
        print(f"load: {os.getloadavg()}")
        distinct(args.limit)
        print(f"load: {os.getloadavg()}")
        return
    n = args.random if args.random is not None else (8 if args.quick else 24)
    print(f"load: {os.getloadavg()}")
    configs = dict(REGIMES)
    configs["random over the box"] = _random(n)
    _gdp(1.0, 0.01, 100, 1e-5)  # imports and first-use loads, not timed (the numeric
    _gdp(1.0, 0.01, 1, 1e-5)    # engine, and scipy.optimize for one step's exact bracket)
    sweep(configs, args.limit, int(args.memory * (1 << 30)), args.runs)
    mixed([10, 100, 1000] if args.quick else [10, 100, 1000, 5000])
    floor()
    phases(4 if args.quick else 10, args.limit, args.runs)
    distinct(args.limit)
    print(f"load: {os.getloadavg()}")


if __name__ == "__main__":
    main()
