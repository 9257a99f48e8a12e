"""Tests of the `gdp` command, called in-process through gdp.cli.main (no subprocesses)."""

from __future__ import annotations

import json
import math
import struct

import mpmath as mp
import pytest
from numpy.testing import assert_allclose

import gdp
from gdp.cli import main
from gdp.cli.output import _jsonable
from gdp.cli.specs import load_mechanisms, parse_curve, parse_mechanism

mp.mp.dps = 40


def mp_delta(mu, eps):
    # DRS Cor. 2.13 at 40 digits: delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)
    mu, eps = mp.mpf(mu), mp.mpf(eps)
    return mp.ncdf(-eps / mu + mu / 2) - mp.exp(eps) * mp.ncdf(-eps / mu - mu / 2)


def mp_bisect(fn, lo, hi, n=160):
    # plain bisection at 40 digits for an increasing fn with a sign change on [lo, hi]
    lo, hi = mp.mpf(lo), mp.mpf(hi)
    for _ in range(n):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if fn(mid) < 0 else (lo, mid)
    return float((lo + hi) / 2)


def mp_eps(mu, delta):
    # the root of mp_delta(mu, .) = delta (delta is decreasing in eps)
    return mp_bisect(lambda e: delta - mp_delta(mu, e), 0, 80)


def mp_mu(eps, delta):
    # the root of mp_delta(., eps) = delta (delta is increasing in mu)
    return mp_bisect(lambda m: mp_delta(m, eps) - delta, 1e-3, 30)


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def assert_one_line_error(code, out, err, prog, match, status=2):
    assert code == status
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"{prog}: error: ")
    assert "Traceback" not in err
    assert match in lines[0], lines[0]


def png_size(path):
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


# ------------------------------------------------------------------ convert
def test_convert_mu_delta_gives_eps(capsys):
    code, out, err = run(capsys, "convert", "--mu", "1", "--delta", "1e-5")
    assert code == 0 and err == ""
    assert out.startswith("mu = 1, delta = 1e-05  ->  eps = 4.37718")
    res = run_json(capsys, "convert", "--mu", "1", "--delta", "1e-5")
    ref = mp_eps(1, 1e-5)  # 4.3771780...
    assert_allclose(res["eps"], ref, rtol=1e-9)
    assert res["eps"] >= ref * (1 - 1e-12)  # never below the true eps
    assert res["mu"] == 1.0 and res["delta"] == 1e-5


def test_convert_mu_eps_gives_delta(capsys):
    res = run_json(capsys, "convert", "--mu", "1", "--eps", "1")
    ref = float(mp_delta(1, 1))  # 0.126936737...
    assert_allclose(res["delta"], ref, rtol=1e-10)
    assert res["delta"] >= ref * (1 - 1e-13)


def test_convert_eps_delta_gives_mu(capsys):
    res = run_json(capsys, "convert", "--eps", "1", "--delta", "1e-5")
    ref = mp_mu(1, 1e-5)  # 0.26805...
    assert_allclose(res["mu"], ref, rtol=1e-9)
    # sound side: a mechanism with this mu really is (1, 1e-5)-DP
    assert mp_delta(res["mu"], 1) <= 1e-5 * (1 + 1e-9)


def test_convert_sigma_stands_for_sensitivity_over_sigma(capsys):
    res = run_json(capsys, "convert", "--sigma", "4", "--sensitivity", "2", "--delta", "1e-5")
    assert res["mu"] == 0.5 and res["sigma"] == 4.0 and res["sensitivity"] == 2.0
    assert_allclose(res["eps"], mp_eps(0.5, 1e-5), rtol=1e-9)


def test_convert_infinite_mu_is_written_as_inf_in_json(capsys):
    res = run_json(capsys, "convert", "--mu", "inf", "--delta", "1e-5")
    assert res["eps"] == "inf"


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        (["--mu", "1"], "give exactly two of --mu (or --sigma), --eps, --delta; got --mu"),
        (["--mu", "1", "--eps", "1", "--delta", "0.1"], "give exactly two"),
        (["--mu", "1", "--sigma", "2", "--delta", "0.1"], "either --mu or --sigma"),
        (["--eps", "-1", "--delta", "1e-5"], "`eps` must be a non-negative"),
        (["--mu", "1", "--delta", "2"], "`delta` must be a number in [0, 1]"),
        (["--mu", "nan", "--delta", "0.1"], "`mu` must be"),
        (["--sigma", "0", "--delta", "0.1"], "`sigma` must be a positive finite number"),
        (["--eps", "abc"], "argument --eps: not a number: 'abc'"),
        (["--bogus", "1"], "unrecognized arguments: --bogus 1"),
    ],
)
def test_convert_bad_input_is_one_line_and_exit_2(capsys, argv, match):
    code, out, err = run(capsys, "convert", *argv)
    assert_one_line_error(code, out, err, "gdp convert", match)


