"""How accurate are the CLT and Edgeworth approximations of a composition?

Tabulates, against the exact composition, for k-fold randomized response f_{eps0,0}
(eps0 in {0.01, 0.1, 0.5, 1}, k in {10, 100, 1000, 10^4}), k-fold Laplace and DP-SGD:

* the max vertical distance sup_alpha |approx(alpha) - exact(alpha)| of the CLT curve G_mu
  and of the Edgeworth curve (gdp.edgeworth, order 2);
* whether the Berry-Esseen lower/upper curves contain the exact curve (they must);
* eps at delta = 1e-5 from the exact curve, the CLT, Edgeworth and the Berry-Esseen lower
  curve (a rigorous but weak bound; inf when gamma > delta).

The exact reference for f_{eps0,0}^{(x)k} is the binomial privacy-loss law (independent of
the numeric engine); it is also compared with the numeric engine (gdp.compose / f ** k)
when that is available. Laplace and DP-SGD use the engine's two-sided bracket (the
vertical error is measured against its midpoint; the bracket width is reported).

Run:  python benchmarks/clt_accuracy.py [--quick] [--out docs/clt_accuracy.md]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np

import gdp
from gdp._numerics import lower_convex_hull
from gdp.approx.central_limit import ApproximationWarning, _dense_grid, _rr_power
from gdp.sampling.dp_sgd import dpsgd as dpsgd_exact
from gdp.sampling.subsampling import poisson_subsample

DELTA = 1e-5
GRID = _dense_grid()[1:]  # alpha in (0, 1]: at alpha = 0 every curve is 1 by definition


def _vertical(f, lo, hi):
    """sup |f - exact| on the grid; against a bracket [lo, hi], the distance to its midpoint,
    and the bracket's width."""
    a = np.asarray(f(GRID))
    lo_v = np.asarray(lo(GRID))
    hi_v = np.asarray(hi(GRID))
    return float(np.max(np.abs(a - 0.5 * (lo_v + hi_v)))), float(np.max(hi_v - lo_v))


def _contains(r, lo, hi):
    """Do the Berry-Esseen curves of ``r`` contain the exact curve, known within [lo, hi]?"""
    lo_v = np.asarray(lo(GRID))
    hi_v = np.asarray(hi(GRID))
    return bool(np.all(r.lower(GRID) <= hi_v + 1e-12) and np.all(r.upper(GRID) >= lo_v - 1e-12))


def _eps(f):
    try:
        return float(f.epsilon(DELTA))
    except Exception as exc:  # noqa: BLE001 - a benchmark reports, never stops
        return f"error: {type(exc).__name__}"


def _bracket(h):
    """(sound lower curve, optimistic upper curve) of an engine result."""
    return getattr(h, "lower", h), getattr(h, "upper", h)


def _power(f, k):
    """The exact k-fold composition from the numeric engine (``f ** k``)."""
    try:
        return f**k
    except NotImplementedError:  # composition.py not wired to the engine yet
        from gdp.engine.numeric import compose_numeric

        return compose_numeric([(f, k)])


def _engine_available():
    try:
        _power(gdp.laplace(0.5), 2)
    except (NotImplementedError, ImportError):
        return False
    return True


def _row(name, mu, gamma, approx, ew, lo, hi, r=None, note=""):
    _, width = _vertical(lo, lo, hi)
    if width > 1e-3:  # a loose optimistic side: measure against the sound side alone
        note = (note + "; " if note else "") + \
            f"bracket width {width:.2g}: errors measured to the sound (lower) curve"
        hi = lo
    clt_err, _ = _vertical(approx, lo, hi)
    ew_err, _ = _vertical(ew, lo, hi)
    return {
        "case": name, "mu": mu, "gamma": gamma, "clt_err": clt_err, "ew_err": ew_err,
        "width": width, "contains": None if r is None else _contains(r, lo, hi),
        "eps_exact": _eps(lo), "eps_clt": _eps(approx), "eps_ew": _eps(ew),
        "eps_be": "–" if r is None else _eps(r.lower), "note": note,
    }


def _edgeworth(f, k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ApproximationWarning)
        return gdp.edgeworth(f, k)


def _min_hull(e):
    """min{e, e^-1}** (largest convex minorant) of a piecewise-linear approximation: the
    add/remove-neighbour curve built from one order, as gdp.dpsgd does for the exact one."""
    inv = e.inverse()
    x = np.unique(np.concatenate([e.curve.alpha, np.asarray(inv.alpha), GRID, [0.0]]))
    y = np.minimum(e(x), inv(x))
    on = lower_convex_hull(x, y)
    a, b = x[on], y[on]
    return gdp.from_curve(a, b, name="Edgeworth, both orders")


def _clt(f, k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ApproximationWarning)
        return gdp.clt(f, k, check=False)


