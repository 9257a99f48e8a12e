"""Reference ε for DP-SGD over the whole practical box, from independent accountants.

Writes ``dpsgd_reference.json`` next to this script: for each configuration (noise
multiplier σ, sampling rate p, steps T, δ) the ε of

* dp-accounting's privacy-loss distributions (``from_gaussian_mechanism``, connect-the-dots),
  pessimistic (an upper bound) and optimistic (a lower bound), at a discretisation chosen
  for the configuration (about ε/10,000, not finer than 1e-6, not coarser than 1e-3);
* prv-accountant's ``PRVAccountant`` (its lower bound, estimate and upper bound) at
  ``eps_error`` about ε/1,000;
* gdp's own two-sided bracket at ``rtol=3e-5`` (not independent: where neither library
  finishes, it is the only reference of the tightness of the default answer);

each run in a separate process with a time and a memory limit; a run that fails or runs out
of either is recorded as ``null`` (huge T with tiny steps, or tiny p with huge T, are out of
reach of both at these accuracies). The tests (tests/engine/test_reference_grid.py) check
that gdp's sound ε is never below the lower values and within 0.2% above the tight values.

Configurations: 200 drawn with a fixed seed over σ ∈ [0.4, 10], p ∈ [1e-6, 1] (half with
p ≤ 3e-3), T ∈ [1, 1e7], δ ∈ [1e-12, 1e-2] (all log-uniform), plus named ones per regime
(small p, small T, tiny δ, long T, p = 1). Run ``python tests/engine/data/make_reference.py``
(``--quick`` for the named ones only); it takes hours on a shared 2-core machine.
``--resume`` keeps the records already in the file unchanged and appends the configurations
of the seeded list that it lacks. The provenance (library versions, date, seed, limits, the
gdp commit) is stored in the file; a resumed run adds an entry to its ``extensions`` (date,
versions, how many records were appended after which index) and leaves the rest as it was.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import multiprocessing as mp
import platform
import resource
import sys
import time
from pathlib import Path

import numpy as np

OUT = Path(__file__).with_name("dpsgd_reference.json")
SEED = 20250611
N_RANDOM = 200
TIME_LIMIT = 30.0          # seconds per library run (default; ``--limit``)
_LIMITS = {"time": TIME_LIMIT}
MEMORY_LIMIT = 3 << 30     # bytes per library run

NAMED = [  # sigma, p, steps, delta, regime
    (0.8, 1e-3, 1000, 1e-5, "small p"),
    (1.28, 6.48e-4, 1486, 1e-5, "small p"),
    (1.0, 256 / 60000, 235, 1e-5, "small p"),
    (0.5395661445072627, 5.528894961464357e-4, 24, 1e-5, "small p"),
    (0.8, 1e-3, 100, 1e-5, "small p"),
    (2.0, 1e-4, 100_000, 1e-8, "small p"),
    (1.0, 0.01, 1, 1e-5, "small T"),
    (1.0, 0.01, 10, 1e-5, "small T"),
    (1.0, 0.01, 100, 1e-5, "small T"),
    (0.5, 0.5, 10, 1e-3, "small T"),
    (0.6722645446711544, 0.007027710081870188, 255, 1.59e-10, "tiny delta"),
    (1.0, 0.01, 10_000, 1e-10, "tiny delta"),
    (1.0, 0.01, 10_000, 1e-12, "tiny delta"),
    (2.0, 0.05, 3000, 1e-12, "tiny delta"),
    (1.0, 0.01, 10_000, 1e-5, "long T"),
    (5.0, 0.05, 1_000_000, 1e-10, "long T"),
    (1.0, 1e-3, 10_000_000, 1e-6, "long T"),
    (3.0, 0.02, 10_000_000, 1e-5, "long T"),
    (1.0, 1.0, 100, 1e-5, "p = 1"),
    (0.7, 1.0, 3, 1e-9, "p = 1"),
    # small answers of rarely sampled steps, where the step rule's error model fails
    # (appended with --quick --resume --limit 150: dp-accounting at 1e-6 takes up to 100 s)
    (0.9247899114334701, 2.592839452035725e-05, 124, 1.7327510459334986e-06, "small eps"),
    (0.6414894502336954, 2.2765057951074227e-05, 507, 0.0004319967107598916, "small eps"),
    (0.7032646891786893, 1.7835262577176525e-05, 9, 5.83058609344645e-07, "small eps"),
    (0.679463190461612, 7.263336790796023e-06, 2, 5.966622069606655e-06, "small eps"),
]


def configs() -> list[dict]:
    rng = np.random.default_rng(SEED)
    out = []
    for i in range(N_RANDOM):
        sigma = float(np.exp(rng.uniform(math.log(0.4), math.log(10.0))))
        if i % 2 == 0:
            p = float(np.exp(rng.uniform(math.log(1e-6), math.log(3e-3))))
        else:
            p = float(np.exp(rng.uniform(math.log(3e-3), math.log(1.0))))
        steps = int(round(math.exp(rng.uniform(0.0, math.log(1e7)))))
        delta = float(np.exp(rng.uniform(math.log(1e-12), math.log(1e-2))))
        out.append(dict(sigma=sigma, p=p, steps=max(steps, 1), delta=delta,
                        regime="random"))
    out += [dict(sigma=s, p=p, steps=t, delta=d, regime=r) for s, p, t, d, r in NAMED]
    return out


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _dpa(sigma: float, p: float, steps: int, delta: float, disc: float,
         pessimistic: bool) -> float:
    from dp_accounting.pld import privacy_loss_distribution as pldm

    pl = pldm.from_gaussian_mechanism(standard_deviation=sigma, sampling_prob=p,
                                      value_discretization_interval=disc,
                                      pessimistic_estimate=pessimistic)
    return float(pl.self_compose(steps).get_epsilon_for_delta(delta))


def _prv(sigma: float, p: float, steps: int, delta: float, err: float) -> list[float]:
    import prv_accountant as prv

    m = prv.PoissonSubsampledGaussianMechanism(noise_multiplier=sigma, sampling_probability=p)
    acc = prv.PRVAccountant(prvs=[m], max_self_compositions=[steps], eps_error=err,
                            delta_error=delta / 1000)
    return [float(v) for v in acc.compute_epsilon(delta=delta, num_self_compositions=[steps])]


def _call(q, fn, args):
    _limit()
    try:
        t0 = time.perf_counter()
        q.put(("ok", fn(*args), time.perf_counter() - t0))
    except BaseException as ex:  # noqa: BLE001 - recorded, not raised
        q.put(("error", f"{type(ex).__name__}: {ex}"[:200], None))


def _bounded(fn, *args):
    """Run ``fn(*args)`` in a child process under the time and memory limits."""
    q = mp.Queue()
    pr = mp.Process(target=_call, args=(q, fn, args))
    pr.start()
    pr.join(_LIMITS["time"])
    if pr.is_alive():
        pr.kill()
        pr.join()
        return None, "timeout"
    if q.empty():
        return None, "no result (killed)"
    status, value, secs = q.get()
    return (value, secs) if status == "ok" else (None, value)


def reference(cfg: dict) -> dict:
    import gdp

    s, p, t, d = cfg["sigma"], cfg["p"], cfg["steps"], cfg["delta"]
    try:
        est = float(gdp.dpsgd(sigma=s, p=p, steps=t).epsilon(d))
    except Exception:  # noqa: BLE001 - only used to choose the references' accuracy
        est = float(gdp.G_mu(math.sqrt(t) * p / s).epsilon(d))
    rec = dict(cfg, gdp_estimate=est)
    try:
        hf = gdp.dpsgd(sigma=s, p=p, steps=t, rtol=3e-5)
        lo, hi = hf.epsilon_bounds(d)
        rec["gdp_fine"] = dict(rtol=3e-5, lower=float(lo), upper=float(hi))
    except Exception as ex:  # noqa: BLE001 - recorded
        rec["gdp_fine"] = None
        rec["gdp_fine_failure"] = f"{type(ex).__name__}: {ex}"[:200]
    if p < 1 and math.isfinite(est) and est > 0:
        disc = min(max(est / 10_000, 1e-6), 1e-3)
        pess, info_p = _bounded(_dpa, s, p, t, d, disc, True)
        opt, info_o = _bounded(_dpa, s, p, t, d, disc, False) if pess is not None else (None, None)
        rec["dp_accounting"] = None if pess is None or opt is None else dict(
            discretization=disc, pessimistic=pess, optimistic=opt,
            seconds=info_p + info_o)
        if rec["dp_accounting"] is None:
            rec["dp_accounting_failure"] = info_p if pess is None else info_o
        err = max(est / 1000, 1e-7)
        r, info_r = _bounded(_prv, s, p, t, d, err)
        rec["prv_accountant"] = None if r is None else dict(
            eps_error=err, lower=r[0], estimate=r[1], upper=r[2], seconds=info_r)
        if r is None:
            rec["prv_accountant_failure"] = info_r
    return rec


def _gdp_commit() -> str | None:
    """The git commit of the imported gdp's checkout (``None`` outside a git checkout)."""
    import subprocess

    import gdp

    try:
        return subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=Path(gdp.__file__).parent, check=True,
            capture_output=True, text=True).stdout.strip() or None
    except (OSError, subprocess.CalledProcessError):
        return None


