"""The private session: sensitivities and noise scales of the example queries by hand
(tests fail if either slips to the small side), the budget (refusals change nothing,
state round trip), the same session on sqlite and DuckDB, intervals, and the empirical
audit of join queries on neighbouring databases."""

import math
import sqlite3

import duckdb
import numpy as np
import pytest

import gdp
from gdp.sql import BudgetExceeded, PrivateDatabase, QueryMechanism, example, smooth_beta
from gdp.sql.example import SESSION

C = 12      # most trips of one rider in the example (measured)
MF = 189    # most trips of one driver in the example (measured)



def test_metrics_are_measured_once(db):
    assert db.metrics == {"rider_id": C, "driver_id": MF}


def test_global_sensitivities_and_scales(db):
    (r,) = db.explain("SELECT COUNT(*) FROM trips", eps=0.25)
    assert (r.noise, r.elastic, r.sensitivity) == ("laplace", C, C)
    assert r.scale >= C / 0.25 and r.scale == pytest.approx(C / 0.25, rel=1e-15)
    assert r.tradeoff == gdp.laplace(0.25)
    (r,) = db.explain("SELECT COUNT(*) FROM trips t JOIN drivers d ON t.driver_id = d.id",
                      eps=0.5)
    assert (r.noise, r.sensitivity, r.scale) == ("laplace", C, 24.0)   # drivers.id unique
    (r,) = db.explain("SELECT SUM(fare) FROM trips", eps=0.5)
    assert r.sensitivity == 50 * C                          # max(|0|, |50|) per row
    s, n = db.explain("SELECT AVG(fare) FROM trips", eps=0.5)
    assert (s.part, s.sensitivity, s.eps, n.part, n.sensitivity, n.eps) == \
        ("sum", 50 * C, 0.25, "count", C, 0.25)
    (r,) = db.explain("SELECT COUNT(*) FROM trips", eps=0.5, delta=1e-6, noise="gaussian")
    assert r.tradeoff == gdp.G_mu(float(gdp.mu_from_eps_delta(0.5, 1e-6)))
    assert r.scale >= C / float(gdp.mu_from_eps_delta(0.5, 1e-6))


def test_smoothed_sensitivity_of_a_self_join(db):
    eps, delta = 0.2, 1e-8
    (r,) = db.explain(SESSION[6][0], eps=eps, delta=delta)
    # c S_R(ck + c - 1) with S_R(k) = 2 (mf + k) + 1, by hand
    def es(k):
        return C * (2 * (MF + C * k + C - 1) + 1)
    beta = eps / (2 * math.log(2 / delta))
    brute = max(math.exp(-beta * k) * es(k) for k in range(20000))
    assert r.noise == "smooth" and r.elastic == es(0) == 4812
    assert r.beta == beta
    assert brute <= r.sensitivity <= brute * (1 + 1e-12)
    assert r.scale >= 2 * r.sensitivity / eps
    assert r.tradeoff == gdp.f_eps_delta(eps, delta)


def test_grouped_smoothing_uses_the_vector_beta(db):
    (r,) = db.explain("SELECT t1.city, COUNT(*) FROM trips t1 JOIN trips t2 "
                      "ON t1.driver_id = t2.driver_id GROUP BY t1.city", eps=0.2, delta=1e-8)
    assert r.beta == smooth_beta(0.2, 1e-8, dim=4) < smooth_beta(0.2, 1e-8)


def test_refusals_of_noise_without_a_proof(db):
    with pytest.raises(ValueError, match="depends on the data"):
        db.query(SESSION[6][0], eps=0.2, delta=1e-8, noise="laplace")
    with pytest.raises(ValueError, match="needs delta > 0"):
        db.query(SESSION[6][0], eps=0.2)
    with pytest.raises(ValueError, match="integer sensitivity|COUNT"):
        db.query("SELECT SUM(fare) FROM trips", eps=0.2, noise="discrete_laplace")
    with pytest.raises(ValueError, match="one coordinate"):
        db.query("SELECT city, COUNT(*) FROM trips GROUP BY city", eps=0.2, delta=1e-6,
                 noise="discrete_gaussian")
    with pytest.raises(ValueError, match="`noise` must be one of"):
        db.query("SELECT COUNT(*) FROM trips", eps=0.2, noise="cauchy")
    with pytest.raises(ValueError, match="`eps` must be a positive"):
        db.query("SELECT COUNT(*) FROM trips", eps=-1)
    assert len(db.accountant) == 0 and db.log == []


