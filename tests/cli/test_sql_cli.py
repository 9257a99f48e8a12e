"""``gdp sql``: answers, --json, --explain, a budget kept across calls in --state, and
one-line errors (exit 2) for refused queries, exceeded budgets and bad files."""

import json

import pytest

from gdp.cli import main
from gdp.sql import example


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("rides")
    example.write(str(d / "rides.sqlite"), str(d / "rides.toml"))
    return str(d / "rides.sqlite"), str(d / "rides.toml")


def run(files, *args):
    return main(["sql", "--db", files[0], "--schema", files[1], *args])


def test_answer_text(files, capsys):
    assert run(files, "--eps", "0.5", "SELECT COUNT(*) FROM trips t JOIN drivers d "
               "ON t.driver_id = d.id") == 0
    out = capsys.readouterr().out
    assert "COUNT(*) = " in out and "noise laplace, scale 24, sensitivity 12 (global)" in out


def test_json_and_explain(files, capsys):
    assert run(files, "--eps", "0.4", "--delta", "1e-8", "--json",
               "SELECT t1.city, COUNT(*) FROM trips t1 JOIN trips t2 "
               "ON t1.driver_id = t2.driver_id GROUP BY t1.city") == 0
    res = json.loads(capsys.readouterr().out)
    assert len(res["rows"]) == 4 and res["releases"][0]["noise"] == "smooth"
    assert res["releases"][0]["scale"] >= 2 * res["releases"][0]["sensitivity"] / 0.4
    assert run(files, "--eps", "0.4", "--explain", "--json", "SELECT SUM(fare) FROM trips") == 0
    res = json.loads(capsys.readouterr().out)
    assert res["releases"][0]["sensitivity"] == 600.0 and "rows" not in res


def test_budget_across_calls(files, tmp_path, capsys):
    state = tmp_path / "session.json"
    args = ["--budget", "1", "1e-6", "--state", str(state), "--eps", "0.6"]
    assert run(files, *args, "SELECT COUNT(*) FROM trips") == 0
    saved = state.read_text()
    capsys.readouterr()
    assert run(files, *args, "SELECT COUNT(*) FROM trips") == 2
    err = capsys.readouterr().err
    assert err.startswith("gdp sql: error: query refused") and err.count("\n") == 1
    assert state.read_text() == saved                      # the ledger is unchanged


@pytest.mark.parametrize("sql,match", [
    ("SELECT COUNT(*) FROM trips; DROP TABLE trips", "exactly one statement"),
    ("SELECT fare FROM trips", "neither aggregated nor in GROUP BY"),
    ("SELECT COUNT(*) FROM trips t1 JOIN trips t2 ON t1.driver_id = t2.driver_id",
     "needs delta > 0"),
])
def test_one_line_errors(files, capsys, sql, match):
    assert run(files, "--eps", "0.5", sql) == 2
    err = capsys.readouterr().err
    assert err.startswith("gdp sql: error:") and match in err and err.count("\n") == 1


def test_bad_files(files, tmp_path, capsys):
    assert main(["sql", "--db", str(tmp_path / "none.sqlite"), "--schema", files[1],
                 "--eps", "1", "SELECT COUNT(*) FROM trips"]) == 2
    assert "must be an existing database file" in capsys.readouterr().err
    bad = tmp_path / "bad.toml"
    bad.write_text("[trips]\nprotected = 1\n")
    assert main(["sql", "--db", files[0], "--schema", str(bad), "--eps", "1",
                 "SELECT COUNT(*) FROM trips"]) == 2
    assert "exactly one of `protected = true`" in capsys.readouterr().err