def _key(c: dict) -> tuple:
    return (c["sigma"], c["p"], c["steps"], c["delta"])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the named configurations only")
    ap.add_argument("--resume", action="store_true",
                    help="keep the configurations already in the file, compute the others")
    ap.add_argument("--limit", type=float, default=TIME_LIMIT,
                    help="seconds per library run (recorded in the provenance)")
    args = ap.parse_args(argv)
    _LIMITS["time"] = args.limit
    cfgs = configs()
    if args.quick:
        cfgs = [c for c in cfgs if c["regime"] != "random"]
    done: list[dict] = []
    previous: dict | None = None
    if args.resume and OUT.exists():
        previous = json.loads(OUT.read_text())
        done = previous["configurations"]
        have = {_key(c) for c in done}
        cfgs = [c for c in cfgs if _key(c) not in have]
    from importlib.metadata import version

    import dp_accounting
    import prv_accountant
    import scipy

    env = dict(
        python=platform.python_version(), numpy=np.__version__, scipy=scipy.__version__,
        dp_accounting=version("dp-accounting"), prv_accountant=version("prv-accountant"),
        gdp_commit=_gdp_commit())
    if previous is not None and cfgs:
        # the records already computed keep their provenance; the new ones are described
        # by an entry of ``extensions`` (appended after them, in the order of ``configs``)
        provenance = previous["provenance"]
        provenance.setdefault("extensions", []).append(dict(
            date=datetime.date.today().isoformat(), appended=len(cfgs),
            first_index=len(done), time_limit_s=args.limit, **env,
            note=f"appended with --resume: the {len(cfgs)} configurations of the seeded "
                 f"list missing from the file, computed after the first {len(done)} "
                 "(which are unchanged) with the same script, seed and memory limit"))
    else:
        provenance = dict(
            script="tests/engine/data/make_reference.py", date=datetime.date.today().isoformat(),
            seed=SEED, time_limit_s=args.limit, memory_limit_bytes=MEMORY_LIMIT, **env,
            note="dp-accounting: from_gaussian_mechanism(standard_deviation=sigma, "
                 "sampling_prob=p, value_discretization_interval=disc, "
                 "pessimistic_estimate=...).self_compose(steps).get_epsilon_for_delta(delta); "
                 "prv-accountant: PRVAccountant(prvs=[PoissonSubsampledGaussianMechanism("
                 "noise_multiplier=sigma, sampling_probability=p)], max_self_compositions="
                 "[steps], eps_error=err, delta_error=delta/1000).compute_epsilon(...)")
    out = dict(provenance=provenance, configurations=done)
    del dp_accounting, prv_accountant
    for i, c in enumerate(cfgs):
        t0 = time.perf_counter()
        rec = reference(c)
        out["configurations"].append(rec)
        print(f"{i + 1}/{len(cfgs)} {c} {time.perf_counter() - t0:.1f}s", file=sys.stderr,
              flush=True)
        OUT.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