def test_discrete_noise_gives_integers_and_exact_curves(db):
    ans = db.query("SELECT COUNT(*) FROM trips", eps=0.5, noise="discrete_laplace")
    assert float(ans.value).is_integer()
    exact = gdp.mechanisms.DiscreteLaplace(sensitivity=C, eps=0.5).tradeoff
    grid = np.linspace(0, 1, 101)
    np.testing.assert_array_equal(ans.releases[0].tradeoff(grid), exact(grid))


def test_budget_refusal_changes_nothing(db, spy):
    db.query("SELECT COUNT(*) FROM trips", eps=2.5)
    state = (len(spy.calls), db.accountant.state_dict(), list(db.log), db.spent())
    with pytest.raises(BudgetExceeded, match="query refused.*nothing was run or recorded"):
        db.query("SELECT COUNT(*) FROM trips t JOIN drivers d ON t.driver_id = d.id", eps=0.6)
    assert (db.accountant.state_dict(), db.log, db.spent()) == state[1:]
    # only the public table was read (its max-frequency, for the plan); never the trips
    assert all("trips" not in sql for sql in spy.calls[state[0]:])
    left = db.remaining()
    assert 0.49 < left.eps <= 0.5
    db.query("SELECT COUNT(*) FROM trips", eps=0.49)          # what remains still fits


def test_the_session_budget_is_the_exact_composition(db):
    for sql, kw in SESSION:
        db.query(sql, **kw)
    spent = db.spent()
    curves = [c for r in db.log for c in r["curves"]]
    assert len(curves) == 11                                  # AVG is two releases
    eps_i = [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.2, 0.2, 0.1, 0.1]
    basic = sum(eps_i)
    assert spent.eps < basic                                  # tight f-DP composition
    assert spent.eps == pytest.approx(float(db.accountant.tradeoff().epsilon(1e-6)))
    assert spent.tradeoff.delta(3.0) <= 1e-6


def test_state_round_trip_charges_the_same(db, rides_conn):
    for sql, kw in SESSION[:4]:
        db.query(sql, **kw)
    fresh = PrivateDatabase(rides_conn, example.SCHEMA, budget=(3.0, 1e-6))
    fresh.load_state_dict(db.state_dict())
    assert fresh.spent().eps == db.spent().eps and len(fresh.log) == 4
    tight = PrivateDatabase(rides_conn, example.SCHEMA, budget=(0.2, 1e-6))
    with pytest.raises(BudgetExceeded):
        tight.load_state_dict(db.state_dict())
    assert tight.log == [] and len(tight.accountant) == 0
    with pytest.raises(ValueError, match="not a saved gdp.sql session"):
        fresh.load_state_dict({"version": 1, "log": [{"curves": [["bogus", 1]]}]})


def _session_summary(conn):
    db = PrivateDatabase(conn, example.SCHEMA, budget=(3.0, 1e-6),
                         rng=np.random.default_rng(5))
    out = []
    for sql, kw in SESSION:
        ans = db.query(sql, **kw)
        out.append([(r.noise, r.elastic, r.sensitivity, r.scale, r.eps, r.delta)
                    for r in ans.releases])
    return out, db.spent().eps


def test_sqlite_and_duckdb_agree(rides_conn):
    con = duckdb.connect()
    example.rides(con)
    assert _session_summary(rides_conn) == _session_summary(con)