# ------------------------------------------------------------- help, usage
@pytest.mark.parametrize("cmd", ["convert", "dpsgd", "compose", "compare", "plot", "figures",
                                 "demo"])
def test_every_command_has_help(capsys, cmd):
    code, out, err = run(capsys, cmd, "--help")
    assert code == 0 and err == ""
    assert out.startswith(f"usage: gdp {cmd}")


def test_top_level_help_version_and_unknown_command(capsys):
    code, out, _ = run(capsys)
    assert code == 0 and "convert" in out and "figures" in out
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.strip() == f"gdp {gdp.__version__}"
    code, out, err = run(capsys, "frobnicate")
    assert_one_line_error(code, out, err, "gdp", "invalid choice: 'frobnicate'")


# ------------------------------------------------------------- mechanisms
def test_parse_mechanism_builds_the_families():
    assert parse_mechanism("gauss:0.5x100") == (gdp.G_mu(0.5), 100)
    assert parse_mechanism("GAUSSIAN:2") == (gdp.G_mu(2.0), 1)
    assert parse_mechanism("lap:0.5") == (gdp.laplace(0.5), 1)
    assert parse_mechanism("rr:1") == (gdp.f_eps_delta(1.0, 0.0), 1)
    assert parse_mechanism("eps-delta:1,1e-6x3") == (gdp.f_eps_delta(1.0, 1e-6), 3)
    f, n = parse_mechanism("id")
    assert n == 1 and f(0.3) == 0.7
    assert parse_curve("gauss:3+gauss:2x4") == gdp.G_mu(5.0)
    if hasattr(gdp, "subsample"):
        assert parse_mechanism("sgauss:2,0.1") == (gdp.subsample(gdp.G_mu(0.5), 0.1), 1)
    if hasattr(gdp, "dpsgd"):
        h, n = parse_mechanism("dpsgd:1,0.01,100")
        ref = gdp.dpsgd(sigma=1.0, p=0.01, steps=100)
        assert n == 1 and h.epsilon(1e-5) == ref.epsilon(1e-5)


@pytest.mark.parametrize(
    ("spec", "exc", "match"),
    [
        ("foo:1", ValueError, "unknown mechanism 'foo' in 'foo:1'"),
        ("gauss", ValueError, "'gauss' must be written gauss:MU"),
        ("eps-delta:1", ValueError, "must be written eps-delta:EPS,DELTA"),
        ("gauss:abc", ValueError, "parameters must be numbers"),
        ("gauss:1x0", ValueError, "repetition must be at least 1"),
        ("gauss:-1", ValueError, "`mu` must be a non-negative"),
        ("rr:1,2", ValueError, "must be written rr:EPS"),
        ("sgauss:0,0.1", ValueError, "`sigma` must be a positive finite number"),
        ("dpsgd:1,0.1,2.5", ValueError, "`steps` must be an integer"),
        (3, TypeError, "`spec` must be a string"),
    ],
)
def test_parse_mechanism_errors(spec, exc, match):
    with pytest.raises(exc, match=match):
        parse_mechanism(spec)


