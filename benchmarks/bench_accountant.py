"""The training accountant: gdp vs Opacus's accountants and dp-accounting, side by side.

Workloads (wall-clock, best of ``--repeat``):

1. A 10⁴-step ledger (σ = 1.0, p = 0.01): the cost of one more ``step()`` (without a budget,
   with an (ε, δ) budget far away and near its edge) and of the ε read after it; against
   answering from scratch (``gdp.dpsgd`` of the whole run), dp-accounting's
   ``PLDAccountant`` (compose one more event, then ``get_epsilon``) and Opacus's RDP and PRV
   accountants (``step`` then ``get_epsilon``) when Opacus is installed.
2. ε of the MNIST runs (σ = 1.1 and 1.3, B = 256, n = 60,000, 15 epochs, δ = 1e-5) under
   both conventions: gdp's sound ε and bracket, dp-accounting's PLDAccountant, Opacus's RDP
   and PRV accountants.
3. Noise calibration: gdp.opacus.get_noise_multiplier against Opacus's get_noise_multiplier
   (RDP and PRV accountants, tolerance 0.01) for several targets; each σ's sound ε by gdp.

Run ``python benchmarks/bench_accountant.py`` (``--quick`` for a smaller run). Opacus is
optional (``pip install 'gdp-toolkit[opacus]'``); without it its columns are left out.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from typing import Any

import dp_accounting as dpa

import gdp

try:
    from opacus.accountants import PRVAccountant, RDPAccountant
    from opacus.accountants.utils import get_noise_multiplier as opacus_sigma
except ImportError:  # pragma: no cover - Opacus is optional
    PRVAccountant = RDPAccountant = opacus_sigma = None


def _best(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    best, out = math.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def _row(name: str, t: float, res: str, ref: float | None = None) -> None:
    ratio = "" if ref is None else f"{t / ref:8.2f}"
    print(f"{name:58s} {1e3 * t:11.3f} {ratio:>8s}  {res}")


def workload1(quick: bool, repeat: int) -> None:
    sigma, p, delta = 1.0, 0.01, 1e-5
    n = 1000 if quick else 10_000
    print(f"\n== one more step on a {n}-step ledger (sigma={sigma}, p={p}), eps at "
          f"delta={delta}")
    print(f"{'method':58s} {'time [ms]':>11s} {'ratio':>8s}  result")

    def ledger(**budget: Any) -> gdp.Accountant:
        acc = gdp.Accountant(**budget)
        acc.step(noise_multiplier=sigma, sample_rate=p, steps=n)
        acc.epsilon(delta)
        return acc

    acc = ledger()
    t_step, _ = _best(lambda: acc.step(noise_multiplier=sigma, sample_rate=p), repeat)
    _row("gdp Accountant.step (no budget)", t_step, "")

    def one_more() -> float:
        a = ledger()
        t0 = time.perf_counter()
        a.step(noise_multiplier=sigma, sample_rate=p)
        e = a.epsilon(delta)
        return time.perf_counter() - t0, e

    res = [one_more() for _ in range(repeat)]
    t_inc, e_inc = min(res)
    _row("gdp step + epsilon (one engine call on the grouped ledger)", t_inc, f"{e_inc:.5f}")
    t_scr, h = _best(lambda: gdp.dpsgd(sigma=sigma, p=p, steps=n + 1), repeat)
    _row("gdp.dpsgd of all steps from scratch", t_scr, f"{h.epsilon(delta):.5f}", t_inc)
    far = ledger(eps=3 * e_inc, delta=delta)
    t_far, _ = _best(lambda: far.step(noise_multiplier=sigma, sample_rate=p), repeat)
    _row("gdp step with a budget far away (RDP certificate)", t_far, "", t_inc)
    near = ledger(eps=e_inc * 1.002, delta=delta)

    def near_step() -> None:
        try:
            near.step(noise_multiplier=sigma, sample_rate=p)
        except gdp.BudgetExceeded:
            pass

    t_near, _ = _best(near_step, repeat)
    _row("gdp step with the budget at its edge (engine check)", t_near, "", t_inc)

    pld = dpa.pld.PLDAccountant()
    pld.compose(dpa.PoissonSampledDpEvent(p, dpa.GaussianDpEvent(sigma)), n)

    def pld_one() -> float:
        pld.compose(dpa.PoissonSampledDpEvent(p, dpa.GaussianDpEvent(sigma)))
        return pld.get_epsilon(delta)

    t_pld, e_pld = _best(pld_one, repeat)
    _row("dp-accounting PLDAccountant compose(1 event) + get_epsilon", t_pld, f"{e_pld:.5f}",
         t_inc)
    if RDPAccountant is not None:
        for name, cls in (("Opacus RDPAccountant", RDPAccountant),
                          ("Opacus PRVAccountant", PRVAccountant)):
            a = cls()
            a.history = [(sigma, p, n)]

            def op_one(a=a) -> float:
                a.step(noise_multiplier=sigma, sample_rate=p)
                return a.get_epsilon(delta)

            t_op, e_op = _best(op_one, repeat)
            _row(f"{name} step + get_epsilon", t_op, f"{e_op:.5f}", t_inc)


def workload2(quick: bool) -> None:
    delta = 1e-5
    print(f"\n== eps of the MNIST runs (B=256, n=60,000, 15 epochs), delta={delta}")
    print(f"{'run':34s} {'gdp sound':>10s} {'gdp bracket':>22s} {'PLD 1e-4':>9s} "
          f"{'RDP':>9s} {'PRV':>9s}")
    for sigma in (1.1, 1.3):
        for conv in ("opacus", "tf"):
            run = gdp.epochs_to_steps(epochs=15, batch_size=256, dataset_size=60_000,
                                      convention=conv)
            acc = gdp.Accountant()
            acc.step(noise_multiplier=sigma, schedule=run)
            lo, hi = acc.epsilon_bounds(delta)
            pld = dpa.pld.PLDAccountant()
            pld.compose(dpa.PoissonSampledDpEvent(run.sample_rate, dpa.GaussianDpEvent(sigma)),
                        run.steps)
            cells = [f"{pld.get_epsilon(delta):9.5f}"]
            for cls in (RDPAccountant, PRVAccountant):
                if cls is None:
                    cells.append(f"{'-':>9s}")
                    continue
                a = cls()
                a.history = [(sigma, run.sample_rate, run.steps)]
                cells.append(f"{a.get_epsilon(delta):9.5f}")
            print(f"sigma={sigma} {conv:6s} T={run.steps:5d} p={run.sample_rate:.6f} "
                  f"{acc.epsilon(delta):10.5f} [{lo:9.5f}, {hi:9.5f}] {' '.join(cells)}")


def workload3(quick: bool) -> None:
    delta = 1e-5
    p, epochs = 1 / 235, 15
    steps = 3525
    targets = (1.0, 3.0) if quick else (0.5, 1.0, 2.0, 3.0, 8.0)
    print(f"\n== noise calibration, p = 1/235, {steps} steps, delta={delta}: sigma and the "
          "sound eps gdp reports at it")
    print(f"{'target':>7s} {'gdp sigma':>10s} {'its eps':>9s} {'eps lower':>10s} "
          f"{'opacus rdp sigma':>17s} {'its eps':>9s} {'opacus prv sigma':>17s} {'its eps':>9s}")
    for target in targets:
        c = gdp.calibrate_dpsgd(p=p, steps=steps, eps=target, delta=delta)
        cells = [f"{target:7g} {c.sigma:10.5f} {c.achieved:9.5f} {c.bounds[0]:10.5f}"]
        if opacus_sigma is not None:
            for acc in ("rdp", "prv"):
                s = opacus_sigma(target_epsilon=target, target_delta=delta, sample_rate=p,
                                 epochs=epochs, accountant=acc)
                e = gdp.dpsgd(sigma=s, p=p, steps=steps).epsilon(delta)
                cells.append(f"{s:17.5f} {e:9.5f}")
        print(" ".join(cells))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    workload1(args.quick, args.repeat)
    workload2(args.quick)
    workload3(args.quick)


if __name__ == "__main__":
    main()
