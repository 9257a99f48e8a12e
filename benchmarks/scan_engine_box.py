"""Scan the practical box for configurations the numeric engine refuses or answers badly.

Draws ``--n`` (default 320) DP-SGD configurations with a fixed seed, each coordinate
log-uniform over the box of issue 10: σ ∈ [0.4, 10], p ∈ [1e-6, 1], T ∈ [1, 1e7] (rounded to
an integer), and the value the question is asked at: δ ∈ [1e-15, 1e-2] for ``--question
epsilon`` (the default, ε at δ), ε ∈ [0.01, 30] for ``--question delta`` (δ at ε). The draws
are made one configuration at a time, so the first ``n`` configurations of a larger scan are
those of a smaller one with the same seed, and the two questions share σ, p and T
configuration by configuration.

Each configuration runs in a child process, under a time limit (``--limit``, default 20 s,
for both calls together) and a memory cap (``--memory``, default 4 GiB)::

    h = gdp.dpsgd(sigma=sigma, p=p, steps=T)
    eps = h.epsilon(delta)               # the sound answer, timed
    lower, upper = h.epsilon_bounds(delta)   # the bracket, timed separately

(with ``--question delta``: ``delta = h.delta(eps)`` and ``h.delta_bounds(eps)``), and is
reported under every category it falls in:

* ``raises``: either call raised (the exception's type and message are shown);
* ``timeout``: the child did not finish within the limit (which call was running is shown);
* ``not finite or negative`` (ε at δ): ε, the lower or the upper end is NaN, ±inf or below 0;
  ``NaN or outside [0, 1]`` (δ at ε): δ, the lower or the upper end is NaN, below 0 or
  above 1;
* ``lower > upper``: the bracket's ends are in the wrong order;
* ``eps < lower`` or ``delta < lower``: the sound answer is below the bracket's lower end
  (one of the two is wrong);
* ``slow``: the sound answer took more than ``--slow`` seconds (default 1);
* ``wide``: the bracket is wider than ``--width`` (default 0.5%). For ε, relative to its upper
  end, counted only where ε > 1e-6 (the relative width is shown); for δ, where
  upper > (1 + width) × lower, counted only where upper > 1e-300 (the ratio upper/lower is
  shown).

The gdp imported is the one on ``sys.path`` (set ``PYTHONPATH`` to choose a checkout); it is
imported and used once in the parent before the scan, so the children (forked) do not time
the imports. Prints each flagged configuration as it is found, then the counts per
category, the flagged configurations per category, and the median and maximum times. Run on a
shared machine under ``nice``; a full scan takes minutes to an hour, depending on the engine::

    nice -n 10 python benchmarks/scan_engine_box.py --n 320
    nice -n 10 python benchmarks/scan_engine_box.py --question delta --n 320
    nice -n 10 python benchmarks/scan_engine_box.py --region rare-jumps --n 40
    nice -n 10 python benchmarks/scan_engine_box.py --region rare-bulk --n 40
    nice -n 10 python benchmarks/scan_engine_box.py --region rare-bulk-large-delta --n 40
"""

from __future__ import annotations

import abc
import argparse
import math
import multiprocessing as mp
import os
import resource
import statistics
import time

import numpy as np

import gdp

BOX = dict(sigma=(0.4, 10.0), p=(1e-6, 1.0), steps=(1.0, 1e7), delta=(1e-15, 1e-2),
           eps=(0.01, 30.0))
# the corner of the box where one rarely sampled step's jump sets ε at tiny δ (the split of
# gdp.engine.jumps), which the whole box draws too rarely to see: ``--region rare-jumps``
RARE_JUMPS = dict(sigma=(0.6, 1.2), p=(1e-6, 1e-5), steps=(1e4, 1e7), delta=(1e-15, 1e-12),
                  eps=(0.01, 0.3))
# the corner where T rarely sampled steps of moderate noise (σ near 0.6) set ε through a
# bulk narrower than the lattice step with a heavy tilted tail, at δ from 1e-10 to 1e-4:
# ``--region rare-bulk``
RARE_BULK = dict(sigma=(0.45, 0.75), p=(1e-6, 1e-5), steps=(1e5, 1e7), delta=(1e-10, 1e-4),
                 eps=(0.01, 0.3))
# the same at large δ (1e-5 to 1e-2, millions of steps, σ from 0.4), where the moment
# bound's tilt weights the sampled steps' far tail and the frame's window reaches it:
# ``--region rare-bulk-large-delta``
RARE_BULK_LARGE_DELTA = dict(sigma=(0.4, 0.7), p=(1e-6, 1e-5), steps=(1e6, 1e7),
                             delta=(1e-5, 1e-2), eps=(0.01, 0.3))
