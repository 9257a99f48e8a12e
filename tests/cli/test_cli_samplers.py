"""`gdp dpsgd --sampler --neighbours --group-size`: the bracket and its sources are printed,
bad combinations are one-line errors naming the arguments (exit status 2)."""

from __future__ import annotations

import json

import pytest

import gdp
from gdp.cli import main


def _run(capsys, *argv):
    code = main(["dpsgd", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_shuffle_prints_the_bracket_and_its_sources(capsys):
    code, out, err = _run(capsys, "--sigma", "2", "--p", "0.1", "--steps", "30",
                          "--sampler", "shuffle", "--neighbours", "zero-out")
    assert code == 0, err
    assert "sampler = shuffle, neighbours = zero-out" in out
    assert "upper side: no amplification" in out and "lower side: explicit datasets" in out
    eps = gdp.G_mu(0.5 * 3 ** 0.5).epsilon(1e-5)
    assert f"{eps:.6g}" in out


def test_json_has_the_keywords_and_both_sides(capsys):
    code, out, _ = _run(capsys, "--sigma", "1", "--p", "0.05", "--steps", "100",
                        "--sampler", "fixed", "--neighbours", "replace-one", "--json")
    assert code == 0
    res = json.loads(out)
    assert res["sampler"] == "fixed" and res["neighbours"] == "replace-one"
    assert res["eps_lower"] <= res["eps"] == res["eps_upper"]
    assert "clt_mu" not in res  # the CLT of Bu et al. is for Poisson add/remove only
    h = gdp.dpsgd(sigma=1.0, p=0.05, steps=100, sampler="fixed", neighbours="replace-one")
    assert res["eps"] == h.epsilon(1e-5)


def test_group_size_one_is_the_plain_report(capsys):
    plain = json.loads(_run(capsys, "--sigma", "1", "--p", "0.01", "--steps", "100",
                            "--json")[1])
    same = json.loads(_run(capsys, "--sigma", "1", "--p", "0.01", "--steps", "100",
                           "--group-size", "1", "--json")[1])
    assert plain == same


@pytest.mark.parametrize("argv,match", [
    (["--sampler", "shuffle"], "sampler='shuffle' has no known analysis for "
                               "neighbours='add-remove'"),
    (["--sampler", "allocation", "--neighbours", "replace-one"],
     "sampler='allocation' has no known analysis"),
    (["--group-size", "2", "--sampler", "fixed", "--neighbours", "replace-one"],
     "group_size=2 is analysed for sampler='poisson'"),
    (["--sampler", "bins"], "argument --sampler: invalid choice"),
    (["--neighbours", "swap"], "argument --neighbours: invalid choice"),
])
def test_bad_combinations(capsys, argv, match):
    code, out, err = _run(capsys, "--sigma", "1", "--p", "0.1", "--steps", "10", *argv)
    assert code == 2 and out == ""
    assert match in err and err.count("\n") == 1


def test_group_larger_than_the_batch(capsys):
    code, _, err = _run(capsys, "--sigma", "1", "--batch-size", "4", "--dataset-size", "400",
                        "--steps", "10", "--group-size", "5")
    assert code == 2
    assert "`group_size` must be at most `batch_size`; got group_size=5, batch_size=4" in err


def test_sampling_rate_above_one(capsys):
    code, _, err = _run(capsys, "--sigma", "1", "--p", "1.5", "--steps", "10",
                        "--sampler", "fixed", "--neighbours", "replace-one")
    assert code == 2 and "`p` must be a number in (0, 1]" in err
