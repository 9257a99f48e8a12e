r"""gdp: f-differential privacy and Gaussian differential privacy in Python.

Trade-off functions are the objects; everything else is a function of them.

>>> import gdp
>>> h = gdp.G_mu(1.0) @ gdp.G_mu(2.0)
>>> h
Gaussian(mu=2.23606797749979)
"""

from __future__ import annotations

from .composition import compose
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
]