def randomized_response(quick, engine):
    rows = []
    for eps0 in (0.01, 0.1, 0.5, 1.0):
        for k in ((10, 100, 1000) if quick else (10, 100, 1000, 10_000)):
            f = gdp.f_eps_delta(eps0)
            r = _clt(f, k)
            exact = _rr_power(eps0, k)
            note = ""
            if engine:
                t = time.perf_counter()
                lo, hi = _bracket(_power(f, k))
                dt = time.perf_counter() - t
                below = float(np.max(np.asarray(lo(GRID)) - exact(GRID)))
                above = float(np.max(exact(GRID) - np.asarray(hi(GRID))))
                ok = below <= 1e-12 and above <= 1e-12
                note = (f"engine brackets it: {'yes' if ok else '**NO**'}, sound eps "
                        f"{_eps(lo):.5g} ({dt:.2f} s)")
            rows.append(_row(f"f_{{{eps0:g},0}}, k={k}", r.mu, r.gamma, r.approx,
                             _edgeworth(f, k), exact, exact, r, note))
    return rows


def laplace(quick):
    rows = []
    for mu in (0.1, 0.5, 1.0):
        for k in ((10, 100) if quick else (10, 100, 1000)):
            f = gdp.laplace(mu)
            r = _clt(f, k)
            lo, hi = _bracket(_power(f, k))
            rows.append(_row(f"Lap({mu:g}), k={k}", r.mu, r.gamma, r.approx,
                             _edgeworth(f, k), lo, hi, r,
                             f"optimistic eps {_eps(hi):.5g}"))
    return rows


DPSGD = [  # (sigma, p, steps)
    (1.1, 256 / 60_000, 60 * 60_000 // 256),   # MNIST-like, 60 epochs
    (0.8, 0.01, 1_000),
    (2.0, 0.01, 10_000),
    (4.0, 0.05, 2_000),
]


def dpsgd(quick):
    rows = []
    for sigma, p, T in (DPSGD[:2] if quick else DPSGD):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ApproximationWarning)
            mu = gdp.noisy_sgd_mu(sigma, p, T)
        try:
            lo, hi = _bracket(dpsgd_exact(sigma=sigma, p=p, steps=T))
        except ValueError as exc:  # the engine's memory cap; say so instead of stopping
            print(f"DP-SGD sigma={sigma}, p={p}, T={T}: engine refused: {exc}",
                  file=sys.stderr)
            continue
        # Edgeworth of the one-sided (Poisson) subsampled Gaussian composed T times, then
        # combined with its inverse like the exact curve: min{E, E^-1}**
        ew = _min_hull(_edgeworth(poisson_subsample(gdp.G_mu(1.0 / sigma), p), T))
        rows.append(_row(f"DP-SGD σ={sigma:g}, p={p:.3g}, T={T}", mu, None, gdp.G_mu(mu),
                         ew, lo, hi, None,
                         f"CLT: noisy_sgd_mu (Poisson); optimistic eps {_eps(hi):.5g}"))
    return rows


def _fmt(x, spec=".3g"):
    if isinstance(x, str):
        return x
    if x is None:
        return "–"
    if isinstance(x, bool):
        return "yes" if x else "**NO**"
    if isinstance(x, float) and math.isinf(x):
        return "inf"
    return format(x, spec)


def _below(a, b):
    return isinstance(a, float) and isinstance(b, float) and a < b * (1 - 1e-9)


def _findings(sections):
    rows = [r for _, _, rs in sections for r in rs]
    clt_under = [r["case"] for r in rows if _below(r["eps_clt"], r["eps_exact"])]
    ew_under = [r["case"] for r in rows if _below(r["eps_ew"], r["eps_exact"])]
    ew_better = sum(r["ew_err"] < r["clt_err"] for r in rows)
    ew_eps_better = sum(
        isinstance(r["eps_ew"], float) and isinstance(r["eps_clt"], float)
        and math.isfinite(r["eps_ew"])
        and abs(r["eps_ew"] - r["eps_exact"]) < abs(r["eps_clt"] - r["eps_exact"]) for r in rows)
    checked = [r for r in rows if r["contains"] is not None]
    lines = ["## Findings (computed from the tables below)", "",
             f"* The Berry–Esseen curves contain the exact curve in "
             f"{sum(r['contains'] for r in checked)} of {len(checked)} cases"
             + (" (all, as the theorem says)." if all(r["contains"] for r in checked)
                else " — **a failure: report it as a bug**."),
             f"* The CLT ε is **below** the exact ε (under-reports the privacy loss) in "
             f"{len(clt_under)} of {len(rows)} cases"
             + (": " + "; ".join(clt_under) + "." if clt_under else "."),
             f"* The Edgeworth ε is below the exact ε in {len(ew_under)} of {len(rows)} cases"
             + (": " + "; ".join(ew_under) + "." if ew_under else ".")
             + " Edgeworth is an approximation too, and it errs on either side.",
             f"* Edgeworth has the smaller max vertical error in {ew_better} of {len(rows)} cases "
             f"and the ε closer to the exact one in {ew_eps_better} of {len(rows)}.",
             "* For randomized response with small ε0 the error of both is dominated by the "
             "lattice (the exact curve is piecewise linear with k + 1 pieces), which no "
             "expansion without a continuity correction captures; Edgeworth wins when the "
             "skewness of the loss dominates (ε0 ≥ 0.5 with moderate k, or large k).",
             "* Where μ ≳ 40 the relevant type I errors are below 1e-308: the Edgeworth curve "
             "then reports ε = ∞ (its conservative truncation) and the vertical errors are "
             "≈ 0 for every method; use the exact composition there.",
             "* The Berry–Esseen lower curve starts at G_μ(γ) − γ < 1, so its δ(ε) ≥ γ for "
             "every ε: it never certifies δ = 1e-5 (ε BE = ∞). It is a check on curves, not a "
             "source of (ε, δ) guarantees.", ""]
    return lines


