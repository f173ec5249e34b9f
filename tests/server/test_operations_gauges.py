"""A scrape's gauges cost the same whatever the backlog: the same statements at 1,000 and at 100,000
pending tasks, each an index lookup, never a scan of tasks, reviews or deliveries (the query plans
say so). A real SQLite database, no server: the unit of work the /metrics answer runs (PostgreSQL's
scrape at 1,000,000 pending: bench/scrape_cost.py)."""

from sqlalchemy import Connection, create_engine, event, text

from queuedesk.server.store import schema
from queuedesk.server.store.gauges import GAUGES, read_gauges
from tests.server.conftest import sqlite_only

QUEUES = 3


def _fill(conn: Connection, pending: int) -> None:
    """`pending` tasks in each of QUEUES queues, made by the database itself."""
    conn.execute(text("INSERT INTO organizations (name, created_at) VALUES ('o', 0)"))
    for n in range(QUEUES):
        conn.execute(
            text(
                "INSERT INTO queues (organization_id, name, description, blocks, created_at) "
                f"VALUES (1, 'q{n}', '', '[]', 0)"
            )
        )
        conn.execute(
            text(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < :pending) "
                "INSERT INTO tasks (queue_id, status, data, source, created_at) "
                "SELECT :queue, 'new', '{}', 'api', i FROM n"
            ),
            {"pending": pending, "queue": n + 1},
        )
        conn.execute(
            text("UPDATE queues SET n_tasks = :pending WHERE id = :queue"),
            {"pending": pending, "queue": n + 1},
        )


def _cost(url: str, pending: int) -> tuple[int, int, list]:
    """The statements a scrape's gauges issue, and the SQLite virtual machine's steps they take (in
    hundreds): a count of a backlog would take a hundred times more steps at 100,000 than at 1,000."""
    engine = create_engine(url)
    seen: list[str] = []
    with engine.begin() as conn:
        schema.upgrade(conn)
        _fill(conn, pending)
    event.listen(engine, "before_cursor_execute", lambda _c, _cur, statement, *_a: seen.append(statement))
    steps = 0

    def step() -> int:
        nonlocal steps
        steps += 1
        return 0

    with engine.begin() as conn:
        driver = conn.connection.dbapi_connection
        driver.set_progress_handler(step, 100)
        gauges = read_gauges(conn)
        driver.set_progress_handler(None, 0)
    engine.dispose()
    return len(seen), steps, gauges.queues


def test_a_scrape_costs_the_same_at_1000_and_100000_pending(backend, tmp_path) -> None:
    sqlite_only(backend, "a synchronous engine on the test's own file")
    small, small_steps, queues = _cost(f"sqlite:///{tmp_path / 'small.db'}", 1_000)
    large, large_steps, large_queues = _cost(f"sqlite:///{tmp_path / 'large.db'}", 100_000)
    assert small == large == 1
    assert large_steps <= small_steps + 2, (small_steps, large_steps)
    assert [q.tasks_pending for q in queues] == [1_000] * QUEUES
    assert [q.tasks_pending for q in large_queues] == [100_000] * QUEUES
    assert all(q.oldest_pending_age > 0 for q in large_queues)


def test_no_part_of_the_scrape_scans_a_table_of_rows(backend, tmp_path) -> None:
    sqlite_only(backend, "SQLite's query plan")
    engine = create_engine(f"sqlite:///{tmp_path / 'plan.db'}")
    with engine.begin() as conn:
        schema.upgrade(conn)
        _fill(conn, 100)
        conn.execute(text("ANALYZE"))
        plan = [row[3] for row in conn.execute(text(f"EXPLAIN QUERY PLAN {GAUGES}"))]
    engine.dispose()
    scans = [step for step in plan if step.startswith("SCAN") and step != "SCAN q"]  # q: the queues
    assert scans == [], plan
    for table in ("tasks", "deliveries"):
        assert any(step.startswith(f"SEARCH {table} USING") for step in plan), plan
