"""Priority, due dates (B24) and reservations (B25) as the client, the command line and the app read
and say them: pure functions, driven with a fixed "now"."""

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from queuedesk.api import priority_rules as rules
from queuedesk.api.client.assign import reservable
from queuedesk.api.client.imports import needed_features, task_entries
from queuedesk.api.models import AssignedTask, Block, User
from queuedesk.commands.common import UsageError
from queuedesk.commands.csv_rows import placed_of, read_rows
from queuedesk.tui.modals.task_priority import read_priority_due
from queuedesk.tui.panes.pending_placing import due_cell, priority_cell
from queuedesk.tui.widgets.task_deadline import deadline_line

NOW = datetime(2026, 12, 8, 9, 0, tzinfo=UTC)


def task(**given: object) -> AssignedTask:
    return AssignedTask.model_validate(
        {
            "id": 7,
            "status": "open",
            "created_at": "2026-12-08T08:00:00Z",
            "queue": "q",
            "queue_id": 1,
            "data": {},
            "source": "api",
            "assignment": {},
            **given,
        }
    )


@pytest.mark.parametrize(
    ("typed", "due"),
    [
        ("+2h", NOW + timedelta(hours=2)),
        ("+30m", NOW + timedelta(minutes=30)),
        ("+1d", NOW + timedelta(days=1)),
        ("-1h", NOW - timedelta(hours=1)),
        ("+ 45 min", NOW + timedelta(minutes=45)),
        ("2026-12-24T17:00Z", datetime(2026, 12, 24, 17, tzinfo=UTC)),
        ("2026-12-24T17:00:00.5+01:00", datetime(2026, 12, 24, 16, 0, 0, 500000, tzinfo=UTC)),
        ("2026-12-24T17:00", datetime(2026, 12, 24, 17, tzinfo=UTC)),  # no zone: UTC
        ("2026-12-24", datetime(2026, 12, 24, tzinfo=UTC)),
        ("none", None),
        ("", None),
        (" NULL ", None),
    ],
)
def test_a_due_date_is_read_as_typed(typed: str, due: datetime | None) -> None:
    assert rules.parse_due(typed, NOW) == due


@pytest.mark.parametrize("typed", ["tomorrow", "+2 fortnights", "2026-13-01", "12/24/2026", "+h"])
def test_a_due_date_that_is_none_says_what_to_type(typed: str) -> None:
    with pytest.raises(
        ValueError, match=r"not a due date: give a time such as .* \+30m, \+2h or \+1d, or none"
    ):
        rules.parse_due(typed, NOW)


@pytest.mark.parametrize(
    ("typed", "value"), [("0", 0), ("5", 5), ("+10", 10), ("-1000", -1000), (" 1000 ", 1000)]
)
def test_a_priority_is_a_signed_whole_number(typed: str, value: int) -> None:
    assert rules.parse_priority(typed) == value


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("1001", "from -1000 to 1000, not 1001"),
        ("-1001", "not -1001"),
        ("high", "not 'high'"),
        ("1.5", "not '1.5'"),
        ("- 3", "not '- 3'"),
        ("", "not ''"),
    ],
)
def test_a_priority_out_of_range_or_not_a_number_is_refused(typed: str, said: str) -> None:
    with pytest.raises(ValueError, match=said):
        rules.parse_priority(typed)


@pytest.mark.parametrize(
    ("offset", "said", "short"),
    [
        (timedelta(hours=3, minutes=10), "due in 3 h", "in 3 h"),
        (timedelta(minutes=12, seconds=30), "due in 12 min", "in 12 min"),
        (timedelta(seconds=30), "due now", "now"),
        (timedelta(0), "due now", "now"),
        (-timedelta(seconds=30), "due now", "now"),
        (-timedelta(minutes=5), "overdue 5 min", "overdue 5 min"),
        (-timedelta(days=2, hours=5), "overdue 2 d", "overdue 2 d"),
    ],
)
def test_a_due_date_is_said_from_now(offset: timedelta, said: str, short: str) -> None:
    assert rules.due_text(NOW + offset, NOW) == said
    assert rules.short_due(NOW + offset, NOW) == short
    assert rules.due_text(None, NOW) == ""


def test_placement_gives_only_what_is_given_and_says_what_it_needs() -> None:
    assert rules.placement() == {}
    body = rules.placement(5, NOW, "ana@acme.test")
    assert body == {"priority": 5, "due_at": "2026-12-08T09:00:00.000000Z", "reserved_for": "ana@acme.test"}
    assert rules.placement(priority=0) == {"priority": 0}  # an explicit 0 is sent
    assert rules.features_for({"data": {}, **body}) == ["B24", "B25"]
    entries = task_entries([{"a": 1}, {"a": 2}], None, [None, {"reserved_for": "x@y.z"}])
    assert entries == [{"data": {"a": 1}}, {"data": {"a": 2}, "reserved_for": "x@y.z"}]
    assert needed_features(entries) == ["B25"]
    assert needed_features(task_entries([{"a": 1}], [{"c": "r"}], [{"priority": 1}])) == ["B22", "B24"]
    with pytest.raises(ValueError, match="placed has 1 entries for 2 tasks"):
        task_entries([{"a": 1}, {"a": 2}], None, [None])