def render(sections, elapsed):
    out = ["# Accuracy of the CLT and Edgeworth approximations", "",
           "Generated by `python benchmarks/clt_accuracy.py` "
           f"(gdp {gdp.__version__}, {elapsed:.0f} s). Every number below is recomputed by "
           "the script; do not edit by hand.", "",
           "**Read this before using `gdp.clt` or `gdp.edgeworth` for an (ε, δ) claim.** "
           "Both are approximations, not bounds. Columns: μ and the Berry–Esseen γ of "
           "`gdp.clt`; the largest vertical distance sup over α in (0, 1] between the "
           "approximate and the exact trade-off curve (CLT = G_μ, EW = `gdp.edgeworth`, "
           "order 2); whether the Berry–Esseen lower/upper curves (`gdp.clt(...).lower`, "
           "`.upper`) contain the exact curve (they must); ε at "
           f"δ = {DELTA:g} from the exact curve, the CLT, Edgeworth, and the rigorous "
           "Berry–Esseen lower curve. An ε from the CLT **below** the exact ε (marked ↓) is "
           "the CLT under-reporting the privacy loss.", ""]
    out += _findings(sections)
    for title, note, rows in sections:
        out += [f"## {title}", "", note, "",
                "| case | μ | γ | CLT err | EW err | BE contains | ε exact | ε CLT | ε EW |"
                " ε BE | notes |",
                "|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in rows:
            eps_clt = _fmt(r["eps_clt"], ".4g") + (" ↓" if _below(r["eps_clt"], r["eps_exact"])
                                                    else "")
            eps_ew = _fmt(r["eps_ew"], ".4g") + (" ↓" if _below(r["eps_ew"], r["eps_exact"])
                                                  else "")
            gamma = "–" if r["gamma"] is None else _fmt(r["gamma"])
            out.append(
                f"| {r['case']} | {_fmt(r['mu'], '.4g')} | {gamma} | {_fmt(r['clt_err'])} | "
                f"{_fmt(r['ew_err'])} | {_fmt(r['contains'])} | {_fmt(r['eps_exact'], '.4g')} | "
                f"{eps_clt} | {eps_ew} | {_fmt(r['eps_be'], '.4g')} | {r['note']} |")
        out.append("")
    out += ["↓: ε below the exact ε (under-reports the privacy loss).", ""]
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a smaller grid (for a smoke run)")
    ap.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "docs"
                                         / "clt_accuracy.md"))
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    engine = _engine_available()
    sections = [("k-fold randomized response f_{ε0,0}",
                 "Exact: the binomial privacy-loss law (atoms at (k−2j)ε0), independent of "
                 "the numeric engine." + (" The notes column checks the engine's bracket "
                                          "against it." if engine else ""),
                 randomized_response(args.quick, engine))]
    if engine:
        sections.append(("k-fold Laplace", "Exact: the numeric engine's bracket "
                         "(`gdp.laplace(mu) ** k`); errors are measured to its midpoint "
                         "(to its sound side when the bracket is wider than 1e-3); ε exact "
                         "is the sound (upper) value.",
                         laplace(args.quick)))
    if engine:
        sections.append(("DP-SGD (Poisson subsampled Gaussian)",
                         "Exact: `gdp.dpsgd(sigma=, p=, steps=)`. CLT: `gdp.noisy_sgd_mu` "
                         "(BDLS), which has no Berry–Esseen γ (a limit theorem). Edgeworth: "
                         "`gdp.edgeworth` of the one-sided subsampled Gaussian "
                         "(`poisson_subsample`) composed T times, then min{E, E⁻¹}** like "
                         "the exact curve.",
                         dpsgd(args.quick)))
    text = render(sections, time.perf_counter() - t0)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text, encoding="utf-8")
    print(text)
    rows = [r for _, _, rs in sections for r in rs]
    return 0 if all(r["contains"] in (True, None) for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
