"""Fuzz every public callable and every public method of the result classes with bad values.

The callables are discovered from the ``__all__`` of the package faces (so a name added later
is fuzzed automatically; it only needs a valid example call in :data:`EXAMPLES`, which the
coverage test demands). Each parameter of each callable is replaced, one at a time, by each
value of :data:`BAD`. Every such call must either

* raise ``ValueError`` or ``TypeError`` whose message names the parameter, or
* succeed (the value is valid there) with a sane result: no NaN, an empty input giving an
  empty output, in bounded time,

and values that are never valid for a kind of parameter (:func:`_must_refuse`) must be
refused. Run ``python tests/test_fuzz_public_api.py`` for a report of every outcome.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import math
import os
import re
import signal
import sys
import time
import warnings
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pytest

import gdp
from gdp import mechanisms as M
from gdp.core import TradeOff

FACES = ["gdp", "gdp.core", "gdp.families", "gdp.engine", "gdp.sampling", "gdp.approx",
         "gdp.bounds", "gdp.accounting", "gdp.accounting.opacus", "gdp.accounting.dpaccounting",
         "gdp.accounting.risk", "gdp.mechanisms", "gdp.mechanisms.sensitivity", "gdp.plot"]
#: names defined by several faces: the face's last word prefixes them (but for the first)
SHARED = ("Gaussian", "Laplace", "compare", "clt", "Accountant")

#: names that are not callables a user calls with data: abstract bases, a warning class,
#: constants
NOT_FUZZED = {"TradeOff", "Derived", "Delegating", "LocationFamily", "Law", "Mechanism",
              "ApproximationWarning", "BudgetExceeded", "UnsupportedEvent"}

BAD = {
    "nan": math.nan, "inf": math.inf, "-inf": -math.inf, "-1": -1, "0": 0, "1e308": 1e308,
    "5e-324": 5e-324, "str": "1", "None": None, "list": [0.5, 0.25], "2d": np.full((2, 2), 0.5),
    "empty": np.array([]), "bool": True, "complex": 1 + 1j, "10**400": 10**400,
}
#: never a valid number, whatever the parameter
NEVER_A_NUMBER = {"nan", "str", "bool", "complex", "10**400"}


def _law():
    return gdp.engine.GaussianLaw(1.0)


def _curve():
    e = math.e
    return gdp.engine.curve_from_atoms([1.0, -1.0], [1 / (1 + e), e / (1 + e)],
                                       [e / (1 + e), 1 / (1 + e)], symmetric=True)


def _audit_result():
    rng = np.random.default_rng(0)
    return gdp.audit(M.Gaussian(sensitivity=1.0, mu=1.0), 0.0, 1.0, n_samples=200, rng=rng)


def _event():
    from dp_accounting import dp_event

    return dp_event.GaussianDpEvent(1.0)


def _records():
    return gdp.compare(gdp.f_eps_delta(0.1), k=10, delta=1e-5, methods=["basic"])


def _one_run():
    return gdp.audit_one_run(correct=190, guesses=200, canaries=1000)


def _tuning_fields():
    h = gdp.tuning(gdp.G_mu(1.0), gdp.fixed_runs(3))
    return {f.name: getattr(h, f.name) for f in dataclasses.fields(h)}


G1, L1 = gdp.G_mu(1.0), gdp.laplace(1.0)

#: a valid call of every public callable: (args, kwargs); a callable may be given to build
#: them lazily (for objects that are costly or need matplotlib)
EXAMPLES: dict[str, object] = {
    "identity": ((), {}),
    "G_mu": ((1.0,), {}),
    "f_eps_delta": ((1.0, 1e-5), {}),
    "laplace": ((1.0,), {}),
    "from_callable": ((lambda a: (1 - a) ** 2,), {}),
    "from_curve": (([0.0, 0.5, 1.0], [1.0, 0.2, 0.0]), {}),
    "from_distributions": (([0.5, 0.5], [0.25, 0.75]), {}),
    "from_privacy_profile": (([0.0, 1.0], [0.5, 0.1]), {}),
    "compose": ((G1, L1), {}),
    "compose_power": ((gdp.f_eps_delta(0.5), 3), {}),
    "compose_two_orders": ((G1, L1), {}),
    "dpsgd": ((), {"sigma": 1.0, "p": 0.5, "steps": 2}),
    "subsample": ((G1, 0.1), {}),
    "poisson_subsample": ((G1, 0.1), {}),
    "delta_from_mu": ((1.0, 1.0), {}),
    "log_delta_from_mu": ((1.0, 1.0), {}),
    "eps_from_mu": ((1.0, 1e-5), {}),
    "mu_from_eps_delta": ((1.0, 1e-5), {}),
    "mu_from_sigma": ((1.0, 2.0), {}),
    "sigma_from_mu": ((1.0, 0.5), {}),
    "sigma_from_eps_delta": ((1.0, 1.0, 1e-5), {}),
    "sigma_classical": ((1.0, 0.5, 1e-5), {}),
    "compose_mu": ((1.0, 2.0), {}),
    "group_mu": ((0.5, 3), {}),
    "basic_composition": ((0.5, 1e-6, 2), {}),
    "advanced_composition": ((0.1, 1e-6, 10, 1e-5), {}),
    "advanced_epsilon": ((0.1, 1e-6, 10, 1e-4), {}),
    "advanced_delta": ((0.1, 1e-6, 10, 2.0), {}),
    "kairouz_composition": ((0.1, 1e-6, 10, 1e-5), {}),
    "kairouz_epsilon": ((0.1, 1e-6, 10, 1e-4), {}),
    "kairouz_delta": ((0.1, 1e-6, 10, 2.0), {}),
    "kov_delta": ((0.5, 1e-6, 10, 1.0), {}),
    "kov_epsilon": ((0.5, 1e-6, 10, 1e-5), {}),
    "rdp_gaussian": ((1.0, [2, 3]), {}),
    "rdp_laplace": ((1.0, [2, 3]), {}),
    "rdp_randomized_response": ((1.0, [2, 3]), {}),
    "rdp_sampled_gaussian": ((1.0, 0.1, [2, 3]), {}),
    "rdp_of": ((G1, [2, 3]), {}),
    "eps_from_rdp": (([1.0, 1.5], 1e-5, [2, 3]), {}),
    "delta_from_rdp": (([1.0, 1.5], 2.0, [2, 3]), {}),
    "compare": ((gdp.f_eps_delta(0.1),), {"k": 10, "delta": 1e-5, "methods": ["basic"]}),
    "epsilon_vs_k": ((gdp.f_eps_delta(0.1), [1, 2]), {"delta": 1e-5, "methods": ["basic"]}),
    "calibrate_sigma": ((lambda s: gdp.G_mu(1.0 / s),), {"eps": 1.0, "delta": 1e-5}),
    "calibrate_dpsgd": ((), {"p": 0.01, "steps": 10, "eps": 1.0, "delta": 1e-5,
                             "method": "clt"}),
    "calibrate_gaussian": ((), {"eps": 1.0, "delta": 1e-5}),
    "kl": ((L1,), {}), "kappa2": ((L1,), {}), "kappa3": ((L1,), {}),
    "kappa3_bar": ((L1,), {}), "functionals": ((L1,), {}),
    "clt": ((gdp.laplace(0.1), 10), {}),
    "clt_limit": ((0.5, 1.0), {}),
    "eps_delta_limit": (([0.1, 0.1, 0.1], 1e-6), {}),
    "noisy_sgd_mu": ((1.1, 0.01, 100), {}),
    "edgeworth": ((gdp.laplace(0.1), 10), {"n_grid": 201}),
    "audit": ((M.Gaussian(sensitivity=1.0, mu=1.0), 0.0, 1.0),
              {"n_samples": 200, "rng": np.random.default_rng(0)}),
    "plot_audit": (lambda: ((_audit_result(),), {})),
    # gdp.core
    "Callable1D": ((), {"fn": lambda a: 1 - a}),
    "Identity": ((), {}),
    "PiecewiseLinear": ((), {"alpha": [0.0, 0.5, 1.0], "beta": [1.0, 0.2, 0.0]}),
    "Inverse": ((), {"base": L1}),
    "Symmetrized": ((), {"base": L1}),
    "Group": ((), {"base": L1, "k": 2}),
    "Bracketed": ((), {"lower": gdp.G_mu(1.1), "upper": G1}),
    "register_engine": (lambda: ((), dict(gdp.core.tradeoff._ENGINE))),
    # gdp.families
    "EpsDelta": ((), {"eps": 1.0, "delta_": 1e-5}),
    "Gaussian": ((), {"mu": 1.0}),
    "Laplace": ((), {"mu": 1.0}),
    # gdp.engine
    "LossCurve": ((), {"alpha": [0.0, 0.5, 1.0], "beta": [1.0, 0.2, 0.0]}),
    "curve_from_atoms": (([1.0, -1.0], [0.25, 0.75], [0.75, 0.25]), {}),
    "hull_min_curves": (lambda: ((_curve(), _curve().inverse()), {})),
    "max_curves": (lambda: ((_curve(), _curve().inverse()), {})),
    "norm_cells": ((np.array([-1.0, 0.0, 1.0]),), {}),
    "GaussianLaw": ((1.0,), {}),
    "LaplaceLaw": ((1.0,), {}),
    "AtomicLaw": (([1.0, -1.0], [0.25, 0.75], [0.75, 0.25]), {}),
    "InverseLaw": (lambda: ((_law(),), {})),
    "GenericLaw": ((L1,), {}),
    "law_of": ((G1,), {}),
    "compose_numeric": (([(L1, 2)],), {}),
    "compose_numeric_two_orders": (([(L1, 2)],), {}),
    "randomized_response_power": ((1.0, 5), {}),
    "RandomizedResponsePower": ((), {"alpha": [0.0, 0.5, 1.0], "beta": [1.0, 0.2, 0.0]}),
    "LazyCurve": ((), {"thunk": _curve}),
    "GridInfo": ((), {"grid_step": 0.01, "window": (-1.0, 1.0), "n_points": 201,
                      "tail_bound": 1e-20, "roundoff": 0.0, "rel_roundoff": 0.0}),
    "Composition": ((), {"lower": gdp.G_mu(1.1), "upper": G1}),
    "Accuracy": ((), {}),
    "accuracy": ((), {"rtol": 1e-3}),
    "WithDelta": ((), {"base": G1, "delta_": 1e-3}),
    # gdp.sampling
    "SubsampledLaw": (lambda: ((_law(), 0.1), {})),
    "PoissonSubsampled": ((), {"base": G1, "p": 0.1}),
    "Subsampled": ((), {"base": G1, "p": 0.1}),
    "check_sampler": (("poisson",), {}),
    "check_neighbours": (("add-remove",), {}),
    "SamplerBracket": ((), {"lower": gdp.G_mu(1.1), "upper": G1}),
    "ShiftMixture": (((1.0,), (0.0,), (0.9, 0.1), (0.0, 1.0)), {}),
    "ShiftMixtureLaw": (lambda: ((gdp.sampling.ShiftMixture((1.0,), (0.0,), (0.9, 0.1),
                                                            (0.0, 1.0)),), {})),
    "allocation_epoch": ((1.0, 2), {}),
    "group_gaussian_step": ((1.0, 0.1, 2), {}),
    "mixture_gaussian": ((1.0, [1.0, 0.5], [0.5, 0.5]), {}),
    "replace_one_gaussian": ((1.0, 0.1), {}),
    "replace_one_laplace": ((1.0, 0.1), {}),
    # gdp.approx
    "BerryEsseenLower": ((), {"mu": 1.0, "gamma": 0.1}),
    "BerryEsseenUpper": ((), {"mu": 1.0, "gamma": 0.1}),
    "CLTResult": ((), {"mu": 1.0, "gamma": 0.1, "kl_sum": 0.5, "kappa2_sum": 1.0,
                       "kl_sq_sum": 0.1, "kappa3_bar_sum": 0.1, "n": 10}),
    "EdgeworthApprox": (lambda: ((), {"curve": gdp.from_curve([0, 0.5, 1], [1, 0.2, 0]),
                                      "cumulants_p": (0.0, 1.0, 0.0, 0.0),
                                      "cumulants_q": (0.0, 1.0, 0.0, 0.0),
                                      "order": 2, "n": 10})),
    "Functionals": ((), {"kl": 0.1, "kappa2": 0.2, "kappa3": 0.3, "kappa3_bar": 0.4}),
    "GaussianDelta": ((), {"mu": 1.0, "delta_": 1e-5}),
    # gdp.bounds
    "BoundRecord": ((), {"method": "basic", "kind": "bound", "epsilon": 1.0, "delta": 1e-5,
                         "solved": "epsilon", "k": 10}),
    "Comparison": (lambda: ((), {"records": tuple(_records())})),
    "EpsilonCurves": ((), {"k": np.array([1.0, 2.0]), "delta": 1e-5,
                           "columns": {"basic": np.array([0.1, 0.2])}}),
    # gdp.accounting
    "Calibration": ((), {"sigma": 1.0, "criterion": "epsilon", "target": 1.0,
                         "achieved": 0.9, "delta": 1e-5}),
    "Accountant": ((), {"eps": 3.0, "delta": 1e-5}),
    "Budget": ((), {"criterion": "epsilon", "eps": 1.0, "delta": 1e-5}),
    "GdpSummary": ((), {"mu": 1.0, "kind": "approximation", "method": "clt"}),
    "Remaining": ((), {"eps": 1.0, "delta": 1e-5, "mu": None,
                       "tradeoff": gdp.f_eps_delta(1.0)}),
    "Schedule": ((), {"sample_rate": 0.01, "steps": 100, "convention": "steps"}),
    "dp_event_factors": (lambda: ((_event(),), {})),
    "dp_event_to_dict": (lambda: ((_event(),), {})),
    "epochs_to_steps": ((), {"epochs": 1.0, "convention": "tf", "batch_size": 256,
                             "dataset_size": 60000}),
    "from_dp_event": (lambda: ((_event(),), {})),
    "make_budget": ((), {"eps": 1.0, "delta": 1e-5}),
    "opacus.Accountant": ((), {"eps": 3.0, "delta": 1e-5}),
    "Admission": ((), {"mu": 0.5, "spent": 0.5, "label": "G_0.5"}),
    "GaussianFilter": ((), {"mu": 1.0}),
    "GaussianOdometer": ((), {"levels": [0.5, 1.0]}),
    "RunCount": ((), {"kind": "tnb", "params": (1.0, 0.1)}),
    "truncated_negative_binomial": ((), {"shape": 1.0, "mean": 10.0}),
    "geometric_runs": ((10.0,), {}),
    "poisson_runs": ((5.0,), {}),
    "binomial_runs": ((10, 0.5), {}),
    "fixed_runs": ((3,), {}),
    "tuning": ((G1, gdp.fixed_runs(3)), {}),
    "Tuning": (lambda: ((), _tuning_fields())),
    "rdp_tuning": (([0.5, 1.0], gdp.geometric_runs(10)), {"orders": [2, 3]}),
    "compare_tuning": ((G1, gdp.fixed_runs(3)), {"delta": 1e-5}),
    "from_rdp": (([0.5, 1.0],), {"orders": [2, 3]}),
    "from_zcdp": ((0.5,), {}),
    # gdp.risk
    "tpr_at_fpr": ((G1, 0.01), {}),
    "advantage": ((G1,), {}),
    "attack_success": ((G1,), {"prior": 0.5}),
    "reconstruction_success": ((G1, 0.01), {}),
    "reidentification_success": ((G1, 10), {}),
    "attribute_inference_success": ((G1, [0.7, 0.3]), {}),
    "certified_mu": ((L1,), {}),
    "GaussianFit": ((), {"mu": 1.0, "distance": 0.01, "alpha": 0.3, "mu_certified": 1.1}),
    "gaussian_fit": ((L1,), {}),
    "RiskCalibration": ((), {"sigma": 1.0, "steps": None, "criterion": "advantage",
                             "target": 0.1, "fpr": None, "achieved": 0.09, "bounds": None,
                             "last_failing": 0.99}),
    "calibrate_risk": ((lambda s: gdp.G_mu(1.0 / s),), {"advantage": 0.2}),
    "calibrate_gaussian_risk": ((), {"tpr": 0.05, "fpr": 0.01}),
    "calibrate_dpsgd_risk": ((), {"p": 0.5, "steps": 2, "advantage": 0.5, "rtol": 0.05}),
    "max_steps": ((), {"sigma": 2.0, "p": 0.5, "advantage": 0.5, "steps_max": 20}),
    "audit_one_run": ((), {"correct": 190, "guesses": 200, "canaries": 1000}),
    "one_run_rejects": ((G1,), {"correct": 100, "guesses": 100, "canaries": 1000}),
    "one_run_guesses": (([3.0, 0.1, 2.0, -1.0], [True, False, True, True]), {"k_plus": 2}),
    "OneRunAudit": (lambda: ((), {f.name: getattr(_one_run(), f.name)
                                  for f in dataclasses.fields(M.OneRunAudit)})),
    "roc": ((G1,), {"n": 11}),
    "roc_data": ((G1,), {"n": 11}),
    # gdp.plot styles (issue 15)
    "curve_style": ((1,), {}),
    "label_text": (("f_{0.5,0}^{\\otimes 10}",), {}),
    "rc_params": (("paper-2col",), {}),
    "style": (("paper-1col",), {}),
    "get_noise_multiplier": ((), {"target_epsilon": 2.0, "target_delta": 1e-5,
                                  "sample_rate": 0.5, "steps": 2}),
    "dpaccounting.Accountant": ((), {}),
    # gdp.mechanisms
    "mechanisms.Gaussian": ((), {"sensitivity": 1.0, "mu": 1.0}),
    "mechanisms.Laplace": ((), {"sensitivity": 1.0, "eps": 1.0}),
    "AuditResult": (lambda: ((), {f.name: getattr(_audit_result(), f.name)
                                  for f in dataclasses.fields(M.AuditResult)})),
    "sample_discrete_gaussian": ((1.0,), {"size": 3, "rng": np.random.default_rng(0)}),
    "sample_discrete_laplace": ((1.0,), {"size": 3, "rng": np.random.default_rng(0)}),
    "DiscreteGaussian": ((), {"sensitivity": 1, "sigma": 1.0}),
    "DiscreteLaplace": ((), {"sensitivity": 1, "eps": 1.0}),
    "RandomizedResponse": ((), {"k": 3, "eps": 1.0}),
    "Exponential": ((), {"utility": None, "sensitivity": 1.0, "eps": 1.0}),
    "ReportNoisyMax": ((), {"eps": 1.0}),
    # gdp.mechanisms.sensitivity
    "count": ((), {}),
    "counts": ((3,), {}),
    "histogram": ((), {}),
    "clipped_sum": ((), {"lower": 0.0, "upper": 1.0}),
    "clipped_mean": ((), {"lower": 0.0, "upper": 1.0, "n": 10}),
    "clipped_vector_sum": ((), {"clip_norm": 1.0}),
    "vector": (([1.0, 2.0],), {}),
    "norm_bound": ((1.0,), {"from_norm": 2, "to_norm": 1, "dim": 3}),
    "median_at_distance": (([1.0, 2.0, 3.0], 1), {"lower": 0.0, "upper": 5.0}),
    "median_local": (([1.0, 2.0, 3.0],), {"lower": 0.0, "upper": 5.0}),
    "median_smooth": (([1.0, 2.0, 3.0],), {"beta": 0.1, "lower": 0.0, "upper": 5.0}),
    # gdp.plot
    "PlotData": ((), {"x_name": "alpha", "x": np.array([0.0, 1.0]),
                      "columns": {"G": np.array([1.0, 0.0])}}),
    "to_csv": (lambda: ((gdp.plot.curve_data(G1, n=5), _tmp_csv()), {})),
    "mathtext": (("G_{1}",), {}),
    "compare_data": (lambda: ((_records(),), {})),
    "plot.compare": (lambda: ((_records(),), {})),
    "curve_data": ((G1,), {"n": 11}),
    "tradeoff": ((G1,), {"n": 11}),
    "profile_data": ((G1,), {"eps": [0.0, 1.0]}),
    "privacy_profile": ((G1,), {"eps": [0.0, 1.0]}),
    "plot.clt": (([gdp.laplace(0.5)] * 3,), {"n": 11, "edgeworth": False}),
}

_TMP: list[Path] = []


def _tmp_csv() -> Path:
    return _TMP[0] / "fuzz.csv"


def public_callables() -> dict[str, object]:
    """Every public callable of the package faces, once, under its shortest name."""
    found: dict[int, tuple[str, object]] = {}
    for face in FACES:
        mod = importlib.import_module(face)
        for name in mod.__all__:
            obj = getattr(mod, name)
            if inspect.ismodule(obj) or not callable(obj) or name in NOT_FUZZED:
                continue
            key = name if name not in SHARED or face == "gdp.families" or face == "gdp" \
                else f"{face.split('.')[-1]}.{name}"
            found.setdefault(id(obj), (key, obj))
    return dict(found.values())


CALLABLES = public_callables()


# ----------------------------------------------------------------------- the rules
def _params(fn: object) -> list[inspect.Parameter]:
    try:
        return list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):  # pragma: no cover - builtins
        return []


def _names_arg(msg: str, name: str) -> bool:
    """Does the message name the argument (as `name`, `name[i]`, name=... or --name)?"""
    n = re.escape(name)
    return re.search(rf"`{n}(`|\[| )|(?<![\w.]){n}=|--{n.replace('_', '-')}\b", msg) is not None


class Hang(Exception):
    pass


def _alarm(signum, frame):  # pragma: no cover - only on a hang
    raise Hang()


def _call(fn, args, kwargs, limit: float = 20.0):
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with np.errstate(all="ignore"):
                return fn(*args, **kwargs)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _nan_in(x, depth: int = 0) -> bool:
    """A NaN anywhere in a result (numbers, arrays, tuples, dataclasses, curves' hooks)."""
    if depth > 4:
        return False
    if isinstance(x, bool | str | bytes) or x is None:
        return False
    if isinstance(x, float | np.floating | complex):
        return bool(np.isnan(x))
    if isinstance(x, np.ndarray):
        return x.dtype.kind in "fc" and bool(np.isnan(x).any())
    if isinstance(x, TradeOff):
        try:
            with np.errstate(all="ignore"):
                probes = [x._f(np.array([0.0, 0.3, 1.0])), x._hockey(np.array([0.0, 1.0]))]
            return any(np.isnan(np.asarray(p, dtype=float)).any() for p in probes)
        except Exception:  # noqa: BLE001 - an accepted object that cannot answer is broken
            return True
    if isinstance(x, list | tuple):
        return any(_nan_in(v, depth + 1) for v in x)
    if isinstance(x, Mapping):
        return any(_nan_in(v, depth + 1) for v in x.values())
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        if type(x).__name__ == "EpsilonCurves":  # NaN marks a skipped method by design
            return False
        return any(_nan_in(getattr(x, f.name), depth + 1) for f in dataclasses.fields(x)
                   if not f.name.startswith("_"))
    return False


def _empty_result(x) -> bool:
    """An empty input may only be accepted when the answer is empty too."""
    if isinstance(x, np.ndarray):
        return x.size == 0
    if isinstance(x, list | tuple):
        return len(x) == 0 or any(_empty_result(v) for v in x)
    return False


#: parameter names and the bad values that can never be valid for them
PROBABILITY = {"delta", "delta_", "p", "delta0", "total_delta", "delta_slack", "gamma",
               "confidence", "tail_mass", "beta"}
NON_NEGATIVE = {"mu", "eps", "sigma", "sensitivity", "eps0", "kl_sum", "kappa2_sum", "total_eps",
                "scale", "clip_norm", "tol", "rtol", "kl", "kappa2", "kappa3_bar", "eps_max"}
COUNTS = {"k", "n", "steps", "n_grid", "n_samples", "n_check", "n_thresholds", "n_points",
          "max_points", "order", "dim", "n_outcomes"}


def _kind(value, annotation: str = "") -> str:
    if value is None and annotation:  # an optional parameter: its annotation says the kind
        for word, kind in (("TradeOff", "tradeoff"), ("bool", "bool"), ("str", "str"),
                           ("Callable", "callable"), ("Mapping", "mapping")):
            if word in annotation:
                return kind
    if isinstance(value, TradeOff):
        return "tradeoff"
    if isinstance(value, bool | np.bool_):
        return "bool"
    if isinstance(value, str):
        return "str"
    if isinstance(value, gdp.engine.Law):
        return "law"
    if isinstance(value, np.random.Generator):
        return "rng"
    if isinstance(value, Mapping):
        return "mapping"
    if isinstance(value, int | float | np.integer | np.floating):
        return "number"
    if isinstance(value, list | tuple | np.ndarray):
        return "array"
    if callable(value):
        return "callable"
    return "other"


def _must_refuse(name: str, valid, default, bad: str, annotation: str = "") -> bool:
    """Is the bad value one that can never be valid for this parameter?"""
    kind = _kind(valid, annotation)
    if bad == "None" and valid is None:
        return False  # None is the valid value of this parameter
    if bad == "None":
        return default is not None and default is not inspect.Parameter.empty or \
            (default is inspect.Parameter.empty and kind not in ("other",))
    if kind in ("tradeoff", "law", "rng", "mapping", "callable"):
        return True
    if kind == "bool":
        return bad != "bool"
    if kind == "str":
        return bad != "str"
    if bad in NEVER_A_NUMBER:
        return True
    if kind == "number" and bad in ("list", "2d", "empty") and name in COUNTS:
        return True
    base = {"ks": "k"}.get(name, name)
    if base in PROBABILITY and bad in ("inf", "-inf", "-1", "1e308"):
        return True
    if base in NON_NEGATIVE and bad in ("-inf", "-1"):
        return True
    if base in COUNTS and bad in ("inf", "-inf", "-1", "1e308", "5e-324"):
        return True
    return False


def _examples(key: str):
    ex = EXAMPLES[key]
    if callable(ex):
        ex = ex()
    args, kwargs = ex
    return tuple(args), dict(kwargs)


def outcomes(key: str, fn, args, kwargs, params: list[inspect.Parameter],
             skip: frozenset[str] = frozenset()):
    """Yield (param, bad, category, detail) for every fuzzed call of ``fn`` (``skip``: bad
    values not tried)."""
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    slots: list[tuple[str, object, object, object]] = []  # name, where, valid, default
    for i, p in enumerate(positional):
        if i < len(args):
            slots.append((p.name, ("arg", i), args[i], p.default))
        elif p.name in kwargs:
            slots.append((p.name, ("kw", p.name), kwargs[p.name], p.default))
        elif p.default is not p.empty:
            slots.append((p.name, ("kw", p.name), p.default, p.default))
    var = [p for p in params if p.kind == p.VAR_POSITIONAL]
    if var and len(args) > len(positional):
        slots.append((var[0].name, ("arg", len(positional)), args[len(positional)],
                      inspect.Parameter.empty))
    for p in params:
        if p.kind == p.KEYWORD_ONLY:
            if p.name in kwargs:
                slots.append((p.name, ("kw", p.name), kwargs[p.name], p.default))
            elif p.default is not p.empty:
                slots.append((p.name, ("kw", p.name), p.default, p.default))
    notes = {p.name: str(p.annotation) for p in params}
    for name, where, valid, default in slots:
        if name.startswith("_"):  # private fields of a dataclass are not the public API
            continue
        for bad, value in BAD.items():
            if bad in skip:
                continue
            a, kw = list(args), dict(kwargs)
            if where[0] == "arg":
                a[where[1]] = value
            else:
                kw[where[1]] = value
            t0 = time.process_time()  # CPU seconds: other jobs on a shared machine do not count
            try:
                res = _call(fn, a, kw)
            except Hang:
                yield name, bad, "hang", "no answer within 20 s"
                continue
            except (ValueError, TypeError) as exc:
                msg = str(exc)
                if _names_arg(msg, name):
                    yield name, bad, "ok-refused", msg
                else:
                    yield name, bad, "unnamed", f"{type(exc).__name__}: {msg}"
                continue
            except Exception as exc:  # noqa: BLE001 - classifying is the point
                yield name, bad, "obscure", f"{type(exc).__name__}: {exc}"
                continue
            dt = time.process_time() - t0
            if _must_refuse(name, valid, default, bad, notes.get(name, "")):
                yield name, bad, "accepted", f"returned {_short(res)}"
            elif _nan_in(res):
                yield name, bad, "nan", f"returned {_short(res)}"
            elif bad == "empty" and not _empty_result(res) and \
                    _kind(valid, notes.get(name, "")) != "other":
                yield name, bad, "accepted", f"empty input gave {_short(res)}"
            elif dt > 5.0:
                yield name, bad, "hang", f"took {dt:.1f} s"
            else:
                yield name, bad, "ok-valid", _short(res)


def _short(x) -> str:
    try:
        r = repr(x)
    except Exception as exc:  # noqa: BLE001 - a broken object is reported, not raised
        r = f"<{type(x).__name__} whose repr fails: {exc}>"
    return r if len(r) < 80 else r[:77] + "..."


FAILURES = ("unnamed", "obscure", "accepted", "nan", "hang")

#: (callable, parameter, bad value) -> why the outcome is legitimate although the generic
#: rules above flag it ("*.method" matches that method of every class)
ALLOWED: dict[tuple[str, str, str], str] = {
    ("*.hockey_stick", "eps", "-1"): "the one-order profile is defined for every real eps",
    ("compose_mu", "mus", "empty"): "an empty array adds no factor (the empty composition "
                                    "is G_0, as compose_mu() is)",
    ("CLTResult", "gamma", "1e308"): "a Berry-Esseen gamma may be any size (>= 1/2: void)",
    ("GdpSummary", "gamma", "1e308"): "the same gamma, reported",
    ("median_smooth", "beta", "1e308"): "beta is a smoothing rate: any positive number",
    ("to_csv", "path", "str"): "'1' is a valid file name",
}
ALLOWED.update({("dpaccounting.Accountant.supports", "event", bad): "dp-accounting's "
                "contract: supports() says False for anything it cannot compose" for bad in BAD})


def _allowed(key: str, name: str, bad: str) -> bool:
    return (key, name, bad) in ALLOWED or \
        (f"*.{key.rpartition('.')[2]}", name, bad) in ALLOWED


# ------------------------------------------------------------------- instances
def _instances() -> dict[str, object]:
    comp = gdp.compose(G1, L1)
    return {
        "Gaussian": G1, "EpsDelta": gdp.f_eps_delta(1.0, 1e-5), "Laplace": L1,
        "Identity": gdp.identity(), "PiecewiseLinear": gdp.from_curve([0, 0.5, 1], [1, 0.2, 0]),
        "Callable1D": gdp.from_callable(lambda a: (1 - a) ** 2),
        "Inverse": gdp.core.Inverse(base=L1), "Group": gdp.core.Group(base=L1, k=2),
        "Bracketed": gdp.core.Bracketed(lower=gdp.G_mu(1.1), upper=G1),
        "Composition": comp, "LossCurve": _curve(),
        "WithDelta": gdp.engine.WithDelta(base=G1, delta_=1e-3),
        "PoissonSubsampled": gdp.poisson_subsample(G1, 0.1),
        "Subsampled": gdp.subsample(G1, 0.1),
        "GaussianDelta": gdp.approx.GaussianDelta(mu=1.0, delta_=1e-5),
        "BerryEsseenLower": gdp.approx.BerryEsseenLower(mu=1.0, gamma=0.1),
        "BerryEsseenUpper": gdp.approx.BerryEsseenUpper(mu=1.0, gamma=0.1),
        "EdgeworthApprox": gdp.edgeworth(gdp.laplace(0.1), 10, n_grid=201),
        "CLTResult": gdp.clt(gdp.laplace(0.1), 10),
        "Comparison": _records(),
        "EpsilonCurves": gdp.epsilon_vs_k(gdp.f_eps_delta(0.1), [1, 2], delta=1e-5,
                                          methods=["basic"]),
        "mechanisms.Gaussian": M.Gaussian(sensitivity=1.0, mu=1.0),
        "mechanisms.Laplace": M.Laplace(sensitivity=1.0, eps=1.0),
        "DiscreteGaussian": M.DiscreteGaussian(sensitivity=1, sigma=1.0),
        "DiscreteLaplace": M.DiscreteLaplace(sensitivity=1, eps=1.0),
        "RandomizedResponse": M.RandomizedResponse(k=3, eps=1.0),
        "Exponential": M.Exponential(utility=None, sensitivity=1.0, eps=1.0),
        "ReportNoisyMax": M.ReportNoisyMax(eps=1.0),
        "Accountant": gdp.accounting.Accountant(eps=3.0, delta=1e-5),
        "opacus.Accountant": gdp.opacus.Accountant(eps=3.0, delta=1e-5),
        "dpaccounting.Accountant": gdp.dpaccounting.Accountant(),
        "GaussianFilter": gdp.GaussianFilter(mu=1.0),
        "GaussianOdometer": gdp.GaussianOdometer(levels=[0.5, 1.0]),
        "Tuning": gdp.tuning(G1, gdp.fixed_runs(3)),
        "RunCount": gdp.geometric_runs(10.0),
        "OneRunAudit": _one_run(),
        "GaussianFit": gdp.risk.gaussian_fit(L1),
    }


#: valid arguments of the public methods, by parameter name
METHOD_ARGS = {"alpha": 0.5, "eps": 1.0, "delta": 1e-5, "k": 2, "n": 2, "other": gdp.G_mu(2.0),
               "rtol": 1e-3, "digits": 4, "notes": True, "beta": 0.05, "category": 1,
               "rng": None, "n_outcomes": 3, "path": None, "mechanism": gdp.G_mu(0.5),
               "count": 2, "noise_multiplier": 1.1, "sample_rate": 0.01, "steps": 10,
               "text": gdp.accounting.Accountant().to_json(),
               "state": gdp.accounting.Accountant().state_dict(),
               "state_dict": gdp.opacus.Accountant().state_dict(), "history": [(1.1, 0.01, 2)],
               "target_delta": 1e-5, "target_epsilon": 1.0, "event": _event(),
               "level": 0.5, "z": 0.5, "a": 0.25, "b": 0.75}
METHOD_VALUE = {"RandomizedResponse": 1, "DiscreteGaussian": 3, "DiscreteLaplace": 3,
                "Exponential": [1.0, 2.0, 3.0], "ReportNoisyMax": [1.0, 2.0, 3.0]}
DUNDERS = ("__call__", "__matmul__", "__pow__")
#: curves answered by the generic (slow) numerics: their methods are the base class's, fuzzed
#: in full on the other families; here only with the values that must be refused
GENERIC = {"Callable1D", "Inverse", "Group", "BerryEsseenUpper", "BerryEsseenLower"}
VALID_NUMBERS = frozenset({"0", "1e308", "5e-324", "inf", "list", "2d", "-1"})


def _methods(obj) -> list[str]:
    out = []
    for name in dir(type(obj)):
        if name.startswith("_") and name not in DUNDERS:
            continue
        attr = getattr(type(obj), name, None)
        if attr is None or isinstance(attr, property) or not callable(attr) or \
                isinstance(attr, type):
            continue
        out.append(name)
    return out


def method_outcomes(label: str, obj):
    for mname in _methods(obj):
        meth = getattr(obj, mname)
        params = _params(meth)
        kwargs = {}
        args = []
        for p in params:
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                continue
            if p.name == "value":
                v = METHOD_VALUE.get(label, 0.5)
            elif p.name == "path":
                v = _TMP[0] / "m.csv"
            elif p.name in METHOD_ARGS:
                v = METHOD_ARGS[p.name]
            elif p.default is not p.empty:
                continue
            else:  # pragma: no cover - a new method needs an entry in METHOD_ARGS
                raise KeyError(f"no valid value for {label}.{mname}({p.name})")
            if p.kind == p.KEYWORD_ONLY:
                kwargs[p.name] = v
            else:
                args.append(v)
        if mname in ("__matmul__", "__pow__"):
            op = (lambda o, x=obj: x @ o) if mname == "__matmul__" else (lambda n, x=obj: x ** n)
            op.__signature__ = inspect.Signature([inspect.Parameter(
                "other" if mname == "__matmul__" else "n", inspect.Parameter.POSITIONAL_ONLY)])
            meth, params = op, _params(op)
            args = [gdp.G_mu(0.5)] if mname == "__matmul__" else [2]
        skip = VALID_NUMBERS if label in GENERIC else frozenset()
        for name, bad, cat, detail in outcomes(f"{label}.{mname}", meth, tuple(args), kwargs,
                                               params, skip):
            if mname in ("__matmul__", "__pow__") and cat == "unnamed" and \
                    ("unsupported operand" in detail or "does not support ufuncs" in detail):
                cat = "ok-refused"  # Python's (or numpy's) own message for an operator
            yield f"{label}.{mname}", name, bad, cat, detail


# ------------------------------------------------------------------------ tests
@pytest.fixture(scope="module", autouse=True)
def _tmpdir(tmp_path_factory):
    import matplotlib

    matplotlib.use("Agg", force=True)
    _TMP[:] = [tmp_path_factory.mktemp("fuzz")]
    cwd = os.getcwd()
    os.chdir(_TMP[0])  # a bad value may be a valid file name (to_csv(path="1")): write there
    with matplotlib.rc_context():  # gdp.plot.style(...) applies a style for good: undo it
        yield
    os.chdir(cwd)
    import matplotlib.pyplot as plt

    plt.close("all")


def test_every_public_callable_has_an_example():
    missing = sorted(set(CALLABLES) - set(EXAMPLES))
    assert not missing, f"add a valid example call to EXAMPLES for: {missing}"


def test_the_examples_are_valid():
    for key, fn in CALLABLES.items():
        args, kwargs = _examples(key)
        _call(fn, args, kwargs)


def _check(results):
    bad = [r for r in results if r[-2] in FAILURES and not _allowed(*r[:3])]
    assert not bad, "\n".join(f"{k}({p}={b}): {c}: {d}" for k, p, b, c, d in bad[:40])


@pytest.mark.parametrize("key", sorted(CALLABLES))
def test_fuzz_callable(key):
    fn = CALLABLES[key]
    args, kwargs = _examples(key)
    saved = dict(gdp.core.tradeoff._ENGINE)
    try:
        _check([(key, *o) for o in outcomes(key, fn, args, kwargs, _params(fn))])
    finally:
        gdp.core.tradeoff._ENGINE.update(saved)


@pytest.mark.parametrize("label", sorted(_instances()))
def test_fuzz_methods(label):
    _check(list(method_outcomes(label, _instances()[label])))


# ------------------------------------------------------------------------ report
def report() -> dict[str, int]:  # pragma: no cover - a tool, run by hand
    import tempfile

    import matplotlib

    matplotlib.use("Agg", force=True)
    _TMP[:] = [Path(tempfile.mkdtemp())]
    os.chdir(_TMP[0])  # bad values may be valid file names
    counts: dict[str, int] = {}
    rows = []
    for key, fn in sorted(CALLABLES.items()):
        args, kwargs = _examples(key)
        saved = dict(gdp.core.tradeoff._ENGINE)
        for o in outcomes(key, fn, args, kwargs, _params(fn)):
            rows.append((key, *o))
        gdp.core.tradeoff._ENGINE.update(saved)
    for label, obj in sorted(_instances().items()):
        rows.extend(method_outcomes(label, obj))
    for r in rows:
        if r[3] in FAILURES and _allowed(*r[:3]):
            r = (*r[:3], "ok-allowed", r[4])
        counts[r[3]] = counts.get(r[3], 0) + 1
        if r[3] in FAILURES:
            print(f"{r[3]:9s} {r[0]}({r[1]}={r[2]}): {r[4][:160]}")
    print(f"{len(CALLABLES)} callables, {len({r[0] for r in rows})} callables and methods, "
          f"{len(rows)} calls:", counts)
    return counts


if __name__ == "__main__":  # pragma: no cover
    found = report()
    sys.exit(1 if any(found.get(c) for c in FAILURES) else 0)