def test_the_order_and_its_meaning() -> None:
    assert rules.order_problem("oldest") is None and rules.order_problem("least_confident") is None
    assert "one of oldest, least_confident" in (rules.order_problem("newest") or "")
    assert "lowest suggestion score" in rules.ORDER_MEANINGS["least_confident"]


def test_only_enabled_workers_and_admins_may_be_reserved_for_workers_first() -> None:
    def user(i: int, name: str, role: str, disabled: bool = False) -> User:
        return User(
            id=i, email=f"{name.lower()}@acme.test", name=name, role=role, disabled=disabled, created_at=NOW
        )

    people = [
        user(1, "Zed", "admin"),
        user(2, "Sue", "supervisor"),
        user(3, "Wes", "worker"),
        user(4, "Old", "worker", disabled=True),
        user(5, "Ana", "worker"),
    ]
    assert [u.name for u in reservable(people)] == ["Ana", "Wes", "Zed"]


def test_csv_columns_priority_due_at_and_reserved_for(tmp_path: Path) -> None:
    blocks = [Block(id="text", name="Text", type="text")]
    path = tmp_path / "tasks.csv"
    path.write_text(
        "text,priority,due_at,reserved_for\nA,5,2026-12-24T17:00Z,ana@acme.test\nB,,,\nC,-3,+2h,\n",
        encoding="utf-8",
    )
    rows = read_rows(path, blocks)
    assert [r.data for r in rows] == [{"text": "A"}, {"text": "B"}, {"text": "C"}]
    placed = placed_of(rows)
    assert placed is not None
    assert placed[0] == {
        "priority": 5,
        "due_at": "2026-12-24T17:00:00.000000Z",
        "reserved_for": "ana@acme.test",
    }
    assert placed[1] is None  # empty cells: the defaults
    assert placed[2] is not None and placed[2]["priority"] == -3 and "due_at" in placed[2]
    path.write_text("text,priority,due_at\nA,2000,soon\n", encoding="utf-8")
    with pytest.raises(UsageError) as refused:
        read_rows(path, blocks)
    said = str(refused.value)
    assert "row 1 (line 2): priority: a priority is a whole number from -1000 to 1000" in said
    assert "due_at: 'soon' is not a due date" in said
    # A block of the same id takes the column.
    own = [Block(id="text", name="Text", type="text"), Block(id="priority", name="Priority", type="text")]
    path.write_text("text,priority\nA,high\n", encoding="utf-8")
    rows = read_rows(path, own)
    assert rows[0].data == {"text": "A", "priority": "high"} and placed_of(rows) is None
    path.write_text("text,priority\nA,1\n", encoding="utf-8")
    with pytest.raises(UsageError, match="this server has no priority, due dates or reservations"):
        read_rows(path, blocks, original=True)


def test_the_pending_tabs_cells() -> None:
    late = due_cell(NOW - timedelta(days=2), NOW)
    assert (late.plain, str(late.style)) == ("late 2 d", "bold red")
    soon = due_cell(NOW + timedelta(minutes=40), NOW)
    assert (soon.plain, str(soon.style)) == ("in 40 min", "yellow")
    assert due_cell(NOW + timedelta(hours=3), NOW).plain == "in 3 h"
    assert due_cell(None, NOW).plain == ""
    assert (
        priority_cell(5).plain == "+5" and priority_cell(-10).plain == "-10" and priority_cell(0).plain == ""
    )


def test_the_work_screens_line_says_due_priority_and_reserved_for_you() -> None:
    assert deadline_line(task(), NOW, "wes@acme.test") is None
    assert deadline_line(None, NOW, None) is None
    line = deadline_line(
        task(due_at="2026-12-08T07:00:00Z", priority=5, reserved_for="Wes@acme.test"), NOW, "wes@acme.test"
    )
    assert line is not None and line.plain == "overdue 2 h · priority +5 · reserved for you"
    other = deadline_line(
        task(due_at="2026-12-08T09:12:00Z", reserved_for="ana@acme.test"), NOW, "wes@acme.test"
    )
    assert other is not None and other.plain == "due in 12 min · reserved for ana@acme.test"
    done = task(status="completed", due_at="2026-12-08T07:00:00Z")
    assert deadline_line(done, NOW, None) is None


def test_the_priority_dialog_reads_its_fields() -> None:
    chosen, problems = read_priority_due("7", "+1h", NOW)
    assert problems == [] and chosen is not None
    assert (chosen.priority, chosen.due_at) == (7, NOW + timedelta(hours=1))
    chosen, problems = read_priority_due("", "none", NOW)
    assert chosen is not None and (chosen.priority, chosen.due_at) == (0, None)
    chosen, problems = read_priority_due("5000", "later", NOW)
    assert chosen is None and len(problems) == 2
    assert problems[0].startswith("Priority: a priority is a whole number from -1000 to 1000")
    assert problems[1].startswith("Due: 'later' is not a due date")
