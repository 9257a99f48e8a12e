"""The query subset: adversarial SQL is refused before it reaches the database, with the
budget unchanged; refusals name the clause; the rewritten statement is what runs."""

import pytest

from gdp.sql import UnsupportedQuery

ADVERSARIAL = [
    ("SELECT COUNT(*) FROM trips; DROP TABLE trips", "exactly one statement"),
    ("SELECT COUNT(*) FROM trips; SELECT COUNT(*) FROM drivers", "exactly one statement"),
    ("SELECT COUNT(*) FROM trips;;", "exactly one statement"),
    ("SELECT COUNT(*) FROM trips -- hidden", "comments are not allowed"),
    ("SELECT COUNT(*) /* x */ FROM trips", "comments are not allowed"),
    ("SELECT COUNT(*) FROM trips WHERE city = 'Paris' --' OR 1=1", "comments"),
    ("DROP TABLE trips", "only SELECT"),
    ("INSERT INTO trips (trip_id) VALUES (1)", "only SELECT"),
    ("UPDATE trips SET fare = 0", "only SELECT"),
    ("SELECT COUNT(*) FROM (SELECT * FROM trips) AS s", "nested subqueries"),
    ("SELECT COUNT(*) FROM trips WHERE rider_id IN (SELECT rider_id FROM trips WHERE fare > 40)",
     "WHERE"),
    ("SELECT COUNT(*) FROM trips WHERE EXISTS (SELECT 1 FROM drivers)", "nested subqueries"),
    ("SELECT COUNT(*) FROM trips WHERE (SELECT MAX(fare) FROM trips) > 10", "nested subqueries"),
    ("WITH s AS (SELECT * FROM trips) SELECT COUNT(*) FROM s", "WITH"),
    ("SELECT COUNT(*) FROM trips UNION SELECT COUNT(*) FROM drivers", "only SELECT"),
    ("SELECT COUNT(*) FROM sqlite_master", "not in the schema"),
    ("SELECT COUNT(*) FROM main.trips", "schema-qualified"),
    ("SELECT COUNT(*) FROM trips WHERE load_extension('evil') = 1", "function LOAD_EXTENSION"),
    ("SELECT COUNT(*) FROM trips WHERE random() > 0", "function RAND"),
    ("SELECT COUNT(*) FROM trips WHERE fare / (fare - 12.5) > 0", "division"),
    ("SELECT fare FROM trips", "neither aggregated nor in GROUP BY"),
    ("SELECT * FROM trips", "rows are never released"),
    ("SELECT MAX(fare) FROM trips", "function MAX"),
    ("SELECT COUNT(DISTINCT rider_id) FROM trips", "DISTINCT"),
    ("SELECT DISTINCT city FROM trips", "DISTINCT"),
    ("SELECT SUM(rider_id) FROM trips", "needs declared bounds"),
    ("SELECT SUM(fare * 2) FROM trips", "plain column"),
    ("SELECT driver_id, COUNT(*) FROM trips GROUP BY driver_id", "no public domain"),
    ("SELECT city, COUNT(*) FROM trips GROUP BY city HAVING COUNT(*) > 5", "HAVING"),
    ("SELECT COUNT(*) FROM trips ORDER BY 1", "ORDER"),
    ("SELECT COUNT(*) FROM trips LIMIT 1", "LIMIT"),
    ("SELECT COUNT(*) FROM trips t JOIN drivers d ON t.driver_id > d.id", "not an equality"),
    ("SELECT COUNT(*) FROM trips t, drivers d", "cross join"),
    ("SELECT COUNT(*) FROM trips t LEFT JOIN drivers d ON t.driver_id = d.id", "LEFT"),
    ("SELECT COUNT(*) FROM trips t JOIN drivers d USING (city)", "USING"),
    ("SELECT COUNT(*) FROM trips t1 JOIN trips t2 ON t1.fare = t2.fare", "no max-frequency"),
    ("SELECT COUNT(*) FROM trips WHERE nope = 1", "no table of the FROM clause"),
    ("SELECT COUNT(*) FROM trips t1 JOIN trips t2 ON t1.driver_id = t2.driver_id "
     "WHERE hour = 3", "ambiguous"),
    ("SELEC COUNT(*) FROM trips", "not valid SQL|only SELECT"),
    ("SELECT COUNT(*) FROM trips WHERE city = 'unterminated", "not valid SQL"),
]


@pytest.mark.parametrize("sql,match", ADVERSARIAL)
def test_refused_before_the_database_with_the_budget_unchanged(db, spy, sql, match):
    before = (list(spy.calls), db.accountant.state_dict(), list(db.log))
    with pytest.raises(UnsupportedQuery, match=match):
        db.query(sql, eps=0.1, delta=1e-8)
    assert (spy.calls, db.accountant.state_dict(), db.log) == before
    assert spy.run("SELECT COUNT(*) FROM trips")[0][0] > 0   # nothing was dropped


def test_a_quote_inside_a_literal_stays_a_literal(db, spy):
    sql = "SELECT COUNT(*) FROM trips WHERE city = 'x''; DROP TABLE trips; --'"
    ans = db.query(sql, eps=0.1)
    ran = spy.calls[-1]
    assert ran.endswith("= 'x''; DROP TABLE trips; --')")
    assert abs(ans.value) < 200                               # no trip has that city
    assert spy.run("SELECT COUNT(*) FROM trips")[0][0] > 0


def test_the_rewritten_statement_clamps_and_restricts_groups(db, spy):
    db.query("SELECT city, SUM(fare) AS total FROM trips GROUP BY city", eps=0.2)
    ran = spy.calls[-1]
    assert 'CASE WHEN "trips"."fare" < 0.0 THEN 0.0 WHEN "trips"."fare" > 50.0 THEN 50.0' in ran
    assert "IN ('Lille', 'Lyon', 'Nice', 'Paris')" in ran
    assert "GROUP BY" in ran


def test_groups_are_exactly_the_public_domain(db, rides_conn):
    ans = db.query("SELECT hour, COUNT(*) FROM trips WHERE hour < 2 GROUP BY hour", eps=0.2)
    assert [r[0] for r in ans.rows] == list(range(24))        # empty hours are still there
    assert ans.columns == ("trips.hour", "COUNT(*)")
