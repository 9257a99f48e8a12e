r"""Tensor-product composition :math:`f \otimes g` (placeholder: closed-form rules only).

The numeric privacy-loss engine lands with issue 3.
"""

from __future__ import annotations

from .gaussian import Gaussian, compose_mu
from .tradeoff import Identity, TradeOff

__all__ = ["compose", "compose_power"]


def compose(*fs: TradeOff) -> TradeOff:
    """Tensor product of trade-off functions (closed forms only for now)."""
    for i, f in enumerate(fs):
        if not isinstance(f, TradeOff):
            raise TypeError(f"`fs[{i}]` must be a TradeOff; got {f!r}")
    rest = [f for f in fs if not isinstance(f, Identity)]
    if not rest:
        return Identity()
    if len(rest) == 1:
        return rest[0]
    if all(isinstance(f, Gaussian) for f in rest):
        return Gaussian(mu=compose_mu(*[f.mu for f in rest]))
    raise NotImplementedError("numeric composition is not implemented yet")


def compose_power(f: TradeOff, n: int) -> TradeOff:
    """n-fold tensor power (closed forms only for now)."""
    return compose(*([f] * n))
