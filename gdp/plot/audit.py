r"""The plot of an empirical audit: the claimed curve against the confidence boxes of the
measured type I and II errors (:func:`plot_audit`).

Imports: :mod:`gdp.mechanisms.auditing`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_instance
from ..mechanisms.auditing import AuditResult
from .base import _new_axes

__all__ = ["plot_audit"]

def plot_audit(result: AuditResult, ax: Any = None) -> Any:
    """Draw the empirical trade-off curve of an audit, its confidence band, and the claimed
    curve. Returns the matplotlib Axes (never calls ``plt.show()``).

    The band is the polygon through the upper corners :math:`(\\bar\\alpha, \\bar\\beta)`
    and the lower corners :math:`(\\underline\\alpha, \\underline\\beta)` of the
    simultaneous confidence boxes.
    """
    check_instance("result", result, AuditResult, "an AuditResult")
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(4.5, 4.5))
    else:
        ax = _new_axes(ax)
    grid = np.linspace(0.0, 1.0, 401)
    ax.plot(grid, result.tradeoff(grid), color="C0", lw=2,
            label=f"claimed ${result.tradeoff.label}$")
    ax.plot(grid, 1.0 - grid, color="0.7", lw=1, ls=":")
    if result.alpha.size:
        up_a = np.concatenate([[0.0], result.alpha_upper, [1.0]])
        up_b = np.concatenate([[1.0], result.beta_upper, [0.0]])
        lo_a = np.concatenate([[0.0], result.alpha_lower, [1.0]])
        lo_b = np.concatenate([[1.0], result.beta_lower, [0.0]])
        ax.fill(np.concatenate([up_a, lo_a[::-1]]), np.concatenate([up_b, lo_b[::-1]]),
                color="C1", alpha=0.25, lw=0,
                label=f"{result.confidence:.0%} simultaneous band")
        ax.plot(np.concatenate([[0.0], result.alpha, [1.0]]),
                np.concatenate([[1.0], result.beta, [0.0]]),
                color="C1", marker="o", ms=3, lw=1, label="empirical")
    verdict = "violation" if result.violation else "no violation"
    ax.set_title(f"audit: {verdict}, $\\varepsilon \\geq {result.eps_lower:.3g}$, "
                 f"$\\mu \\geq {result.mu_lower:.3g}$", fontsize=10)
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.set_xlabel(r"type I error $\alpha$")
    ax.set_ylabel(r"type II error $\beta$")
    ax.set_aspect("equal")
    ax.legend(loc="upper right", fontsize=8)
    return ax