REGIONS = {"box": BOX, "rare-jumps": RARE_JUMPS, "rare-bulk": RARE_BULK,
           "rare-bulk-large-delta": RARE_BULK_LARGE_DELTA}


class Question(abc.ABC):
    """What the scan asks of each configuration: ε at δ or δ at ε.

    The machinery (draws, child processes, time limits, report) is shared by the two
    questions; a question names the value drawn and the methods called, and judges the
    values they return.

    Attributes
    ----------
    name : str
        The method giving the sound answer (``"epsilon"`` or ``"delta"``); the bracket is
        given by ``name + "_bounds"``.
    given : str
        The key in ``BOX`` of the value the question is asked at.
    answer : str
        The answer's name in the output.
    warm_up : float
        The value asked at once in the parent before the scan (first-use loads, untimed).
    out_of_range : str
        The category of an answer or bracket end outside the answer's range.
    """

    name: str
    given: str
    answer: str
    warm_up: float
    out_of_range: str

    @property
    def categories(self) -> tuple[str, ...]:
        """The scan's categories, in the order reported."""
        return ("raises", "timeout", self.out_of_range, "lower > upper",
                f"{self.answer} < lower", "slow", "wide")

    @abc.abstractmethod
    def bad_value(self, v: float) -> bool:
        """Whether ``v`` (an answer or a bracket end) is outside the answer's range.

        Parameters
        ----------
        v : float
            The value.

        Returns
        -------
        bool
            ``True`` where ``v`` is NaN or cannot be an answer.
        """

    @abc.abstractmethod
    def is_wide(self, answer: float, lo: float, hi: float, width: float) -> bool:
        """Whether the bracket ``[lo, hi]`` around the sound ``answer`` is too wide.

        Parameters
        ----------
        answer : float
            The sound answer.
        lo, hi : float
            The bracket's ends.
        width : float
            The width above which the bracket is ``wide`` (``--width``).

        Returns
        -------
        bool
            ``True`` where the bracket is flagged ``wide``.
        """

    @abc.abstractmethod
    def spread(self, lo: float, hi: float) -> str:
        """How wide the bracket ``[lo, hi]`` is, as shown in the report.

        Parameters
        ----------
        lo, hi : float
            The bracket's ends.

        Returns
        -------
        str
            The measure of width the question's ``wide`` is decided on.
        """


class EpsilonAtDelta(Question):
    """ε at δ: ``h.epsilon(delta)``; the bracket's width is relative to its upper end."""

    name, given, answer, warm_up = "epsilon", "delta", "eps", 1e-5
    out_of_range = "not finite or negative"

    def bad_value(self, v: float) -> bool:
        return not math.isfinite(v) or v < 0

    def is_wide(self, answer: float, lo: float, hi: float, width: float) -> bool:
        return (math.isfinite(answer) and answer > 1e-6 and math.isfinite(hi) and hi > 0
                and (hi - lo) / hi > width)

    def spread(self, lo: float, hi: float) -> str:
        w = (hi - lo) / hi if math.isfinite(hi) and hi > 0 else float("nan")
        return f"width {w:.3%}"


class DeltaAtEps(Question):
    """δ at ε: ``h.delta(eps)``; the bracket's width is the ratio of its ends."""

    name, given, answer, warm_up = "delta", "eps", "delta", 1.0
    out_of_range = "NaN or outside [0, 1]"

    def bad_value(self, v: float) -> bool:
        return not 0.0 <= v <= 1.0  # also NaN

    def is_wide(self, answer: float, lo: float, hi: float, width: float) -> bool:
        return hi > 1e-300 and hi > (1.0 + width) * lo

    def spread(self, lo: float, hi: float) -> str:
        r = hi / lo if lo != 0 else (math.inf if hi > 0 else math.nan)
        return f"ratio {r:.6g}"


QUESTIONS = {q.name: q for q in (EpsilonAtDelta(), DeltaAtEps())}


