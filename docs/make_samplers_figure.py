"""Draw docs/img/samplers.png (and .pdf): epsilon against epochs for one (sigma, batch,
dataset size) under each batch sampler and neighbour relation -- "what the Poisson number
hides". Also writes docs/samplers_figure.csv with the plotted numbers.

Run from the repository root: ``python docs/make_samplers_figure.py`` (about a minute).
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import numpy as np

import gdp
import gdp.plot

SIGMA, BATCH, N, DELTA = 1.0, 600, 60_000, 1e-5
EPOCHS = [1, 2, 5, 10, 20]
ROOT = Path(__file__).resolve().parents[1]

RUNS = {  # label: (sampler, neighbours)
    "Poisson, add/remove (what accountants report)": ("poisson", "add-remove"),
    "Random allocation, add/remove": ("allocation", "add-remove"),
    "Poisson, replace-one": ("poisson", "replace-one"),
    "Fixed-size, replace-one": ("fixed", "replace-one"),
    "Shuffling, zero-out": ("shuffle", "zero-out"),
}


def main() -> None:
    p = BATCH / N
    steps_per_epoch = N // BATCH
    rows = []
    cols: dict[str, list[float]] = {}
    lows: dict[str, list[float]] = {}
    for label, (sampler, nb) in RUNS.items():
        for e in EPOCHS:
            h = gdp.dpsgd(sigma=SIGMA, p=p, steps=e * steps_per_epoch, sampler=sampler,
                          neighbours=nb)
            lo, hi = h.epsilon_bounds(DELTA)
            cols.setdefault(label, []).append(float(hi))
            lows.setdefault(label, []).append(float(lo))
            rows.append({"run": label, "epochs": e, "eps_sound": float(hi),
                         "eps_lower": float(lo)})
            print(f"{label:48s} E={e:3d}  eps in [{lo:.4g}, {hi:.4g}]", file=sys.stderr)
    with gdp.plot.style("paper-2col"):  # sizes, fonts, TrueType fonts in the PDF
        draw(cols, lows)
    with open(ROOT / "docs" / "samplers_figure.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def draw(cols: dict[str, list[float]], lows: dict[str, list[float]]) -> None:
    ax = gdp.plot.compare({"k": EPOCHS, **cols}, labels={k: k for k in cols}, log_eps=True)
    colors = {line.get_label(): line.get_color() for line in ax.get_lines()}
    for label in cols:
        lo, hi = np.array(lows[label]), np.array(cols[label])
        if np.any(hi > 1.01 * lo):  # a bracket: shade down to the valid lower bound
            ax.fill_between(EPOCHS, lo, hi, color=colors[label], alpha=0.18, lw=0)
            ax.plot(EPOCHS, lo, color=colors[label], ls=":", lw=1)
    ax.set_xlabel("Epochs")
    ax.set_ylabel(r"$\varepsilon$ at $\delta = 10^{-5}$ (sound side; shaded: bracket)")
    ax.set_title(rf"DP-SGD, $\sigma = {SIGMA:g}$, batch {BATCH}, $n = {N}$",
                 fontsize="medium")
    ax.legend(loc="upper left", fontsize="small", framealpha=0.9)
    ax.figure.set_size_inches(7.0, 4.6)
    (ROOT / "docs" / "img").mkdir(exist_ok=True)
    for ext in ("png", "pdf"):
        ax.figure.savefig(ROOT / "docs" / "img" / f"samplers.{ext}", dpi=200)


if __name__ == "__main__":
    main()