# ---------------------------------------------------------------- compose
def test_compose_gaussians_is_the_closed_form(capsys):
    res = run_json(capsys, "compose", "gauss:1", "gauss:0.5x100", "--delta", "1e-5", "1e-6",
                   "--eps", "1")
    mu = math.sqrt(1 + 100 * 0.25)  # G_a (x) G_b = G_sqrt(a^2 + b^2) (DRS Cor. 3.3)
    assert res["count"] == 101
    assert res["result"].startswith("Gaussian(mu=")
    assert_allclose(float(res["result"][12:-1]), mu, rtol=1e-14)
    assert [r["delta"] for r in res["epsilon"]] == [1e-5, 1e-6]
    for r in res["epsilon"]:
        ref = mp_eps(mu, r["delta"])
        assert_allclose(r["eps"], ref, rtol=1e-9)
        assert r["eps"] >= ref * (1 - 1e-12)
        assert "eps_lower" not in r  # closed form: no bracket
    assert_allclose(res["delta"][0]["delta"], float(mp_delta(mu, 1)), rtol=1e-10)
    if "clt_mu" in res:  # the CLT of Gaussians is exact
        assert_allclose(res["clt_mu"], mu, rtol=1e-9)


def test_compose_text_output(capsys):
    code, out, err = run(capsys, "compose", "gauss:3", "gauss:4")
    assert code == 0
    assert out.splitlines()[0] == "composition of 2 mechanism(s): G_5 = Gaussian(mu=5.0)"
    assert "eps at delta = 1e-05: " in out and "(exact)" in out


def test_compose_reads_a_json_file(tmp_path, capsys):
    p = tmp_path / "mechs.json"
    p.write_text(json.dumps({"mechanisms": ["gauss:1", {"type": "gauss", "mu": 2, "repeat": 4},
                                           {"type": "gaussian", "mu": 1}]}))
    terms = load_mechanisms(p)
    assert terms == [(gdp.G_mu(1.0), 1), (gdp.G_mu(2.0), 4), (gdp.G_mu(1.0), 1)]
    res = run_json(capsys, "compose", "--file", str(p), "gauss:1")
    assert_allclose(float(res["result"][12:-1]), math.sqrt(1 + 16 + 1 + 1), rtol=1e-14)


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ("not json", "not valid JSON"),
        ("[]", "expected a non-empty list of mechanisms"),
        ('[{"mu": 1}]', "entry 0 must be a spec string or an object with a 'type'"),
        ('[{"type": "warp", "mu": 1}]', "entry 0: unknown mechanism type 'warp'"),
        ('[{"type": "gauss"}]', "entry 0 (gauss): missing field(s) mu"),
        ('[{"type": "gauss", "mu": 1, "eps": 2}]', "unexpected field(s) eps"),
        ('[{"type": "gauss", "mu": 1, "repeat": 0}]', "`repeat` must be an integer >= 1"),
    ],
)
def test_compose_json_file_errors(tmp_path, capsys, content, match):
    p = tmp_path / "bad.json"
    p.write_text(content)
    code, out, err = run(capsys, "compose", "--file", str(p))
    assert_one_line_error(code, out, err, "gdp compose", match)


def test_compose_errors(tmp_path, capsys):
    code, out, err = run(capsys, "compose")
    assert_one_line_error(code, out, err, "gdp compose", "give mechanisms")
    code, out, err = run(capsys, "compose", "gauss:1", "--delta", "0")
    assert_one_line_error(code, out, err, "gdp compose", "`delta` must be a number in (0, 1]")
    code, out, err = run(capsys, "compose", "--file", str(tmp_path / "missing.json"))
    assert_one_line_error(code, out, err, "gdp compose", "No such file", status=1)


def test_progress_goes_to_stderr_only_when_asked(capsys):
    code, out, err = run(capsys, "compose", "gauss:1", "--progress")
    assert code == 0 and err == "gdp: composing 1 mechanisms ...\n"
    code, out, err = run(capsys, "compose", "gauss:1")  # captured stderr is not a terminal
    assert code == 0 and err == ""
    code, out, err = run(capsys, "compose", "gauss:1", "--progress", "--quiet")
    assert code == 2 and "not allowed with argument" in err