def configurations(n: int, seed: int = 20261123, given: str = "delta",
                   region: str = "box") -> list[tuple[float, float, int, float]]:
    """``n`` seeded configurations (σ, p, T, x), each coordinate log-uniform over a region.

    Parameters
    ----------
    n : int
        Number of configurations.
    seed : int
        Seed of numpy's default generator.
    given : str
        The key in ``BOX`` of the fourth coordinate x, the value the question is asked at
        (``"delta"`` or ``"eps"``); σ, p and T do not depend on it.
    region : str
        A key of ``REGIONS``: the whole box (default) or one of its corners.

    Returns
    -------
    list of tuple
        The configurations (sigma, p, steps, x), in the order drawn.
    """
    box = REGIONS[region]
    rng = np.random.default_rng(seed)

    def draw(lo: float, hi: float) -> float:
        return float(np.exp(rng.uniform(math.log(lo), math.log(hi))))

    out = []
    for _ in range(n):
        sigma = draw(*box["sigma"])
        p = min(draw(*box["p"]), 1.0)
        steps = min(max(1, int(round(draw(*box["steps"])))), int(box["steps"][1]))
        x = draw(*box[given])
        out.append((sigma, p, steps, x))
    return out


def _child(conn, cfg: tuple[float, float, int, float], question: Question,
           memory: int | None) -> None:
    """Run one configuration, sending each result as soon as it is known."""
    s, p, t, x = cfg
    stage = "sound"
    try:
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        t0 = time.perf_counter()
        h = gdp.dpsgd(sigma=s, p=p, steps=t)
        a = float(getattr(h, question.name)(x))
        conn.send(("sound", a, time.perf_counter() - t0))
        stage = "bracket"
        t0 = time.perf_counter()
        bounds = getattr(h, f"{question.name}_bounds", None)
        if bounds is not None:
            lo, hi = (float(v) for v in bounds(x))
        else:  # an exact answer has no bracket
            lo = hi = a
        conn.send(("bracket", (lo, hi), time.perf_counter() - t0))
    except BaseException as ex:  # noqa: BLE001 - reported, not raised
        conn.send(("error", f"{stage}: {type(ex).__name__}: {ex}"[:300], None))
    finally:
        conn.close()


def run_one(cfg: tuple[float, float, int, float], question: Question, limit: float,
            memory: int | None) -> dict:
    """Run one configuration in a child process under the time limit and memory cap.

    Parameters
    ----------
    cfg : tuple
        The configuration (sigma, p, steps, x), x the value the question is asked at.
    question : Question
        The question asked.
    limit : float
        Time limit in seconds for the sound answer and the bracket together.
    memory : int or None
        Address-space cap in bytes of the child (``None``: no cap).

    Returns
    -------
    dict
        Keys ``answer`` (the sound answer), ``t_sound``, ``bracket``, ``t_bracket``
        (``None`` where not reached), ``error`` (the exception, or ``None``) and ``timeout``
        (the stage running when the limit was hit, or ``None``).
    """
    rec: dict = dict(answer=None, t_sound=None, bracket=None, t_bracket=None, error=None,
                     timeout=None)
    recv, send = mp.Pipe(duplex=False)
    pr = mp.Process(target=_child, args=(send, cfg, question, memory))
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
            rec["answer"], rec["t_sound"] = value, secs
        elif kind == "bracket":
            rec["bracket"], rec["t_bracket"] = value, secs
            break
        else:
            rec["error"] = value
            break
    if pr.is_alive() and rec["bracket"] is None and rec["error"] is None:
        pr.kill()
        rec["timeout"] = "sound" if rec["answer"] is None else "bracket"
    pr.join()
    if rec["timeout"] is None and rec["error"] is None and rec["bracket"] is None:
        rec["error"] = f"child ended without an answer (exit code {pr.exitcode})"
    recv.close()
    return rec


def categories(rec: dict, question: Question, slow: float, width: float) -> list[str]:
    """The categories of the scan that one result falls in (empty: a good answer).

    Parameters
    ----------
    rec : dict
        A result of :func:`run_one`.
    question : Question
        The question the result answers.
    slow : float
        Time in seconds above which the sound answer is ``slow``.
    width : float
        Bracket width above which the bracket is ``wide`` (see :meth:`Question.is_wide`).

    Returns
    -------
    list of str
        The names, from ``question.categories``.
    """
    out = []
    if rec["error"] is not None:
        out.append("raises")
    if rec["timeout"] is not None:
        out.append("timeout")
    a = rec["answer"]
    lo, hi = rec["bracket"] if rec["bracket"] is not None else (None, None)
    if any(question.bad_value(v) for v in (a, lo, hi) if v is not None):
        out.append(question.out_of_range)
    if lo is not None and lo > hi:
        out.append("lower > upper")
    if a is not None and lo is not None and a < lo:
        out.append(f"{question.answer} < lower")
    if rec["t_sound"] is not None and rec["t_sound"] > slow:
        out.append("slow")
    if a is not None and lo is not None and question.is_wide(a, lo, hi, width):
        out.append("wide")
    return out


