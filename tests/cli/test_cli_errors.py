"""Every subcommand and flag of ``gdp`` against bad values: one line on stderr naming the
flag (or the mechanism spec), a non-zero exit, never a traceback.

The subcommands and their flags are discovered from the parser (a flag added later is fuzzed
automatically; a subcommand needs a valid base command line in :data:`BASE`). A value that is
valid for a flag must run instead (exit 0, no NaN printed).
"""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from gdp.cli import build_parser, main

#: a cheap valid command line of each subcommand ({tmp} is a temporary directory)
BASE = {
    "convert": ["convert", "--mu", "1", "--delta", "1e-5"],
    "dpsgd": ["dpsgd", "--sigma", "1", "--p", "0.5", "--steps", "2"],
    "compose": ["compose", "gauss:1", "gauss:0.5"],
    "compare": ["compare", "gauss:1", "--k", "2"],
    "plot": ["plot", "gauss:1", "--out", "{tmp}/x.png"],
    "figures": ["figures", "--quick", "--only", "02_f_dp", "--format", "png", "--no-demo",
                "--out", "{tmp}/figs"],
    "calibrate": ["calibrate", "--eps", "1", "--delta", "1e-5", "--p", "0.5", "--steps", "2",
                  "--method", "clt"],
    "account": None,  # reads files: its own tests (tests/cli) cover them
    "demo": None,  # no value flags; covered by the parser tests
    "sql": None,  # its own tests (tests/cli/test_sql_cli.py) cover its files and budgets
}

BAD = ["nan", "inf", "-inf", "-1", "0", "1e308", "5e-324", "abc", "", "1e400", "9" * 400]

#: flags whose values are free text or paths (bad numbers are legitimate names)
TEXT_FLAGS = {"--title", "--label", "--file", "--csv", "--out", "-o", "--only"}


def _flags(sub: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in sub._actions if a.option_strings and a.nargs != 0
            and not isinstance(a, argparse._HelpAction | argparse._VersionAction)]


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    return parser.get_default("_subparsers")


def _run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _with(base: list[str], flag: str, value: str, tmp) -> list[str]:
    argv = [a.replace("{tmp}", str(tmp)) for a in base]
    if flag in argv:  # replace the base value (and any further values of an nargs flag)
        i = argv.index(flag)
        j = i + 1
        while j < len(argv) and not argv[j].startswith("--"):
            j += 1
        argv = argv[: i + 1] + [value] + argv[j:]
    else:
        argv = argv + [flag, value]
    return argv


def test_every_subcommand_has_a_base_command_line():
    assert set(_subparsers()) <= set(BASE), set(_subparsers()) - set(BASE)


@pytest.mark.parametrize("name", sorted(k for k, v in BASE.items() if v is not None))
def test_every_flag_refuses_bad_values_in_one_line(name, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a bad value may be a valid file name: write it there
    base = BASE[name]
    code, out, err = _run(capsys, [a.replace("{tmp}", str(tmp_path)) for a in base])
    assert code == 0, err
    problems = []
    for action in _flags(_subparsers()[name]):
        flag = max(action.option_strings, key=len)
        if flag == "--format" and action.choices is None:
            continue
        for value in BAD:
            argv = _with(base, flag, value, tmp_path)
            code, out, err = _run(capsys, argv)
            lines = err.strip().splitlines()
            if code == 0:
                if flag not in TEXT_FLAGS and "nan" in out.lower().split():
                    problems.append(f"{argv}: printed NaN")
                continue
            if "Traceback" in err or len(lines) != 1:
                problems.append(f"{argv}: {len(lines)} stderr lines: {err[:300]!r}")
            elif flag not in lines[0] and flag not in TEXT_FLAGS:
                problems.append(f"{argv}: the flag is not named: {lines[0]!r}")
            elif not lines[0].startswith(f"gdp {name}: "):
                problems.append(f"{argv}: not a gdp error line: {lines[0]!r}")
    assert not problems, "\n".join(problems[:30])


SPECS = ["rr:1e308", "gauss:nan", "lap:-1", "eps-delta:1,2", "foo:1", "gauss:", "gauss:1x0",
         "gauss:1x99999999999999999999", "dpsgd:1,0.1,1e308", "sgauss:0,0.5", "gauss:1,2",
         "rr:abc", "gauss:inf", "lap:1e400", "dpsgd:1,2,3"]


@pytest.mark.parametrize("name", ["compose", "compare", "plot"])
def test_bad_mechanism_specs_are_named(name, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    problems = []
    for spec in SPECS:
        if name == "compose":
            argv = ["compose", spec]
        elif name == "compare":
            argv = ["compare", spec, "--k", "10", "--delta", "1e-5"]
        else:
            argv = ["plot", spec, "--out", str(tmp_path / "x.png")]
        code, out, err = _run(capsys, argv)
        lines = err.strip().splitlines()
        if code == 0:
            continue  # a valid spec (gauss:inf is G_inf; compare skips what does not apply)
        if "Traceback" in err or len(lines) != 1 or spec not in lines[0]:
            problems.append(f"{argv}: {err[:300]!r}")
    assert not problems, "\n".join(problems)


def test_the_issue_reproducers(capsys, tmp_path):
    cases = [
        (["dpsgd", "--sigma", "1", "--batch-size", "256", "--dataset-size", "1e308",
          "--epochs", "1"], "--dataset-size"),
        (["dpsgd", "--sigma", "1", "--p", "0.01", "--epochs", "1e308"], "--epochs"),
        (["plot", "gauss:1", "--size", "0", "--out", str(tmp_path / "x.png")], "--size"),
        (["plot", "gauss:1", "--out", "/nonexistent/dir/x.png"], "--out"),
    ]
    for argv, flag in cases:
        code, out, err = _run(capsys, argv)
        lines = err.strip().splitlines()
        assert code != 0 and len(lines) == 1 and flag in lines[0], (argv, err)
    assert not (tmp_path / "x.png").exists()
    import os

    assert not os.path.exists("/nonexistent")  # no directory created
    # compare of a mechanism beyond some methods' range: those rows are skipped, no error
    code, out, err = _run(capsys, ["compare", "rr:1e308", "--k", "10", "--delta", "1e-5"])
    assert code == 0 and "skipped" in out and err == ""


def test_convert_prints_the_sigma_of_a_sensitivity(capsys):
    code, out, err = _run(capsys, ["convert", "--eps", "1", "--delta", "1e-5",
                                   "--sensitivity", "2"])
    assert code == 0 and "sigma = sensitivity/mu = 7.46126" in out
    code, out, err = _run(capsys, ["convert", "--eps", "1", "--delta", "1e-5",
                                   "--sensitivity", "2", "--json"])
    import json

    res = json.loads(out)
    assert res["sensitivity"] == 2.0
    assert res["sigma"] * res["mu"] >= 2.0  # never less noise than mu needs


def test_the_installed_command_never_prints_a_traceback():
    # the real entry point, in a subprocess: argparse and the library errors alike
    for argv in (["dpsgd", "--sigma", "1", "--p", "0.01", "--epochs", "1e308"],
                 ["compose", "gauss:nan"], ["convert", "--mu", "nan", "--delta", "1e-5"]):
        r = subprocess.run([sys.executable, "-m", "gdp", *argv], capture_output=True,
                           text=True, timeout=120)
        assert r.returncode != 0 and "Traceback" not in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr
