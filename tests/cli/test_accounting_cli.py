"""The accounting subcommands (calibrate, account), the run options with their convention,
convert with several values, and --json on every subcommand."""

import json

import dp_accounting as dpa
import pytest
from numpy.testing import assert_allclose

import gdp
from gdp.cli import build_parser, main
from gdp.sql import example as sql_example


def run(capsys, *argv):
    """(exit status, stdout, stderr) of ``gdp argv``."""
    status = main(list(argv))
    return (status, *capsys.readouterr())


def run_json(capsys, *argv):
    status, out, err = run(capsys, *argv, "--json")
    return json.loads(out) if status == 0 else pytest.fail(err)


def one_line_error(capsys, argv, match, status=2):
    got, out, err = run(capsys, *argv)
    assert (got, out, len(err.strip().splitlines())) == (status, "", 1), err
    assert match in err, err


# ------------------------------------------------------------------ calibrate
def test_calibrate_gives_a_verified_sigma_and_says_the_convention(capsys):
    argv = ["calibrate", "--eps", "2", "--delta", "1e-5", "--batch-size", "600",
            "--dataset-size", "60000", "--epochs", "5", "--convention", "opacus"]
    res = run_json(capsys, *argv)
    assert res["convention"] == "opacus" and res["steps"] == 500 and res["sample_rate"] == 0.01
    assert res["kind"] == "bound" and res["achieved"] <= 2.0
    eps = gdp.dpsgd(sigma=res["sigma"], p=0.01, steps=500).epsilon(1e-5)
    assert eps == res["achieved"] <= 2.0  # the sound eps at the sigma returned
    assert res["sigma_lower"] < res["sigma"] <= res["sigma_lower"] * (1 + 1e-3)
    code, out, err = run(capsys, *argv)
    assert code == 0 and out.startswith(f"noise multiplier sigma = {res['sigma']:.6g} for eps "
                                        "<= 2 at delta = 1e-05  (exact, bound)")
    assert "run: Opacus convention: p = 1/ceil(n/B) = 1/100, steps = epochs * ceil(n/B)" in out


@pytest.mark.parametrize("method", ["rdp", "clt"])
def test_calibrate_methods(capsys, method):
    res = run_json(capsys, "calibrate", "--eps", "2", "--delta", "1e-5", "--p", "0.01",
                   "--steps", "500", "--method", method)
    assert res["method"] == method and res["convention"] == "steps"
    assert res["kind"] == ("approximation" if method == "clt" else "bound")


def test_calibrate_mu_target_with_the_clt(capsys):
    res = run_json(capsys, "calibrate", "--mu", "1", "--p", "0.01", "--steps", "1000",
                   "--method", "clt")
    assert_allclose(gdp.noisy_sgd_mu(res["sigma"], 0.01, 1000), 1.0, rtol=1e-9)


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        (["--eps", "1", "--p", "0.1", "--steps", "10"], "`delta` is required with an `eps`"),
        (["--eps", "1", "--delta", "1e-5", "--steps", "10"], "give the sampling rate --p"),
        (["--eps", "1", "--delta", "1e-5", "--p", "0.1"], "give the number of steps"),
        (["--eps", "1", "--delta", "1e-5", "--p", "0.1", "--steps", "5", "--convention",
          "jax"], "argument --convention: invalid choice: 'jax'"),
        (["--mu", "1", "--eps", "1", "--delta", "1e-5", "--p", "0.1", "--steps", "5"],
         "give exactly one target"),
    ],
)
def test_calibrate_bad_input(capsys, argv, match):
    one_line_error(capsys, ["calibrate", *argv], match)


# ------------------------------------------------------------------ dpsgd conventions
@pytest.mark.parametrize(("convention", "steps"), [("opacus", 3525), ("tf", 3516)])
def test_dpsgd_prints_the_convention_it_used(capsys, convention, steps):
    argv = ["dpsgd", "--sigma", "1.1", "--batch-size", "256", "--dataset-size", "60000",
            "--epochs", "15", "--convention", convention]
    res = run_json(capsys, *argv)
    assert res["steps"] == steps and res["convention"] == convention
    code, out, _ = run(capsys, *argv)
    name = "Opacus" if convention == "opacus" else "TF-privacy"
    assert f"  run: {name} convention:" in out and f"= {steps}" in out


def test_dpsgd_with_steps_given_says_so(capsys):
    code, out, _ = run(capsys, "dpsgd", "--sigma", "1", "--p", "0.01", "--steps", "100")
    assert "run: p = 0.01 and steps = 100 as given (no epochs conversion)" in out


# ------------------------------------------------------------------ account
def test_account_reads_a_saved_ledger(tmp_path, capsys):
    acc = gdp.Accountant(eps=3.0, delta=1e-5)
    acc.step(noise_multiplier=1.1, schedule=gdp.epochs_to_steps(
        epochs=2, batch_size=256, dataset_size=60_000, convention="opacus"))
    acc.compose(gdp.G_mu(0.2))
    path = tmp_path / "ledger.json"
    path.write_text(acc.to_json())
    res = run_json(capsys, "account", str(path), "--delta", "1e-5", "1e-6", "--eps", "1")
    assert res["source"] == "ledger" and res["steps"] == 470 and res["mechanisms"] == 471
    assert res["epsilon"][0]["eps"] == acc.epsilon(1e-5)
    assert res["epsilon"][0]["eps_lower"] <= res["epsilon"][0]["eps"]
    r = acc.remaining()
    assert res["remaining"] == {"eps": r.eps, "delta": r.delta}
    assert res["budget"] == {"eps": 3.0, "delta": 1e-5} and res["spent"] == acc.spent()
    assert res["runs"] == ["Opacus convention: p = 1/ceil(n/B) = 1/235, steps = epochs * "
                           "ceil(n/B) = 2 * 235 = 470"]
    code, out, _ = run(capsys, "account", str(path))
    assert out.startswith("ledger: 471 mechanism(s), 470 DP-SGD step(s)")
    assert "budget (eps, delta) = (3, 1e-05): spent" in out and "release still fits" in out
    assert "run: Opacus convention" in out


def test_account_reads_a_dp_event(tmp_path, capsys):
    ev = dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.0)), 1000)
    path = tmp_path / "event.json"
    path.write_text(json.dumps(gdp.dp_event_to_dict(ev)))
    res = run_json(capsys, "account", str(path))
    assert res["source"] == "DpEvent" and res["neighbours"] == "add_remove"
    assert res["epsilon"][0]["eps"] == gdp.dpsgd(sigma=1.0, p=0.01, steps=1000).epsilon(1e-5)
    assert res["runs"] == ["SelfComposedDpEvent: rates and counts as the event gives them (no "
                           "epochs conversion)"]


@pytest.mark.parametrize(
    ("content", "match", "status"),
    [
        ("{", "is not JSON", 2),
        ("[1, 2]", "is neither a gdp accountant state", 2),
        ('{"class_name": "ZCDpEvent", "rho": 1, "xi": 0}', "unsupported event ZCDpEvent", 2),
        ('{"format": "gdp.Accountant", "version": 9}', "written by a newer gdp", 2),
    ],
)
def test_account_refuses_bad_files(tmp_path, capsys, content, match, status):
    path = tmp_path / "bad.json"
    path.write_text(content)
    one_line_error(capsys, ["account", str(path)], match, status)
    one_line_error(capsys, ["account", str(tmp_path / "missing.json")], "No such file", 1)


# ------------------------------------------------------------------ convert
def test_convert_several_deltas_and_pairs(capsys):
    res = run_json(capsys, "convert", "--mu", "1", "--delta", "1e-3", "1e-5")
    assert [r["delta"] for r in res["results"]] == [1e-3, 1e-5]
    assert res["results"][1]["eps"] == run_json(capsys, "convert", "--mu", "1", "--delta",
                                                "1e-5")["eps"]
    res = run_json(capsys, "convert", "--eps", "1", "2", "--delta", "1e-5")
    assert [r["eps"] for r in res["results"]] == [1.0, 2.0]
    code, out, _ = run(capsys, "convert", "--mu", "1", "--eps", "1", "2")
    assert out.count("->  delta =") == 2
    one_line_error(capsys, ["convert", "--eps", "1", "2", "--delta", "1e-5", "1e-6", "1e-7"],
                   "give as many --eps as --delta values, or one of either; got 2 and 3")


# ------------------------------------------------------------------ --json everywhere
def test_every_subcommand_takes_json(tmp_path, capsys):
    path = tmp_path / "ledger.json"
    path.write_text(gdp.Accountant().compose(gdp.G_mu(1.0)).to_json())
    sql_example.write(str(tmp_path / "r.sqlite"), str(tmp_path / "r.toml"))
    argv = {
        "sql": ["--db", str(tmp_path / "r.sqlite"), "--schema", str(tmp_path / "r.toml"),
                "--eps", "0.5", "SELECT COUNT(*) FROM trips"],
        "convert": ["--mu", "1", "--delta", "1e-5"],
        "dpsgd": ["--sigma", "1", "--p", "0.1", "--steps", "3"],
        "calibrate": ["--mu", "1", "--p", "0.1", "--steps", "10", "--method", "clt"],
        "account": [str(path)],
        "compose": ["gauss:1", "lap:0.5"],
        "compare": ["rr:0.5", "--k", "3"],
        "plot": ["gauss:1", "--out", str(tmp_path / "c.png"), "--dpi", "30"],
        "figures": ["--out", str(tmp_path), "--quick", "--only", "03_f_eps_delta",
                    "--format", "png", "--dpi", "30", "--no-demo"],
        "demo": [],
    }
    commands = set(build_parser()._defaults["_subparsers"])
    assert commands == set(argv), "every subcommand is listed here"
    for cmd, args in argv.items():
        res = run_json(capsys, cmd, *args)
        assert isinstance(res, dict) and res, cmd
