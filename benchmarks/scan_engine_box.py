"""Scan the practical box for configurations the numeric engine refuses or answers badly.

Draws ``--n`` (default 320) DP-SGD configurations with a fixed seed, each coordinate
log-uniform over the box of issue 10: σ ∈ [0.4, 10], p ∈ [1e-6, 1], T ∈ [1, 1e7] (rounded to
an integer), δ ∈ [1e-15, 1e-2]. The draws are made one configuration at a time, so the first
``n`` configurations of a larger scan are those of a smaller one with the same seed.

Each configuration runs in a child process, under a time limit (``--limit``, default 20 s,
for both calls together) and a memory cap (``--memory``, default 4 GiB)::

    h = gdp.dpsgd(sigma=sigma, p=p, steps=T)
    eps = h.epsilon(delta)               # the sound answer, timed
    lower, upper = h.epsilon_bounds(delta)   # the bracket, timed separately

and is reported under every category it falls in:

* ``raises``: either call raised (the exception's type and message are shown);
* ``timeout``: the child did not finish within the limit (which call was running is shown);
* ``not finite or negative``: ε, the lower or the upper end is NaN, ±inf or below 0;
* ``lower > upper``: the bracket's ends are in the wrong order;
* ``eps < lower``: the sound ε is below the bracket's lower end (one of the two is wrong);
* ``slow``: the sound answer took more than ``--slow`` seconds (default 1);
* ``wide``: the bracket is wider than ``--width`` (default 0.5%) relative to its upper end,
  counted only where ε > 1e-6.

The gdp imported is the one on ``sys.path`` (set ``PYTHONPATH`` to choose a checkout); it is
imported and used once in the parent before the scan, so the children (forked) do not time
the imports. Prints each flagged configuration as it is found, then the counts per
category, the flagged configurations per category, and the median and maximum times. Run on a
shared machine under ``nice``; a full scan takes minutes to an hour, depending on the engine::

    nice -n 10 python benchmarks/scan_engine_box.py --n 320
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

BOX = dict(sigma=(0.4, 10.0), p=(1e-6, 1.0), steps=(1.0, 1e7), delta=(1e-15, 1e-2))
CATEGORIES = ("raises", "timeout", "not finite or negative", "lower > upper", "eps < lower",
              "slow", "wide")


def configurations(n: int, seed: int = 20261123) -> list[tuple[float, float, int, float]]:
    """``n`` seeded configurations (σ, p, T, δ), each coordinate log-uniform over the box.

    Parameters
    ----------
    n : int
        Number of configurations.
    seed : int
        Seed of numpy's default generator.

    Returns
    -------
    list of tuple
        The configurations (sigma, p, steps, delta), in the order drawn.
    """
    rng = np.random.default_rng(seed)

    def draw(lo: float, hi: float) -> float:
        return float(np.exp(rng.uniform(math.log(lo), math.log(hi))))

    out = []
    for _ in range(n):
        sigma = draw(*BOX["sigma"])
        p = min(draw(*BOX["p"]), 1.0)
        steps = min(max(1, int(round(draw(*BOX["steps"])))), int(BOX["steps"][1]))
        delta = draw(*BOX["delta"])
        out.append((sigma, p, steps, delta))
    return out


def _child(conn, cfg: tuple[float, float, int, float], memory: int | None) -> None:
    """Run one configuration, sending each result as soon as it is known."""
    s, p, t, d = cfg
    stage = "sound"
    try:
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        t0 = time.perf_counter()
        h = gdp.dpsgd(sigma=s, p=p, steps=t)
        e = float(h.epsilon(d))
        conn.send(("sound", e, time.perf_counter() - t0))
        stage = "bracket"
        t0 = time.perf_counter()
        if hasattr(h, "epsilon_bounds"):
            lo, hi = (float(v) for v in h.epsilon_bounds(d))
        else:  # an exact answer has no bracket
            lo = hi = e
        conn.send(("bracket", (lo, hi), time.perf_counter() - t0))
    except BaseException as ex:  # noqa: BLE001 - reported, not raised
        conn.send(("error", f"{stage}: {type(ex).__name__}: {ex}"[:300], None))
    finally:
        conn.close()


def run_one(cfg: tuple[float, float, int, float], limit: float,
            memory: int | None) -> dict:
    """Run one configuration in a child process under the time limit and memory cap.

    Parameters
    ----------
    cfg : tuple
        The configuration (sigma, p, steps, delta).
    limit : float
        Time limit in seconds for the sound answer and the bracket together.
    memory : int or None
        Address-space cap in bytes of the child (``None``: no cap).

    Returns
    -------
    dict
        Keys ``eps``, ``t_sound``, ``bracket``, ``t_bracket`` (``None`` where not reached),
        ``error`` (the exception, or ``None``) and ``timeout`` (the stage running when the
        limit was hit, or ``None``).
    """
    rec: dict = dict(eps=None, t_sound=None, bracket=None, t_bracket=None, error=None,
                     timeout=None)
    recv, send = mp.Pipe(duplex=False)
    pr = mp.Process(target=_child, args=(send, cfg, memory))
    pr.start()
    send.close()
    deadline = time.monotonic() + limit
    while True:  # read as results arrive, so that a late kill keeps the earlier ones
        left = deadline - time.monotonic()
        if left <= 0 or not recv.poll(left):
            break
        try:
            kind, value, secs = recv.recv()
        except EOFError:  # the child ended without a (further) message
            break
        if kind == "sound":
            rec["eps"], rec["t_sound"] = value, secs
        elif kind == "bracket":
            rec["bracket"], rec["t_bracket"] = value, secs
            break
        else:
            rec["error"] = value
            break
    if pr.is_alive() and rec["bracket"] is None and rec["error"] is None:
        pr.kill()
        rec["timeout"] = "sound" if rec["eps"] is None else "bracket"
    pr.join()
    if rec["timeout"] is None and rec["error"] is None and rec["bracket"] is None:
        rec["error"] = f"child ended without an answer (exit code {pr.exitcode})"
    recv.close()
    return rec


def categories(rec: dict, slow: float, width: float) -> list[str]:
    """The categories of the scan that one result falls in (empty: a good answer).

    Parameters
    ----------
    rec : dict
        A result of :func:`run_one`.
    slow : float
        Time in seconds above which the sound answer is ``slow``.
    width : float
        Relative bracket width (to the upper end) above which the bracket is ``wide``.

    Returns
    -------
    list of str
        The names, from ``CATEGORIES``.
    """
    out = []
    if rec["error"] is not None:
        out.append("raises")
    if rec["timeout"] is not None:
        out.append("timeout")
    e = rec["eps"]
    lo, hi = rec["bracket"] if rec["bracket"] is not None else (None, None)
    values = [v for v in (e, lo, hi) if v is not None]
    if any(not math.isfinite(v) or v < 0 for v in values):
        out.append("not finite or negative")
    if lo is not None and lo > hi:
        out.append("lower > upper")
    if e is not None and lo is not None and e < lo:
        out.append("eps < lower")
    if rec["t_sound"] is not None and rec["t_sound"] > slow:
        out.append("slow")
    if (e is not None and lo is not None and math.isfinite(e) and e > 1e-6
            and math.isfinite(hi) and hi > 0 and (hi - lo) / hi > width):
        out.append("wide")
    return out


def _describe(cfg: tuple[float, float, int, float], rec: dict) -> str:
    s, p, t, d = cfg
    parts = [f"sigma={s!r}, p={p!r}, steps={t}, delta={d!r}"]
    if rec["eps"] is not None:
        parts.append(f"eps={rec['eps']:.8g} ({rec['t_sound']:.3f} s)")
    if rec["bracket"] is not None:
        lo, hi = rec["bracket"]
        w = (hi - lo) / hi if math.isfinite(hi) and hi > 0 else float("nan")
        parts.append(f"bracket [{lo:.8g}, {hi:.8g}] width {w:.3%} (+{rec['t_bracket']:.3f} s)")
    if rec["error"] is not None:
        parts.append(f"error {rec['error']}")
    if rec["timeout"] is not None:
        parts.append(f"timeout during the {rec['timeout']} call")
    return "; ".join(parts)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=320, help="number of configurations")
    ap.add_argument("--seed", type=int, default=20261123)
    ap.add_argument("--limit", type=float, default=20.0,
                    help="seconds per configuration (both calls)")
    ap.add_argument("--memory", type=float, default=4.0, help="GiB per child; 0: no cap")
    ap.add_argument("--slow", type=float, default=1.0,
                    help="seconds above which the sound answer is flagged")
    ap.add_argument("--width", type=float, default=5e-3,
                    help="relative bracket width above which it is flagged")
    args = ap.parse_args(argv)
    memory = int(args.memory * (1 << 30)) if args.memory > 0 else None
    mp.set_start_method("fork", force=True)
    print(f"gdp from {os.path.dirname(gdp.__file__)}; n={args.n} seed={args.seed} "
          f"limit={args.limit:g}s; load {os.getloadavg()}", flush=True)
    gdp.dpsgd(sigma=1.0, p=0.01, steps=100).epsilon_bounds(1e-5)  # first-use loads, untimed
    flagged: dict[str, list[str]] = {c: [] for c in CATEGORIES}
    t_sound, t_bracket, n_flagged = [], [], 0
    t_start = time.perf_counter()
    for i, cfg in enumerate(configurations(args.n, args.seed)):
        rec = run_one(cfg, args.limit, memory)
        if rec["t_sound"] is not None:
            t_sound.append(rec["t_sound"])
        if rec["t_bracket"] is not None:
            t_bracket.append(rec["t_bracket"])
        cats = categories(rec, args.slow, args.width)
        if cats:
            n_flagged += 1
            line = _describe(cfg, rec)
            for c in cats:
                flagged[c].append(line)
            print(f"[{i + 1}/{args.n}] {', '.join(cats)}: {line}", flush=True)
    print(f"\n{args.n} configurations in {time.perf_counter() - t_start:.0f} s, "
          f"{n_flagged} flagged; load {os.getloadavg()}")
    for c in CATEGORIES:
        print(f"  {c:24s} {len(flagged[c]):4d}")

    def stats(xs: list[float]) -> str:
        return f"median {statistics.median(xs):.3f} s, max {max(xs):.3f} s" if xs else "-"

    print(f"  sound answer time ({len(t_sound)} answered): {stats(t_sound)}")
    print(f"  bracket extra time ({len(t_bracket)} answered): {stats(t_bracket)}")
    for c in CATEGORIES:
        if flagged[c]:
            print(f"\n{c}:")
            for line in flagged[c]:
                print(f"  {line}")
    return 1 if n_flagged else 0


if __name__ == "__main__":
    raise SystemExit(main())
