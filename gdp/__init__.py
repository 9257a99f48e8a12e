r"""gdp: f-differential privacy and Gaussian differential privacy in Python.

Trade-off functions are the objects; everything else is a function of them.

>>> import gdp
>>> h = gdp.G_mu(1.0) @ gdp.G_mu(2.0)
>>> h
Gaussian(mu=2.23606797749979)

Layout
------
The package is built in floors; a module imports only from its own floor or the floors
below it (``tests/test_layers.py`` checks this, function-level imports included, and that
no modules import each other in a circle):

1. ground: ``_numerics`` (log-space helpers, the lower convex hull, bracketed root finding
   and maximisation), ``_validation`` (argument checks, one message style), ``_progress``
   (the ``progress(fraction, message)`` callback of long calls);
2. ``core``: the :class:`TradeOff` abstraction, its wrappers and constructors;
3. ``families``: :math:`G_\mu`, :math:`f_{\varepsilon,\delta}`, Laplace (closed forms);
4. ``engine``: privacy-loss laws, lattice discretisation on both sides, Fourier
   composition, exact atomic compositions and the :func:`compose` dispatcher;
5. ``sampling``: subsampling, Poisson subsampling, DP-SGD, neighbour relations and batch
   samplers (fixed-size, shuffling, random allocation), user-level groups, mixtures;
6. ``approx``: functionals, the CLT, Edgeworth (labelled approximations);
7. ``bounds``: classical, KOV, RDP bounds and the comparison tables;
8. ``accounting``: calibration of the noise to a target, the accountant (a ledger with a
   budget), epochs-to-steps conventions, dp-accounting ``DpEvent``\ s; its Opacus and
   dp-accounting faces ``gdp.opacus`` and ``gdp.dpaccounting`` load on first use;
9. ``mechanisms``: mechanisms, sensitivities, the empirical auditor; ``sql``: private SQL
   with elastic sensitivity (optional extra ``[sql]``, loaded lazily);
10. ``plot``: plots and the figures of the notes (matplotlib, loaded lazily);
11. ``cli``: the ``gdp`` command.

The operators ``@`` and ``**`` of the core reach the engine through a hook the engine
registers when it is imported (:func:`gdp.core.register_engine`).

The names below are the ones a user types; the classes behind them (``Gaussian``,
``Composition``, ``LossCurve``, ``Bracketed``, ...) live in their subpackages and stay
reachable here too.
"""

from __future__ import annotations

from . import engine as _engine  # registers the composition engine with the core
from . import mechanisms
from .accounting import *
from .approx import *
from .bounds import *
from .core import *
from .engine import Composition, LossCurve, WithDelta, compose, compose_power, compose_two_orders
from .families import *
from .mechanisms import (
    AuditResult,
    OneRunAudit,
    audit,
    audit_one_run,
    one_run_guesses,
    one_run_rejects,
    sensitivity,
)
from .sampling import *

del _engine

__version__ = "0.1.0"

#: The names a user types. The classes behind them (Gaussian, Composition, LossCurve,
#: Bracketed, CLTResult, ...) live in their subpackages and are reachable here too.
__all__ = [
    # trade-off functions and their constructors
    "TradeOff", "identity", "G_mu", "f_eps_delta", "laplace", "from_callable", "from_curve",
    "from_distributions", "from_privacy_profile",
    # composition, subsampling, DP-SGD
    "compose", "compose_power", "compose_two_orders", "dpsgd", "subsample",
    "poisson_subsample", "mixture_gaussian",
    # Gaussian DP
    "delta_from_mu", "log_delta_from_mu", "eps_from_mu", "mu_from_eps_delta", "mu_from_sigma",
    "sigma_from_mu", "sigma_from_eps_delta", "sigma_classical", "compose_mu", "group_mu",
    # bounds and comparisons
    "basic_composition", "advanced_composition", "advanced_epsilon", "advanced_delta",
    "kairouz_composition", "kairouz_epsilon", "kairouz_delta", "kov_delta", "kov_epsilon",
    "rdp_gaussian", "rdp_laplace", "rdp_randomized_response", "rdp_sampled_gaussian",
    "rdp_of", "eps_from_rdp", "delta_from_rdp", "compare", "epsilon_vs_k", "from_rdp",
    "from_zcdp",
    # calibration, the accountant, conventions, DpEvents
    "calibrate_sigma", "calibrate_dpsgd", "calibrate_gaussian", "Accountant", "BudgetExceeded",
    "epochs_to_steps", "Schedule", "from_dp_event", "dp_event_to_dict", "UnsupportedEvent",
    # attack risk, hyperparameter tuning, adaptive composition
    "risk", "tuning", "compare_tuning", "rdp_tuning", "truncated_negative_binomial",
    "geometric_runs", "poisson_runs", "binomial_runs", "fixed_runs", "GaussianFilter",
    "GaussianOdometer",
    # central limit theorem and Edgeworth (approximations)
    "kl", "kappa2", "kappa3", "kappa3_bar", "functionals", "clt", "clt_limit",
    "eps_delta_limit", "noisy_sgd_mu", "edgeworth", "ApproximationWarning",
    # mechanisms, sensitivities, auditing, plots
    "mechanisms", "sensitivity", "audit", "audit_one_run", "one_run_guesses",
    "one_run_rejects", "plot", "plot_audit", "sql",
]


#: modules loaded on first use: ``gdp.sql`` (needs sqlglot), ``gdp.opacus`` (Opacus's
#: IAccountant; torch only if Opacus is installed), ``gdp.dpaccounting`` (dp-accounting's
#: PrivacyAccountant; needs dp-accounting)
_LAZY_MODULES = {"sql": ".sql", "opacus": ".accounting.opacus",
                 "dpaccounting": ".accounting.dpaccounting"}


def __getattr__(name: str):
    """Load :mod:`gdp.plot`, :mod:`gdp.sql`, ``gdp.opacus`` and ``gdp.dpaccounting`` on first
    use (PEP 562), so ``import gdp`` needs neither matplotlib, sqlglot, torch nor
    dp-accounting."""
    import importlib

    if name in ("plot", "plot_audit"):
        plot = importlib.import_module(".plot", __name__)
        return plot if name == "plot" else plot.plot_audit
    if name in _LAZY_MODULES:
        return importlib.import_module(_LAZY_MODULES[name], __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), "plot", "plot_audit", *_LAZY_MODULES})
