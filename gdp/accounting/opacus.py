r"""Opacus's ``IAccountant`` interface on gdp's ledger (``gdp.opacus``).

Theory of operation
-------------------
Opacus asks an accountant for ``step(noise_multiplier=, sample_rate=)`` after every
optimizer step (through :meth:`Accountant.get_optimizer_hook_fn`), ``get_epsilon(delta)``,
``history`` (a list of ``(noise_multiplier, sample_rate, steps)``, consecutive equal steps
merged), ``len()`` (the length of ``history``, as Opacus's own accountants answer),
``mechanism()``, ``state_dict()`` / ``load_state_dict()`` for checkpoints. :class:`Accountant`
answers them with a :class:`gdp.Accountant`: the exact tensor-product composition of the
Poisson-subsampled Gaussian steps, each order of the add/remove neighbours separately, on the
sound side (never below the true ε), where Opacus's RDP accountant is loose and its PRV
accountant reports an estimate.

Use it in a training loop::

    privacy_engine = opacus.PrivacyEngine()
    privacy_engine.accountant = gdp.opacus.Accountant()          # or Accountant(eps=, delta=)
    sigma = gdp.opacus.get_noise_multiplier(target_epsilon=3.0, target_delta=1e-5,
                                            sample_rate=1 / len(train_loader), epochs=15)
    model, optimizer, loader = privacy_engine.make_private(..., noise_multiplier=sigma)

With a budget, a step that would exceed it raises :class:`gdp.BudgetExceeded` from the
optimizer hook, *before* the parameters are updated (Opacus calls the hook ahead of the
wrapped optimizer's step), and nothing is recorded.

``history`` is the source of truth, as in Opacus (whose ``get_noise_multiplier`` assigns it
directly): the ledger is rebuilt from it whenever it changed.

When Opacus is installed, importing this module registers the class with Opacus
(``IAccountant`` virtual subclass; mechanism name ``"gdp-toolkit"`` in Opacus's registry, so
``make_private_with_epsilon`` works too, with Opacus's own 0.01-tolerance bisection).
:func:`get_noise_multiplier` is the tight replacement for Opacus's function.

Imports: :mod:`gdp.accounting` (the ledger, state, conventions, calibration); Opacus and
torch only if installed, never required.
"""

from __future__ import annotations

import copy
from collections import OrderedDict
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any

from .._validation import check_instance, check_real
from .calibrate import calibrate_dpsgd
from .conventions import epochs_to_steps
from .ledger import Accountant as _Ledger
from .state import seal

__all__ = ["Accountant", "get_noise_multiplier", "MECHANISM"]

#: the mechanism name of :class:`Accountant` (Opacus's ``"gdp"`` is its CLT accountant)
MECHANISM = "gdp-toolkit"


def _ledger_from_history(history: Any, kw: dict[str, Any]) -> _Ledger:
    """A :class:`gdp.Accountant` with the settings ``kw`` replaying an Opacus history."""
    if not isinstance(history, list | tuple):
        raise TypeError(f"`history` must be a list of (noise_multiplier, sample_rate, steps);"
                        f" got history={history!r}")
    recs = []
    for i, item in enumerate(history):
        if not isinstance(item, list | tuple) or len(item) != 3:
            raise ValueError(f"`history[{i}]` must be (noise_multiplier, sample_rate, steps);"
                             f" got {item!r}")
        recs.append({"kind": "dpsgd", "noise_multiplier": item[0], "sample_rate": item[1],
                     "steps": item[2]})
    probe = _Ledger(**kw)
    state = seal({**probe._settings(), "history": recs})
    try:
        return _Ledger.from_state_dict(state)
    except ValueError as exc:
        raise ValueError(f"`history` cannot be accounted: "
                         f"{str(exc).replace('corrupted accountant state: ', '')}") from None