# ------------------------------------------------------------------ dpsgd
@pytest.mark.parametrize(
    ("argv", "match"),
    [
        (["--sigma", "1", "--steps", "10"], "give the sampling rate --p"),
        (["--sigma", "1", "--p", "0.1"], "give the number of steps --steps, or --epochs"),
        (["--sigma", "1", "--p", "0.1", "--steps", "5", "--epochs", "1"],
         "either --steps or --epochs"),
        (["--sigma", "1", "--batch-size", "10", "--steps", "5"], "--batch-size and"),
        (["--sigma", "1", "--batch-size", "100", "--dataset-size", "10", "--steps", "5"],
         "`batch_size` must be at most `dataset_size`"),
        (["--sigma", "1", "--p", "0.1", "--batch-size", "1", "--dataset-size", "10",
          "--steps", "5"], "either --p or --batch-size"),
        (["--sigma", "-1", "--p", "0.1", "--steps", "5"], "`sigma` must be a positive"),
        (["--sigma", "1", "--p", "1.5", "--steps", "5"], "`p` must be a number in (0, 1]"),
        (["--sigma", "1", "--p", "0.1", "--steps", "0"], "`steps` must be an integer >= 1"),
        (["--sigma", "1", "--p", "0.1", "--steps", "2.5"], "argument --steps: not an integer"),
        (["--p", "0.1", "--steps", "5"], "the following arguments are required: --sigma"),
    ],
)
def test_dpsgd_bad_input(capsys, argv, match):
    code, out, err = run(capsys, "dpsgd", *argv)
    assert_one_line_error(code, out, err, "gdp dpsgd", match)


def test_dpsgd_epochs_and_batch_size_give_steps_and_p():
    from gdp.cli import build_parser
    from gdp.cli.commands import _dpsgd_params

    args = build_parser().parse_args(["dpsgd", "--sigma", "1.1", "--batch-size", "256",
                                      "--dataset-size", "60000", "--epochs", "15"])
    sigma, p, steps = _dpsgd_params(args)
    assert sigma == 1.1 and p == 256 / 60000
    assert steps == math.ceil(15 * 60000 / 256)  # 3516


def test_dpsgd_reports_a_sound_eps_against_prv_accountant(capsys):
    import prv_accountant as prv
    res = run_json(capsys, "dpsgd", "--sigma", "1.0", "--p", "0.01", "--steps", "1000",
                   "--delta", "1e-5")
    mech = prv.PoissonSubsampledGaussianMechanism(noise_multiplier=1.0,
                                                  sampling_probability=0.01)
    acc = prv.PRVAccountant(prvs=[mech], eps_error=0.01, delta_error=1e-10,
                            max_self_compositions=[1000])
    lo, est, hi = acc.compute_epsilon(delta=1e-5, num_self_compositions=[1000])
    assert res["eps"] >= lo  # never below a rigorous lower bound
    assert_allclose(res["eps"], est, rtol=0.01)
    assert res["eps_lower"] <= res["eps"] <= res["eps_upper"] * (1 + 1e-12)
    # the CLT mu of Bu et al.: p sqrt(T (e^{1/sigma^2} - 1))
    assert_allclose(res["clt_mu"], 0.01 * math.sqrt(1000 * math.expm1(1.0)), rtol=1e-12)
    assert_allclose(res["mu_same_eps_delta"], mp_mu(res["eps"], 1e-5), rtol=1e-7)


# ---------------------------------------------------------------- compare
def test_compare_single_k_prints_the_table(capsys):
    code, out, err = run(capsys, "compare", "rr:0.1", "--k", "100", "--delta", "1e-5")
    assert code == 0, err
    assert "Basic composition" in out and "Optimal (KOV 2015, Thm 3.3)" in out
    res = run_json(capsys, "compare", "rr:0.1", "--k", "100", "--delta", "1e-5")
    recs = {r["method"]: r for r in res["records"]}
    assert recs["basic"]["epsilon"] == pytest.approx(10.0, rel=1e-12)  # k * eps0
    # KOV optimal (Thm 3.3) for f_{0.1,0}^{(x)100} at delta=1e-5, cross-checked in
    # tests/test_bounds.py; it can never be above the basic bound
    assert recs["kov"]["epsilon"] < recs["basic"]["epsilon"]


def test_compare_many_k_gives_one_row_per_k(capsys):
    res = run_json(capsys, "compare", "rr:0.1", "--k", "1", "10", "100", "--delta", "1e-5")
    assert res["k"] == [1, 10, 100]
    assert_allclose(res["epsilon"]["basic"], [0.1, 1.0, 10.0], rtol=1e-12)
    code, out, err = run(capsys, "compare", "rr:0.1", "--k", "1", "10", "--delta", "1e-5")
    assert code == 0 and out.splitlines()[1].split()[0] == "k"


