"""The store's SQL helpers: `Sql` (one text, its SQLite and PostgreSQL forms), `one`/`rows`/`run` on
the driver's cursor, and the timestamp columns' integer microseconds."""

import importlib
import pkgutil
import re
import string
from datetime import UTC, datetime, timedelta, timezone
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import Connection, create_engine

import queuedesk.server.store as store
from queuedesk.server.store.sql import LOCKS, Sql, one, rows, run
from queuedesk.server.store.types import EPOCH, from_micros, to_micros
from tests.unit.strategies import PROPERTY

names = st.builds(
    str.__add__,
    st.sampled_from(string.ascii_lowercase + "_"),
    st.text(string.ascii_lowercase + string.digits + "_", max_size=8),
)
# SQL around the parameters: words, spaces, operators, casts, quoted text without colons.
between = st.lists(
    st.sampled_from(["SELECT", "x", "=", "AND", " ", "\n\t", "(", ")", ",", "::bigint", "'text'", "{lock}"]),
    max_size=4,
).map(" ".join)


@st.composite
def statements(draw: st.DrawFn) -> tuple[str, list[str]]:
    """SQL text with `:name` parameters (some repeated), and the names in order of appearance."""
    used = draw(st.lists(names, min_size=0, max_size=6))
    text = draw(between)
    for name in used:
        text += f" :{name} " + draw(between)
    return text, used


# --- Sql ----------------------------------------------------------------------------------------


@PROPERTY
@given(statements())
def test_numbered_parameters_are_the_names_in_order_of_first_use(statement):
    text, used = statement
    numbered, order = Sql(text).numbered
    assert list(order) == list(dict.fromkeys(used))
    placeholders = [int(n) for n in re.findall(r"\$(\d+)", numbered)]
    assert placeholders == [order.index(name) + 1 for name in used]  # a repeated name keeps its number


@PROPERTY
@given(statements())
def test_numbering_changes_nothing_but_the_parameters(statement):
    text, _used = statement
    sql = Sql(text)
    numbered, order = sql.numbered
    back = re.sub(r"\$(\d+)", lambda m: ":" + order[int(m.group(1)) - 1], numbered)
    assert back == sql._locks("postgresql")
    assert "::bigint" not in text or "::bigint" in numbered  # casts are no parameters


@PROPERTY
@given(statements())
def test_whitespace_collapses_and_sqlite_keeps_named_parameters(statement):
    text, used = statement
    sql = Sql(text)
    assert sql.source == " ".join(text.split())
    assert "{" not in sql.text and "FOR UPDATE" not in sql.text
    assert re.findall(r"(?<!:):([a-z_][a-z0-9_]*)", sql.text) == used


def test_row_locks_only_on_postgresql():
    sql = Sql("SELECT id FROM tasks WHERE queue_id = :queue_id {skip_locked}")
    assert sql.text == "SELECT id FROM tasks WHERE queue_id = :queue_id"
    assert sql.numbered == ("SELECT id FROM tasks WHERE queue_id = $1 FOR UPDATE SKIP LOCKED", ("queue_id",))
    assert set(LOCKS["sqlite"]) == set(LOCKS["postgresql"])


def _statements_of_the_store() -> list[tuple[str, Sql]]:
    found = []
    for info in pkgutil.iter_modules(store.__path__):
        module = importlib.import_module(f"{store.__name__}.{info.name}")
        found += [(f"{info.name}.{name}", v) for name, v in vars(module).items() if isinstance(v, Sql)]
    return found


def test_every_statement_of_the_store_translates_whole():
    """No parameter a dialect would not bind: an upper-case `:Name` would stay as it is in the PostgreSQL
    form, and a colon inside a quoted literal ('10:30', 'a:b') would be numbered as a parameter."""
    found = _statements_of_the_store()
    assert len(found) > 10
    for where, sql in found:
        numbered, order = sql.numbered
        assert not re.search(r"(?<!:):[A-Za-z_]", numbered), where
        assert not any(":" in literal for literal in re.findall(r"'[^']*'", sql.source)), where
        assert "{" not in sql.text and "{" not in numbered, where
        assert len(order) == len(set(order)), where


# --- one, rows, run on SQLite -------------------------------------------------------------------


@pytest.fixture
def conn() -> Any:
    engine = create_engine("sqlite://")
    with engine.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, n INTEGER)")
        yield connection
    engine.dispose()


INSERT = Sql("INSERT INTO t (name, n) VALUES (:name, :n)")
BY_N = Sql("SELECT id, name FROM t WHERE n >= :n AND n < :n + :width ORDER BY id")


def test_one_rows_and_run_on_sqlite(conn: Connection):
    assert [run(conn, INSERT, name=f"row{i}", n=i) for i in range(5)] == [1] * 5
    assert one(conn, BY_N, n=3, width=10) == (4, "row3")
    assert one(conn, BY_N, n=9, width=1) is None
    assert rows(conn, BY_N, n=1, width=2) == [(2, "row1"), (3, "row2")]
    assert run(conn, Sql("UPDATE t SET name = :name WHERE n < :n"), name="low", n=2) == 2


class RecordingCursor:
    def __init__(self) -> None:
        self.executed: list[tuple[str, Any]] = []
        self.rowcount = 3

    def execute(self, text: str, params: Any) -> None:
        self.executed.append((text, params))

    def fetchone(self) -> tuple[Any, ...]:
        return (1,)

    def close(self) -> None:
        pass


def test_postgresql_gets_positional_values_in_the_numbered_order():
    cursor = RecordingCursor()
    fake = SimpleNamespace(
        dialect=SimpleNamespace(name="postgresql"),
        connection=SimpleNamespace(dbapi_connection=SimpleNamespace(cursor=lambda: cursor)),
    )
    assert run(fake, BY_N, width=10, n=3) == 3  # keyword order is not the statement's
    assert cursor.executed == [
        ("SELECT id, name FROM t WHERE n >= $1 AND n < $1 + $2 ORDER BY id", (3, 10)),
    ]


# --- timestamps as integer microseconds ---------------------------------------------------------

moments = st.datetimes(
    min_value=datetime(1900, 1, 1),
    max_value=datetime(2200, 1, 1),
    timezones=st.sampled_from([UTC, timezone(timedelta(hours=-3)), timezone(timedelta(hours=9, minutes=45))]),
)


@PROPERTY
@given(moments)
def test_a_moment_round_trips_through_micros_to_the_same_instant_in_utc(moment):
    back = from_micros(to_micros(moment))
    assert back == moment
    assert back.utcoffset() == timedelta(0)


@PROPERTY
@given(moments, moments)
def test_micros_sort_as_the_moments_do(first, second):
    assert (to_micros(first) < to_micros(second)) == (first < second)
    assert to_micros(second) - to_micros(first) == (second - first) // timedelta(microseconds=1)


def test_the_epoch_is_zero():
    assert to_micros(EPOCH) == 0
    assert to_micros(datetime(1970, 1, 1, 0, 0, 1, 5, tzinfo=UTC)) == 1_000_005