def _describe(cfg: tuple[float, float, int, float], question: Question, rec: dict) -> str:
    s, p, t, x = cfg
    parts = [f"sigma={s!r}, p={p!r}, steps={t}, {question.given}={x!r}"]
    if rec["answer"] is not None:
        parts.append(f"{question.answer}={rec['answer']:.8g} ({rec['t_sound']:.3f} s)")
    if rec["bracket"] is not None:
        lo, hi = rec["bracket"]
        parts.append(f"bracket [{lo:.8g}, {hi:.8g}] {question.spread(lo, hi)} "
                     f"(+{rec['t_bracket']:.3f} s)")
    if rec["error"] is not None:
        parts.append(f"error {rec['error']}")
    if rec["timeout"] is not None:
        parts.append(f"timeout during the {rec['timeout']} call")
    return "; ".join(parts)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--question", choices=tuple(QUESTIONS), default="epsilon",
                    help="epsilon: ε at a drawn δ; delta: δ at a drawn ε")
    ap.add_argument("--n", type=int, default=320, help="number of configurations")
    ap.add_argument("--seed", type=int, default=20261123)
    ap.add_argument("--region", choices=tuple(REGIONS), default="box",
                    help="box: the whole practical box; rare-jumps: sigma in [0.6, 1.2], "
                         "p in [1e-6, 1e-5], T in [1e4, 1e7], delta in [1e-15, 1e-12] "
                         "(eps in [0.01, 0.3]); rare-bulk: sigma in [0.45, 0.75], p in "
                         "[1e-6, 1e-5], T in [1e5, 1e7], delta in [1e-10, 1e-4]; "
                         "rare-bulk-large-delta: sigma in [0.4, 0.7], T in [1e6, 1e7], delta "
                         "in [1e-5, 1e-2]")
    ap.add_argument("--limit", type=float, default=20.0,
                    help="seconds per configuration (both calls)")
    ap.add_argument("--memory", type=float, default=4.0, help="GiB per child; 0: no cap")
    ap.add_argument("--slow", type=float, default=1.0,
                    help="seconds above which the sound answer is flagged")
    ap.add_argument("--width", type=float, default=5e-3,
                    help="bracket width above which it is flagged (ε: relative to the "
                         "upper end; δ: upper/lower - 1)")
    args = ap.parse_args(argv)
    question = QUESTIONS[args.question]
    memory = int(args.memory * (1 << 30)) if args.memory > 0 else None
    mp.set_start_method("fork", force=True)
    asked = "" if question is QUESTIONS["epsilon"] else f" question={question.name}"
    asked += "" if args.region == "box" else f" region={args.region}"
    print(f"gdp from {os.path.dirname(gdp.__file__)};{asked} n={args.n} seed={args.seed} "
          f"limit={args.limit:g}s; load {os.getloadavg()}", flush=True)
    # first-use loads, untimed
    getattr(gdp.dpsgd(sigma=1.0, p=0.01, steps=100), f"{question.name}_bounds")(
        question.warm_up)
    flagged: dict[str, list[str]] = {c: [] for c in question.categories}
    t_sound, t_bracket, n_flagged = [], [], 0
    t_start = time.perf_counter()
    for i, cfg in enumerate(configurations(args.n, args.seed, question.given, args.region)):
        rec = run_one(cfg, question, args.limit, memory)
        if rec["t_sound"] is not None:
            t_sound.append(rec["t_sound"])
        if rec["t_bracket"] is not None:
            t_bracket.append(rec["t_bracket"])
        cats = categories(rec, question, args.slow, args.width)
        if cats:
            n_flagged += 1
            line = _describe(cfg, question, rec)
            for c in cats:
                flagged[c].append(line)
            print(f"[{i + 1}/{args.n}] {', '.join(cats)}: {line}", flush=True)
    print(f"\n{args.n} configurations in {time.perf_counter() - t_start:.0f} s, "
          f"{n_flagged} flagged; load {os.getloadavg()}")
    for c in question.categories:
        print(f"  {c:24s} {len(flagged[c]):4d}")

    def stats(xs: list[float]) -> str:
        return f"median {statistics.median(xs):.3f} s, max {max(xs):.3f} s" if xs else "-"

    print(f"  sound answer time ({len(t_sound)} answered): {stats(t_sound)}")
    print(f"  bracket extra time ({len(t_bracket)} answered): {stats(t_bracket)}")
    for c in question.categories:
        if flagged[c]:
            print(f"\n{c}:")
            for line in flagged[c]:
                print(f"  {line}")
    return 1 if n_flagged else 0


if __name__ == "__main__":
    raise SystemExit(main())