def test_compare_output_formats(capsys):
    code, out, _ = run(capsys, "compare", "rr:0.1", "--k", "10", "--format", "latex")
    assert code == 0 and out.startswith(r"\begin{tabular}")
    code, out, _ = run(capsys, "compare", "rr:0.1", "--k", "10", "--format", "markdown")
    assert code == 0 and out.startswith("| Method |")


def test_compare_errors(capsys):
    code, out, err = run(capsys, "compare", "rr:0.1", "--k", "0")
    assert_one_line_error(code, out, err, "gdp compare", "`k` must be an integer >= 1")
    code, out, err = run(capsys, "compare", "rr:0.1", "--k", "1", "2", "--eps", "1")
    assert_one_line_error(code, out, err, "gdp compare", "--eps needs a single --k")


# ------------------------------------------------------------------- plot
def test_plot_writes_an_image_and_csv(tmp_path, capsys):
    png, csv = tmp_path / "c.png", tmp_path / "c.csv"
    code, out, err = run(capsys, "plot", "gauss:1", "rr:1", "-o", str(png), "--csv", str(csv),
                         "--dpi", "100", "--size", "4")
    assert code == 0, err
    assert out.splitlines() == [f"wrote {png}", f"wrote {csv}"]
    assert png_size(png) == (400, 400)
    rows = csv.read_text().splitlines()
    assert rows[0] == 'alpha,G_{1},"f_{1,0}"'
    a, g1, f1 = map(float, rows[len(rows) // 2].split(","))
    assert_allclose(g1, gdp.G_mu(1.0)(a), rtol=1e-15)


def test_plot_profile_and_log_alpha(tmp_path, capsys):
    res = run_json(capsys, "plot", "gauss:1+gauss:1", "-o", str(tmp_path / "p.pdf"),
                   "--profile", "--title", "profiles")
    assert res["curves"] == [repr(gdp.G_mu(math.sqrt(2)))]
    assert (tmp_path / "p.pdf").read_bytes()[:4] == b"%PDF"
    code, _, err = run(capsys, "plot", "lap:1", "-o", str(tmp_path / "l.svg"), "--log-alpha",
                       "--shade")
    assert code == 0, err


def test_plot_errors(tmp_path, capsys):
    code, out, err = run(capsys, "plot", "gauss:1", "lap:1", "-o", str(tmp_path / "x.png"),
                         "--label", "only one")
    assert_one_line_error(code, out, err, "gdp plot", "give one --label per curve (2); got 1")
    code, out, err = run(capsys, "plot", "gauss:1")
    assert_one_line_error(code, out, err, "gdp plot", "required: -o/--out")


# ------------------------------------------------------------ figures, demo
def test_figures_draws_the_requested_figures(tmp_path, capsys):
    code, out, err = run(capsys, "figures", "--out", str(tmp_path), "--quick", "--only",
                         "gaussian_family", "03_f_eps_delta", "--no-demo", "--dpi", "50",
                         "--format", "png")
    assert code == 0, err
    assert out.strip() == f"wrote 2 file(s) to {tmp_path}/: 03_f_eps_delta, 04_gaussian_family"
    assert png_size(tmp_path / "04_gaussian_family.png") == (170, 170)  # 3.4 in at 50 dpi


def test_figures_unknown_name_is_an_error(tmp_path, capsys):
    code, out, err = run(capsys, "figures", "--out", str(tmp_path), "--only", "nope")
    assert_one_line_error(code, out, err, "gdp figures", "`name` must be one of 01_hypothesis")


def test_demo_prints_the_worked_example(capsys):
    code, out, err = run(capsys, "demo")
    assert code == 0
    assert out.startswith("Worked example")
    assert "eps = 4.37718 at delta = 1e-05" in out
    assert "needs mu <= 0.268051" in out  # mp_mu(1, 1e-5) = 0.2680...
    if hasattr(gdp, "dpsgd"):
        assert "DP-SGD: sigma = 1.1, sampling rate p = 0.01, 10000 steps" in out
    else:
        assert "DP-SGD example unavailable" in out


def test_jsonable_maps_non_finite_numbers():
    assert _jsonable({"a": math.inf, "b": -math.inf, "c": math.nan, "d": (1.0, 2)}) == {
        "a": "inf", "b": "-inf", "c": None, "d": [1.0, 2]}


# ------------------------------------------------------------ progress, plot compare
class _Terminal:
    """A stand-in for a terminal on stderr (isatty True), recording what is written."""

    def __init__(self):
        self.text = ""

    def isatty(self):
        return True

    def write(self, s):
        self.text += s

    def flush(self):
        pass


def test_a_long_comparison_shows_a_progress_bar_on_a_terminal(monkeypatch, capsys):
    term = _Terminal()
    monkeypatch.setattr("sys.stderr", term)
    monkeypatch.setattr("gdp.cli.output._Progress._REDRAW", 0.0)  # draw every report
    code = main(["compare", "dpsgd:1,0.01", "--k", "100000", "--delta", "1e-5"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert "Optimal (KOV 2015, Thm 3.3)" in out  # stdout: the table, as without a bar
    bars = [b for b in term.text.split("\r") if b.startswith("gdp: [")]
    assert len(bars) >= 2, term.text
    assert any("grid search" in b for b in term.text.split("\r"))  # KOV, step by step
    assert "100%" in term.text and term.text.endswith("\n")  # the bar's line is ended


def test_progress_is_the_same_stdout_and_quiet_in_pipes_and_under_json(capsys):
    argv = ["compare", "rr:0.1", "--k", "1", "10"]
    code, quiet_out, quiet_err = run(capsys, *argv)
    assert code == 0 and quiet_err == ""  # captured stderr is a pipe: nothing
    code, out, err = run(capsys, *argv, "--progress")
    assert code == 0 and out == quiet_out  # stdout does not change
    lines = err.splitlines()
    assert lines[0] == "gdp: comparing composition bounds for k = 1, 10 ..."
    assert lines[-1].startswith("gdp: 100%")
    assert all(ln.startswith("gdp: ") for ln in lines) and "\r" not in err
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0 and err == ""


def test_json_silences_the_bar_on_a_terminal(monkeypatch, capsys):
    term = _Terminal()
    monkeypatch.setattr("sys.stderr", term)
    assert main(["compare", "rr:0.1", "--k", "1", "10", "--json"]) == 0
    capsys.readouterr()
    assert term.text == ""


def test_plot_compare_draws_epsilon_against_k(tmp_path, capsys):
    pdf, csv = tmp_path / "eps.pdf", tmp_path / "eps.csv"
    res = run_json(capsys, "plot", "compare", "rr:0.1", "--k", "1", "10", "100", "--delta",
                   "1e-5", "--methods", "basic", "kov", "exact", "-o", str(pdf),
                   "--csv", str(csv), "--style", "paper-1col")
    assert res["files"] == [str(pdf), str(csv)] and res["k"] == [1, 10, 100]
    assert res["kinds"] == {"basic": "bound", "kov": "exact", "exact": "exact"}
    data = pdf.read_bytes()
    assert b"/Type3" not in data and b"CIDFontType2" in data  # TrueType fonts only
    rows = csv.read_text().splitlines()
    assert rows[0] == "k,basic,kov,exact"
    assert [float(x) for x in rows[1].split(",")[:2]] == [1.0, 0.1]


def test_plot_compare_errors(tmp_path, capsys):
    code, out, err = run(capsys, "plot", "compare", "-o", str(tmp_path / "x.png"))
    assert_one_line_error(code, out, err, "gdp plot", "with one mechanism")
    code, out, err = run(capsys, "plot", "compare", "rr:0.1", "--k", "0", "-o",
                         str(tmp_path / "x.png"))
    assert_one_line_error(code, out, err, "gdp plot", "`k` must be")


def test_plot_pdfs_embed_truetype_fonts_with_or_without_a_style(tmp_path, capsys):
    for extra in ([], ["--style", "slides"]):
        pdf = tmp_path / f"c{len(extra)}.pdf"
        code, _, err = run(capsys, "plot", "gauss:1", "eps-delta:1,1e-5", "-o", str(pdf), *extra)
        assert code == 0, err
        assert b"/Type3" not in pdf.read_bytes()


def test_compose_prints_labels_as_plain_text(capsys):
    code, out, _ = run(capsys, "compose", "rr:0.5x10", "lap:0.5x3")
    assert code == 0
    first = out.splitlines()[0]
    assert first == "composition of 13 mechanism(s): f_(0.5,0)^⊗10 ⊗ (Lap_0.5)^⊗3"
    assert "\\" not in out and "{" not in out