class Accountant:
    r"""Opacus's ``IAccountant`` answered by gdp's exact, sound composition.

    Parameters
    ----------
    eps, delta, mu, tradeoff : optional
        A budget, as for :class:`gdp.Accountant`: a step that would exceed it raises
        :class:`gdp.BudgetExceeded` and is not recorded.
    **accuracy
        Accuracy keywords of gdp's numeric engine (``rtol``, ...).

    Examples
    --------
    >>> import gdp
    >>> acc = gdp.opacus.Accountant()
    >>> for _ in range(3525):
    ...     acc.step(noise_multiplier=1.1, sample_rate=1 / 235)
    >>> acc.history, len(acc), acc.mechanism()
    ([(1.1, 0.00425531914893617, 3525)], 1, 'gdp-toolkit')
    >>> round(acc.get_epsilon(1e-5), 4)
    1.1323
    """

    def __init__(self, *, eps: float | None = None, delta: float | None = None,
                 mu: float | None = None, tradeoff: Any = None, **accuracy: Any):
        self._kw = {k: v for k, v in (("eps", eps), ("delta", delta), ("mu", mu),
                                      ("tradeoff", tradeoff)) if v is not None}
        self._kw.update(accuracy)
        self._ledger = _Ledger(**self._kw)
        self.history: list[tuple[float, float, int]] = []
        self._synced: tuple = ()

    @classmethod
    def from_history(cls, history: Any, **settings: Any) -> Accountant:
        """An accountant holding an Opacus history (e.g. ``state["history"]`` of Opacus's
        RDP or PRV accountant), to re-account a run with gdp."""
        acc = cls(**settings)
        acc._ledger = _ledger_from_history(history, acc._kw)
        acc.history = [tuple(h) for h in history]
        acc._synced = tuple(acc.history)
        return acc

    def _sync(self) -> _Ledger:
        h = tuple(tuple(x) if isinstance(x, list) else x for x in self.history)
        if h != self._synced:
            self._ledger = _ledger_from_history(list(h), self._kw)
            self._synced = h
        return self._ledger

    @property
    def ledger(self) -> _Ledger:
        """The :class:`gdp.Accountant` behind this one (curve, bracket, GDP summary)."""
        return self._sync()

    def step(self, *, noise_multiplier: float, sample_rate: float) -> None:
        """Record one step (Opacus's call); :class:`gdp.BudgetExceeded` when over budget."""
        self._sync().step(noise_multiplier=noise_multiplier, sample_rate=sample_rate)
        s, p = float(noise_multiplier), float(sample_rate)
        if self.history and tuple(self.history[-1][:2]) == (s, p):
            self.history[-1] = (s, p, int(self.history[-1][2]) + 1)
        else:
            self.history.append((s, p, 1))
        self._synced = tuple(self.history)

    def get_epsilon(self, delta: float, *args: Any, **kwargs: Any) -> float:
        """ε at δ of the steps so far: the sound side of gdp's exact composition.

        Extra arguments are accepted and ignored, as by Opacus's accountants (Opacus passes
        its ``make_private`` keywords through)."""
        return float(self._sync().epsilon(check_real("delta", delta, lo=0.0, hi=1.0)))

    def get_privacy_spent(self, *, delta: float) -> tuple[float, float]:
        """``(eps, delta)``, the pair Opacus's RDP accountant returns (with the order)."""
        return self.get_epsilon(delta), float(delta)

    def __len__(self) -> int:
        return len(self.history)

    @classmethod
    def mechanism(cls) -> str:
        return MECHANISM

    def get_optimizer_hook_fn(self, sample_rate: float) -> Callable[[Any], None]:
        """The callback Opacus attaches to its ``DPOptimizer``: one :meth:`step` per
        optimizer step, with the optimizer's noise multiplier and ``sample_rate`` times its
        accumulated iterations (as Opacus's own accountants do)."""
        check_real("sample_rate", sample_rate, lo=0.0, hi=1.0, lo_open=True)

        def hook_fn(optim: Any) -> None:
            self.step(noise_multiplier=optim.noise_multiplier,
                      sample_rate=sample_rate * optim.accumulated_iterations)

        return hook_fn

    def state_dict(self, destination: Any = None) -> Any:
        """Opacus's keys ``history`` and ``mechanism``, and ``gdp``: the ledger's own
        (versioned, checksummed) state with its settings."""
        if destination is None:
            destination = OrderedDict()
        check_instance("destination", destination, MutableMapping, "a dict (or None)")
        destination["history"] = copy.deepcopy(self.history)
        destination["mechanism"] = self.mechanism()
        destination["gdp"] = self._sync().state_dict()
        return destination

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        """Load a state written by :meth:`state_dict`; a state of another accountant
        (Opacus's ``"rdp"``, ``"prv"``, ...), a corrupted one, or one whose settings differ
        raises ``ValueError`` and changes nothing."""
        check_instance("state_dict", state_dict, Mapping, "a dict (an accountant's state)")
        if not state_dict:
            raise ValueError("`state_dict` must not be empty; got state_dict={}")
        mech = state_dict.get("mechanism")
        if mech != MECHANISM:
            raise ValueError(f"a state_dict of mechanism {mech!r} cannot be loaded into "
                             f"gdp's accountant (mechanism {MECHANISM!r}); to re-account "
                             "its history with gdp use gdp.opacus.Accountant.from_history("
                             "state['history'])")
        missing = [k for k in ("history", "gdp") if k not in state_dict]
        if missing:
            raise ValueError(f"the state dict lacks the keys {missing}; it cannot be loaded")
        ledger = _Ledger(**self._kw)
        ledger.load_state_dict(state_dict["gdp"])
        history = [tuple(h) for h in state_dict["history"]]
        if _ledger_from_history(history, self._kw).history != ledger.history:
            raise ValueError("corrupted state: its 'history' and its 'gdp' ledger disagree")
        self._ledger, self.history, self._synced = ledger, history, tuple(history)


