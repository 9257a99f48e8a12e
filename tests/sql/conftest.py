"""Fixtures of the private-SQL tests: the example rides database, and a back end that
records every statement it is asked to run."""

import numpy as np
import pytest

from gdp.sql import DBAPI, PrivateDatabase, example


class Spy(DBAPI):
    """A sqlite back end that remembers the statements it ran."""

    def __init__(self, connection):
        super().__init__(connection, "sqlite")
        self.calls = []

    def run(self, sql):
        self.calls.append(sql)
        return super().run(sql)


@pytest.fixture(scope="module")
def rides_conn():
    return example.rides()


@pytest.fixture
def spy(rides_conn):
    return Spy(rides_conn)


@pytest.fixture
def db(spy):
    return PrivateDatabase(spy, example.SCHEMA, budget=(3.0, 1e-6),
                           rng=np.random.default_rng(11))
