r"""gdp: f-differential privacy and Gaussian differential privacy in Python.

Trade-off functions are the objects; everything else is a function of them.

>>> import gdp
>>> h = gdp.G_mu(1.0) @ gdp.G_mu(2.0)
>>> h
Gaussian(mu=2.23606797749979)
"""

from __future__ import annotations

from . import mechanisms, sensitivity
from .auditing import AuditResult, audit, plot_audit
from .bounds import (
    DEFAULT_ORDERS,
    METHODS,
    BoundRecord,
    Comparison,
    EpsilonCurves,
    advanced_composition,
    advanced_delta,
    advanced_epsilon,
    basic_composition,
    compare,
    delta_from_rdp,
    eps_from_rdp,
    epsilon_vs_k,
    kairouz_composition,
    kairouz_delta,
    kairouz_epsilon,
    kov_delta,
    kov_epsilon,
    rdp_gaussian,
    rdp_laplace,
    rdp_of,
    rdp_randomized_response,
    rdp_sampled_gaussian,
)
from .calibrate import Calibration, calibrate_dpsgd, calibrate_gaussian, calibrate_sigma
from .central_limit import (
    ApproximationWarning,
    BerryEsseenLower,
    BerryEsseenUpper,
    CLTResult,
    EdgeworthApprox,
    Functionals,
    GaussianDelta,
    clt,
    clt_limit,
    edgeworth,
    eps_delta_limit,
    functionals,
    kappa2,
    kappa3,
    kappa3_bar,
    kl,
    noisy_sgd_mu,
)
from .composition import WithDelta, compose, compose_power, compose_two_orders
from .epsdelta import EpsDelta, f_eps_delta
from .gaussian import (
    G_mu,
    Gaussian,
    compose_mu,
    delta_from_mu,
    eps_from_mu,
    group_mu,
    log_delta_from_mu,
    mu_from_eps_delta,
    mu_from_sigma,
    sigma_classical,
    sigma_from_eps_delta,
    sigma_from_mu,
)
from .laplace import Laplace, laplace
from .pld import Composition, LossCurve
from .subsampling import (
    PoissonSubsampled,
    Subsampled,
    dpsgd,
    poisson_subsample,
    subsample,
)
from .tradeoff import (
    Bracketed,
    TradeOff,
    from_callable,
    from_curve,
    from_distributions,
    from_privacy_profile,
    identity,
)

__version__ = "0.1.0"

__all__ = [
    "TradeOff",
    "Bracketed",
    "identity",
    "G_mu",
    "Gaussian",
    "f_eps_delta",
    "EpsDelta",
    "laplace",
    "Laplace",
    "from_callable",
    "from_curve",
    "from_distributions",
    "from_privacy_profile",
    "compose",
    "compose_power",
    "compose_two_orders",
    "WithDelta",
    "Composition",
    "LossCurve",
    "pld",
    "dpsgd",
    "subsample",
    "poisson_subsample",
    "PoissonSubsampled",
    "Subsampled",
    "delta_from_mu",
    "log_delta_from_mu",
    "eps_from_mu",
    "mu_from_eps_delta",
    "mu_from_sigma",
    "sigma_from_mu",
    "sigma_from_eps_delta",
    "sigma_classical",
    "compose_mu",
    "group_mu",
    "basic_composition",
    "advanced_composition",
    "advanced_epsilon",
    "advanced_delta",
    "kairouz_composition",
    "kairouz_epsilon",
    "kairouz_delta",
    "kov_delta",
    "kov_epsilon",
    "DEFAULT_ORDERS",
    "rdp_gaussian",
    "rdp_laplace",
    "rdp_randomized_response",
    "rdp_sampled_gaussian",
    "rdp_of",
    "eps_from_rdp",
    "delta_from_rdp",
    "BoundRecord",
    "Comparison",
    "EpsilonCurves",
    "METHODS",
    "compare",
    "epsilon_vs_k",
    "Calibration",
    "calibrate_sigma",
    "calibrate_dpsgd",
    "calibrate_gaussian",
    "kl",
    "kappa2",
    "kappa3",
    "kappa3_bar",
    "functionals",
    "Functionals",
    "clt",
    "CLTResult",
    "BerryEsseenLower",
    "BerryEsseenUpper",
    "clt_limit",
    "eps_delta_limit",
    "GaussianDelta",
    "noisy_sgd_mu",
    "edgeworth",
    "EdgeworthApprox",
    "ApproximationWarning",
    "mechanisms",
    "sensitivity",
    "audit",
    "AuditResult",
    "plot_audit",
]


def __getattr__(name: str):
    """Load :mod:`gdp.plot` on first use (PEP 562), so ``import gdp`` needs no matplotlib."""
    if name == "plot":
        import importlib

        return importlib.import_module(".plot", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), "plot"})
