"""Composition accounting: gdp vs dp-accounting vs prv-accountant, side by side.

Workloads (ε at a fixed δ; time is wall-clock of construction + composition + query,
best of ``--repeat`` runs):

1. DP-SGD, σ = 1.0, p = 0.01, 10,000 steps, ε at δ = 1e-5 (tight value ≈ 6.1877).
   gdp: ``gdp.dpsgd`` (default accuracy; sound ε and its bracket). dp-accounting:
   connect-the-dots PLD, pessimistic, discretisation 1e-3 and 1e-4. prv-accountant:
   eps_error 0.01 (its estimate and its [lower, upper] bounds).
2. Heterogeneous: 1,000 different mechanisms (250 Gaussian, 250 Laplace, 250 randomized
   response, 250 Poisson-subsampled Gaussian with varied parameters, seeded), add/remove
   neighbours, ε at δ = 1e-6. gdp: ``gdp.compose_two_orders``; dp-accounting: sequential
   ``compose`` of the 1,000 PLDs; prv-accountant: one PRVAccountant over 1,000 PRVs.
3. The whole trade-off curve β(α) of workload 1 at 10^5 values of α. gdp: ``h(alpha)``
   (sound lower curve, exact for its lattice law). dp-accounting has no curve; as a
   reference, its profile on 2,000 values of ε turned into the supremum of the supporting
   lines (a lower curve), chunked.

Run ``python benchmarks/bench_composition.py`` (``--quick`` for a smoke run with smaller
workloads). Prints one table per workload with time and ε per library and the ratios.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import gdp

TIGHT_1 = 6.1877  # DP-SGD sigma=1, p=0.01, 10k steps, delta=1e-5 (dp-accounting 1e-5 grid)


def _best(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def _table(title: str, rows: list[tuple[str, float, str]], ref_time: float | None) -> None:
    print(f"\n== {title}")
    print(f"{'method':46s} {'time [ms]':>10s} {'ratio':>7s}  result")
    for name, t, res in rows:
        ratio = "" if ref_time is None else f"{t / ref_time:7.2f}"
        print(f"{name:46s} {1e3 * t:10.1f} {ratio:>7s}  {res}")


# ---------------------------------------------------------------------------
# workload 1
# ---------------------------------------------------------------------------
def workload1(quick: bool, repeat: int) -> None:
    sigma, p, steps, delta = 1.0, 0.01, (1000 if quick else 10_000), 1e-5
    rows = []

    def g():
        h = gdp.dpsgd(sigma=sigma, p=p, steps=steps)
        return h, h.epsilon(delta)

    t_g, (h, e_g) = _best(g, repeat)
    lo, hi = h.epsilon_bounds(delta)
    rows.append(("gdp dpsgd (sound ε; bracket)", t_g,
                 f"ε={e_g:.5f}  [{lo:.5f}, {hi:.5f}]"
                 + ("" if quick else f"  vs tight {TIGHT_1}: {100 * (e_g / TIGHT_1 - 1):+.3f}%")))
    t_fine, (hf, e_f) = _best(lambda: (lambda x: (x, x.epsilon(delta)))(
        gdp.dpsgd(sigma=sigma, p=p, steps=steps, rtol=1e-4)), 1)
    lo_f, hi_f = hf.epsilon_bounds(delta)
    rows.append(("gdp dpsgd rtol=1e-4", t_fine, f"ε={e_f:.5f}  [{lo_f:.5f}, {hi_f:.5f}]"))
    t_d = None
    try:
        from dp_accounting.pld import privacy_loss_distribution as pldm

        for disc in (1e-3, 1e-4):
            def d(disc=disc):
                pl = pldm.from_gaussian_mechanism(
                    standard_deviation=sigma, sampling_prob=p, value_discretization_interval=disc,
                    use_connect_dots=True, pessimistic_estimate=True)
                return pl.self_compose(steps).get_epsilon_for_delta(delta)

            t, e = _best(d, repeat if disc == 1e-3 else 1)
            if disc == 1e-3:
                t_d = t
            rows.append((f"dp-accounting PLD ctd, discretisation {disc:g}", t, f"ε={e:.5f}"))
    except ImportError:
        rows.append(("dp-accounting", float("nan"), "not installed"))
    try:
        from prv_accountant import PoissonSubsampledGaussianMechanism, PRVAccountant

        def r():
            m = PoissonSubsampledGaussianMechanism(noise_multiplier=sigma,
                                                    sampling_probability=p)
            acc = PRVAccountant(prvs=[m], max_self_compositions=[steps], eps_error=0.01,
                                delta_error=delta / 1000)
            return acc.compute_epsilon(delta=delta, num_self_compositions=[steps])

        t, (lo_r, est_r, hi_r) = _best(r, max(1, repeat // 3))
        rows.append(("prv-accountant eps_error 0.01", t,
                     f"ε={est_r:.5f}  [{lo_r:.5f}, {hi_r:.5f}]"))
    except ImportError:
        rows.append(("prv-accountant", float("nan"), "not installed"))
    _table(f"1. DP-SGD sigma={sigma}, p={p}, {steps} steps, eps at delta={delta} "
           "(ratio = time / gdp time)", rows, t_g)
    if t_d is not None:
        print(f"   gdp time / dp-accounting(1e-3) time = {t_g / t_d:.2f} (target <= 0.5)")


# ---------------------------------------------------------------------------
# workload 2
# ---------------------------------------------------------------------------
def _mechanisms(k: int, seed: int = 20240611) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        "gauss_mu": rng.uniform(0.01, 0.05, k),
        "lap_mu": rng.uniform(0.01, 0.05, k),
        "rr_eps": rng.uniform(0.01, 0.05, k),
        "sg_sigma": rng.uniform(0.8, 2.0, k),
        "sg_p": rng.uniform(0.001, 0.02, k),
    }


def workload2(quick: bool, repeat: int) -> None:
    k = 25 if quick else 250
    delta = 1e-6
    m = _mechanisms(k)
    rows = []

    def g():
        fs = [gdp.G_mu(x) for x in m["gauss_mu"]]
        fs += [gdp.laplace(x) for x in m["lap_mu"]]
        fs += [gdp.f_eps_delta(x) for x in m["rr_eps"]]
        fs += [gdp.poisson_subsample(gdp.G_mu(1.0 / s), q)
               for s, q in zip(m["sg_sigma"], m["sg_p"], strict=True)]
        h = gdp.compose_two_orders(*fs)
        return h, h.epsilon(delta)

    t_g, (h, e_g) = _best(g, max(1, repeat // 3))
    lo, hi = h.epsilon_bounds(delta)
    rows.append((f"gdp compose_two_orders ({4 * k} mechanisms)", t_g,
                 f"ε={e_g:.5f}  [{lo:.5f}, {hi:.5f}]"))
    try:
        from dp_accounting.pld import privacy_loss_distribution as pldm

        def d(disc=1e-4):
            pls = [pldm.from_gaussian_mechanism(standard_deviation=1.0 / x,
                                                value_discretization_interval=disc)
                   for x in m["gauss_mu"]]
            pls += [pldm.from_laplace_mechanism(parameter=1.0 / x,
                                                value_discretization_interval=disc)
                    for x in m["lap_mu"]]
            pls += [pldm.from_randomized_response(noise_parameter=2.0 / (1.0 + np.exp(x)),
                                                  num_buckets=2,
                                                  value_discretization_interval=disc)
                    for x in m["rr_eps"]]
            pls += [pldm.from_gaussian_mechanism(standard_deviation=s, sampling_prob=q,
                                                 value_discretization_interval=disc)
                    for s, q in zip(m["sg_sigma"], m["sg_p"], strict=True)]
            acc = pls[0]
            for pl in pls[1:]:
                acc = acc.compose(pl)
            return acc.get_epsilon_for_delta(delta)

        t_d, e_d = _best(d, 1)
        rows.append(("dp-accounting PLD, discretisation 1e-4", t_d, f"ε={e_d:.5f}"))
    except ImportError:
        rows.append(("dp-accounting", float("nan"), "not installed"))
    if quick:
        try:
            from prv_accountant import (
                GaussianMechanism,
                LaplaceMechanism,
                PoissonSubsampledGaussianMechanism,
                PRVAccountant,
                PureDPMechanism,
            )

            def r():
                prvs = [GaussianMechanism(noise_multiplier=1.0 / x) for x in m["gauss_mu"]]
                prvs += [LaplaceMechanism(mu=x) for x in m["lap_mu"]]
                prvs += [PureDPMechanism(eps=x) for x in m["rr_eps"]]
                prvs += [PoissonSubsampledGaussianMechanism(noise_multiplier=s,
                                                            sampling_probability=q)
                         for s, q in zip(m["sg_sigma"], m["sg_p"], strict=True)]
                acc = PRVAccountant(prvs=prvs, max_self_compositions=[1] * len(prvs),
                                    eps_error=0.01, delta_error=delta / 1000)
                return acc.compute_epsilon(delta=delta, num_self_compositions=[1] * len(prvs))

            t_r, (lo_r, est_r, hi_r) = _best(r, 1)
            rows.append(("prv-accountant eps_error 0.01", t_r,
                         f"ε={est_r:.5f}  [{lo_r:.5f}, {hi_r:.5f}]"))
        except ImportError:
            pass
    else:
        rows.append(("prv-accountant", float("nan"),
                     "skipped: one PRV per distinct mechanism (too slow at 1,000)"))
    _table(f"2. heterogeneous: {4 * k} mechanisms, eps at delta={delta} "
           "(ratio = time / gdp time)", rows, t_g)


# ---------------------------------------------------------------------------
# workload 3
# ---------------------------------------------------------------------------
def workload3(quick: bool, repeat: int) -> None:
    sigma, p, steps = 1.0, 0.01, (1000 if quick else 10_000)
    alpha = np.linspace(0.0, 1.0, 100_001)[1:]
    rows = []

    def g():
        h = gdp.dpsgd(sigma=sigma, p=p, steps=steps)
        return h(alpha)

    t_g, beta = _best(g, repeat)
    rows.append(("gdp dpsgd: h(alpha), 1e5 values", t_g,
                 f"beta(0.01)={np.interp(0.01, alpha, beta):.6f}"))
    try:
        from dp_accounting.pld import privacy_loss_distribution as pldm

        def d():
            pl = pldm.from_gaussian_mechanism(standard_deviation=sigma, sampling_prob=p,
                                              value_discretization_interval=1e-3)
            pl = pl.self_compose(steps)
            eps = np.linspace(-20.0, 20.0, 2000)
            dl = np.asarray(pl.get_delta_for_epsilon(eps))
            out = np.zeros(alpha.size)
            for i in range(0, alpha.size, 5000):
                a = alpha[i:i + 5000]
                out[i:i + 5000] = np.max(1.0 - dl[None, :] - np.exp(eps)[None, :] * a[:, None],
                                         axis=1)
            return np.maximum(out, 0.0)

        t_d, beta_d = _best(d, 1)
        rows.append(("dp-accounting 1e-3: profile on 2000 eps -> curve", t_d,
                     f"beta(0.01)={np.interp(0.01, alpha, beta_d):.6f}, max |diff| to gdp "
                     f"{np.max(np.abs(beta_d - beta)):.2e}"))
    except ImportError:
        rows.append(("dp-accounting", float("nan"), "not installed"))
    _table(f"3. trade-off curve of DP-SGD ({steps} steps) at 1e5 alphas "
           "(ratio = time / gdp time)", rows, t_g)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small workloads (smoke run)")
    ap.add_argument("--repeat", type=int, default=5, help="best of this many runs")
    ap.add_argument("--only", type=int, choices=(1, 2, 3), help="run one workload")
    args = ap.parse_args(argv)
    repeat = 1 if args.quick else args.repeat
    for i, fn in ((1, workload1), (2, workload2), (3, workload3)):
        if args.only in (None, i):
            fn(args.quick, repeat)


if __name__ == "__main__":
    main()
