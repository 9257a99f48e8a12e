"""Determinism: the same call gives bit-identical answers, twice in one process and in
subprocesses with one BLAS/OpenMP thread or the default number of threads.

The representative calls cover closed forms, a composition of mixed factors (the numeric
engine), DP-SGD, the CLT and a comparison table; answers are compared as ``float.hex``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import gdp

ROOT = Path(__file__).resolve().parents[1]


def answers() -> list[str]:
    """The representative calls, as exact hex strings."""
    out: list[float] = []
    out += [float(gdp.G_mu(1.0).delta(1.0)), float(gdp.eps_from_mu(1.0, 1e-5)),
            float(gdp.mu_from_eps_delta(1.0, 1e-5)), float(gdp.laplace(1.0).epsilon(1e-3)),
            float(gdp.f_eps_delta(1.0, 1e-5).delta(0.5)),
            float(gdp.sigma_from_eps_delta(1.0, 1.0, 1e-5))]
    h = gdp.compose(gdp.G_mu(0.5), gdp.laplace(0.3), gdp.f_eps_delta(0.2) ** 5)
    out += [float(h.epsilon(1e-5)), *map(float, h.epsilon_bounds(1e-5)),
            float(h.delta(1.0)), float(h(0.1))]
    d = gdp.dpsgd(sigma=1.1, p=0.01, steps=1000)
    out += [float(d.epsilon(1e-5)), *map(float, d.delta_bounds(1.0))]
    r = gdp.clt(gdp.laplace(0.1), 100, check=False)
    out += [r.mu, r.gamma]
    c = gdp.compare(gdp.f_eps_delta(0.1), k=100, delta=1e-5,
                    methods=["basic", "advanced", "kairouz", "kov", "rdp", "exact"])
    out += [rec.epsilon for rec in c]
    return [float(v).hex() for v in out]


def test_the_same_call_twice_is_bit_identical():
    assert answers() == answers()


def _in_subprocess(env_update: dict[str, str | None]) -> list[str]:
    env = dict(os.environ)
    for k, v in env_update.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    here = str(Path(__file__).parent)
    code = (f"import json, sys; sys.path.insert(0, {here!r}); import test_determinism as t; "
            "print(json.dumps(t.answers()))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=env, timeout=300, cwd=str(ROOT))
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_thread_count_does_not_change_a_bit():
    threads = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
    one = _in_subprocess({k: "1" for k in threads})
    default = _in_subprocess({k: None for k in threads})
    assert one == default
    assert one == answers()  # and equal to this process's answers