def get_noise_multiplier(*, target_epsilon: float, target_delta: float, sample_rate: float,
                         epochs: float | None = None, steps: int | None = None,
                         rtol: float = 1e-3, accuracy: Mapping[str, Any] | None = None
                         ) -> float:
    r"""The smallest noise multiplier (up to a factor ``1 + rtol``) whose sound ε at
    ``target_delta`` after the run is at most ``target_epsilon``: Opacus's function, tight.

    Parameters
    ----------
    target_epsilon, target_delta : float
        The target.
    sample_rate : float
        Poisson rate (Opacus: ``1 / len(data_loader)``).
    epochs, steps
        The length of the run; ``epochs`` gives ``steps = ceil(epochs / sample_rate)``
        (a quotient within rounding of an integer counts as that integer; Opacus truncates,
        which can drop a step).
    rtol : float
        Relative precision of σ.
    accuracy : dict, optional
        Accuracy keywords of the numeric engine.

    Returns
    -------
    float
        σ, verified: ``gdp.dpsgd(sigma=σ, p=sample_rate, steps=steps).epsilon(target_delta)``
        (the very number :class:`Accountant` will report) is at most ``target_epsilon``, and
        a σ smaller by the factor ``1 + rtol`` failed the check. Opacus's bisection stops
        when its ε is within 0.01 of the target, so its σ is larger than needed.

    Examples
    --------
    >>> import gdp
    >>> s = gdp.opacus.get_noise_multiplier(target_epsilon=2.0, target_delta=1e-5,
    ...                                     sample_rate=0.01, epochs=10)
    >>> round(s, 3), gdp.dpsgd(sigma=s, p=0.01, steps=1000).epsilon(1e-5) <= 2.0
    (0.96, True)
    """
    eps = check_real("target_epsilon", target_epsilon, lo=0.0)
    delta = check_real("target_delta", target_delta, lo=0.0, hi=1.0, lo_open=True)
    p = check_real("sample_rate", sample_rate, lo=0.0, hi=1.0, lo_open=True)
    if (epochs is None) == (steps is None):
        raise TypeError("give either `epochs` or `steps`")
    if steps is None:
        steps = epochs_to_steps(epochs=epochs, sample_rate=p, convention="opacus").steps
    try:
        c = calibrate_dpsgd(p=p, steps=steps, eps=eps, delta=delta, rtol=rtol,
                            accuracy=accuracy)
    except ValueError as exc:  # a target out of reach: say which call (its argument names)
        raise ValueError(f"get_noise_multiplier(target_epsilon={eps:g}, target_delta="
                         f"{delta:g}, sample_rate={p:g}, steps={steps}): {exc}") from None
    return c.sigma


def _register_with_opacus() -> bool:
    """Make :class:`Accountant` an Opacus ``IAccountant`` and register its mechanism name,
    when Opacus is installed."""
    try:
        from opacus.accountants import IAccountant, register_accountant
    except ImportError:
        return False
    IAccountant.register(Accountant)
    register_accountant(MECHANISM, Accountant, force=True)
    return True


OPACUS_AVAILABLE: bool = _register_with_opacus()
