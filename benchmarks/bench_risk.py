r"""Benchmark: the issue-14 pieces (attack risk, RDP → curve, tuning, one-run audit), timed
side by side with dp-accounting where it does the same job, and the numbers they give.

Usage::

    python benchmarks/bench_risk.py            # a minute or so
    python benchmarks/bench_risk.py --quick    # smoke test

Workload and methods, all in one run (best of three timings each):

* **risk of a DP-SGD run** (σ = 1, p = 0.01, T = 1000): ``gdp.dpsgd`` once, then
  ``gdp.risk.tpr_at_fpr`` at 1e-3 and ``gdp.risk.advantage``; dp-accounting's PLD
  accountant computes ε at δ = 1e-5 for the same run (its only risk-like output).
* **RDP → curve**: ``gdp.from_rdp`` of the run's RDP curve (orders 2..64), against
  dp-accounting's RDP accountant (ε only). Reported: ε(1e-5) of the curve, of the sharp and
  of the classical conversion, and of the exact curve.
* **tuning** (base :math:`G_1`, K geometric with mean 10, Poisson mean 10): ``gdp.tuning``
  against dp-accounting's RDP accountant with ``RepeatAndSelectDpEvent``; ε(1e-5) of one
  run, of gdp's curve, of the RDP bound.
* **one-run audit** (m = 1000 canaries, 200 guesses): ``gdp.audit_one_run`` (three
  bisections of the f-DP test), with μ and ε lower bounds.

The ratios are gdp's time over dp-accounting's: the two do not compute the same thing
(gdp returns a whole curve, dp-accounting one ε), so they measure what the richer answer
costs, not who is faster at one job.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from bench_composition import _best  # best-of-n timing, shared by the benchmarks

import gdp

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import dp_accounting
    from dp_accounting import dp_event
    from dp_accounting.rdp import rdp_privacy_accountant as rdp_acc


def dpa_sgd_eps(sigma: float, p: float, steps: int) -> float:
    acc = dp_accounting.pld.PLDAccountant(value_discretization_interval=1e-3)
    acc.compose(dp_event.PoissonSampledDpEvent(p, dp_event.GaussianDpEvent(sigma)), steps)
    return acc.get_epsilon(1e-5)


def dpa_rdp_eps(sigma: float, p: float, steps: int, orders: np.ndarray) -> float:
    acc = rdp_acc.RdpAccountant(orders=list(orders))
    acc.compose(dp_event.PoissonSampledDpEvent(p, dp_event.GaussianDpEvent(sigma)), steps)
    return acc.get_epsilon(1e-5)


def dpa_tuning_eps(mean: float, shape: float) -> float:
    acc = rdp_acc.RdpAccountant(orders=list(gdp.DEFAULT_ORDERS))
    acc.compose(dp_event.RepeatAndSelectDpEvent(dp_event.GaussianDpEvent(1.0), mean, shape))
    return acc.get_epsilon(1e-5)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    n = 1 if args.quick else 3
    sigma, p, steps = 1.0, 0.01, 1000 if not args.quick else 100
    rows = []

    t_h, h = _best(lambda: gdp.dpsgd(sigma=sigma, p=p, steps=steps), n)
    t_r, risks = _best(lambda: (gdp.risk.tpr_at_fpr(h, 1e-3), gdp.risk.advantage(h)), n)
    t_d, e_dpa = _best(lambda: dpa_sgd_eps(sigma, p, steps), n)
    rows.append(("DP-SGD curve + risks", t_h + t_r, t_d,
                 f"TPR@1e-3 {risks[0]:.4g}, adv {risks[1]:.4g}, eps {h.epsilon(1e-5):.4f} "
                 f"(dp-acc PLD eps {e_dpa:.4f})"))

    orders = np.arange(2, 65)
    r = steps * gdp.rdp_sampled_gaussian(sigma, p, orders)
    t_c, f = _best(lambda: gdp.from_rdp(r, orders), n)
    t_d, e_rdp = _best(lambda: dpa_rdp_eps(sigma, p, steps, orders), n)
    rows.append(("RDP -> curve", t_c, t_d,
                 f"eps curve {f.epsilon(1e-5):.4f}, sharp {gdp.eps_from_rdp(r, 1e-5, orders):.4f},"
                 f" classical {gdp.eps_from_rdp(r, 1e-5, orders, conversion='classical'):.4f},"
                 f" exact {h.epsilon(1e-5):.4f}; TPR@1e-3 curve "
                 f"{gdp.risk.tpr_at_fpr(f, 1e-3):.4g} vs exact {risks[0]:.4g}"))

    for name, runs, shape in (("geometric(10)", gdp.geometric_runs(10), 1.0),
                              ("poisson(10)", gdp.poisson_runs(10.0), np.inf)):
        t_t, tuned = _best(lambda runs=runs: gdp.tuning(gdp.G_mu(1.0), runs), n)
        t_d, e_ps = _best(lambda shape=shape: dpa_tuning_eps(10.0, shape), n)
        rows.append((f"tuning {name}", t_t, t_d,
                     f"eps one run {gdp.G_mu(1.0).epsilon(1e-5):.4f}, gdp "
                     f"{tuned.epsilon(1e-5):.4f} (profile bound "
                     f"{tuned.profile.epsilon(1e-5):.4f}), RDP (gdp) "
                     f"{gdp.eps_from_rdp(tuned.rdp, 1e-5, tuned.orders):.4f},"
                     f" RDP (dp-acc) {e_ps:.4f}"))

    t_a, audit = _best(lambda: gdp.audit_one_run(correct=190, guesses=200, canaries=1000,
                                                   tradeoff=gdp.G_mu(1.0)), n)
    rows.append(("one-run audit", t_a, float("nan"),
                 f"violation {audit.violation}, mu_lower {audit.mu_lower:.4f}, "
                 f"eps_lower {audit.eps_lower:.4f}, SNJ pure {audit.eps_lower_pure:.4f}"))

    print(f"{'task':24s} {'gdp [s]':>9s} {'dp-acc [s]':>10s} {'ratio':>7s}  numbers")
    for task, tg, td, note in rows:
        ratio = tg / td if td == td else float("nan")
        print(f"{task:24s} {tg:9.3f} {td:10.3f} {ratio:7.2f}  {note}")


if __name__ == "__main__":
    main()