def test_confidence_intervals_cover(db, rides_conn):
    mech = db.mechanism("SELECT COUNT(*) FROM trips t JOIN drivers d ON t.driver_id = d.id",
                        eps=0.5)
    truth = mech.true_value(rides_conn)
    draws = mech.sample(rides_conn, 4000, rng=np.random.default_rng(3))
    (r,) = db.explain(mech.sql, eps=0.5)
    radius = r.scale * math.log(1 / 0.05)
    cover = np.mean(np.abs(draws - truth) <= radius)
    assert 0.94 < cover < 0.96
    ans = db.query(mech.sql, eps=0.5)
    lo, hi = ans.interval
    assert hi - lo == pytest.approx(2 * radius)


def test_avg_interval_is_within_the_bounds(db):
    ans = db.query("SELECT city, AVG(fare) FROM trips GROUP BY city", eps=1.0)
    for row, (iv,) in zip(ans.rows, ans.intervals, strict=True):
        assert 0.0 <= iv[0] <= row[1] <= iv[1] <= 50.0


# ------------------------------------------------------------------ empirical audit
def _neighbours(extra_rider_trips):
    """The example database x, and x with one more rider (all of whose trips are given)."""
    x = example.rides()
    y = sqlite3.connect(":memory:")
    x.backup(y)
    new = y.execute("SELECT MAX(rider_id) + 1, MAX(trip_id) FROM trips").fetchone()
    y.executemany("INSERT INTO trips VALUES (?, ?, ?, 'Paris', 8, 20.0, 5.0)",
                  [(new[1] + i + 1, new[0], d) for i, d in enumerate(extra_rider_trips)])
    return x, y


class Scaled:
    """A query mechanism whose noise is multiplied by ``factor`` (the claim kept)."""

    def __init__(self, mech, factor):
        self.mech, self.factor, self.tradeoff = mech, factor, mech.tradeoff

    def __call__(self, db, rng=None):  # pragma: no cover - audit uses sample
        return self.sample(db, 1, rng=rng)[0]

    def sample(self, db, n, rng=None):
        truth = self.mech.true_value(db)
        return truth + self.factor * (self.mech.sample(db, n, rng=rng) - truth)


def test_audit_of_a_public_join_count():
    # the new rider has C trips with existing drivers: the count changes by C = the
    # sensitivity, so the Laplace curve is attained
    x, y = _neighbours([1] * C)
    db = PrivateDatabase(x, example.SCHEMA)
    mech = db.mechanism("SELECT COUNT(*) FROM trips t JOIN drivers d ON t.driver_id = d.id",
                        eps=1.0)
    assert isinstance(mech, QueryMechanism) and mech.tradeoff == gdp.laplace(1.0)
    assert mech.true_value(y) - mech.true_value(x) == C
    rng = np.random.default_rng(2024)
    res = gdp.audit(mech, x, y, n_samples=20000, rng=rng)
    assert not res.violation and res.eps_lower > 0.5
    res = gdp.audit(Scaled(mech, 0.5), x, y, n_samples=20000, rng=rng)
    assert res.violation                                      # halved noise is caught


def test_audit_of_a_smoothed_self_join_count():
    # the new rider rides C times with the busiest driver: the self-join count grows by
    # sum_j (2 (MF + j) + 1), close to the elastic bound at x
    x, y = _neighbours([_busiest()] * C)
    db = PrivateDatabase(x, example.SCHEMA)
    mech = db.mechanism("SELECT COUNT(*) FROM trips t1 JOIN trips t2 "
                        "ON t1.driver_id = t2.driver_id", eps=2.0, delta=1e-3)
    gap = mech.true_value(y) - mech.true_value(x)
    assert gap == sum(2 * (MF + j) + 1 for j in range(C))
    rng = np.random.default_rng(7)
    assert not gdp.audit(mech, x, y, n_samples=20000, rng=rng).violation
    # the claim f_{eps,delta} leaves the paper's factor 2 as slack: a quarter of the
    # noise is caught, half of it cannot be (the shift is at most S, i.e. eps/2 per b)
    assert gdp.audit(Scaled(mech, 0.25), x, y, n_samples=20000, rng=rng).violation


def _busiest():
    conn = example.rides()
    return conn.execute("SELECT driver_id FROM trips GROUP BY driver_id "
                        "ORDER BY COUNT(*) DESC LIMIT 1").fetchone()[0]
