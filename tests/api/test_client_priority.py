"""The client's priority and due dates (B24) and reservations (B25): typed answers from a real
`queuedesk serve`, and one clear "this server has no ..." with nothing sent from a server without
them: a real QueueDesk made to answer as one older than `features`, and the original service's
stand-in."""

# ruff: noqa: F811  (the fixtures imported by name are the tests' parameters)

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from queuedesk import __version__
from queuedesk.api.client import KEEP, QueueDeskClient
from queuedesk.api.errors import (
    Conflict,
    FeatureMissing,
    Forbidden,
    NoAssignment,
    NoPriority,
    NotSupported,
    ValidationError,
)
from tests.api.test_client import connect, own_settings  # noqa: F401  (the fixture, used by name)
from tests.api.test_client_consensus import older  # noqa: F401  (the fixture, used by name)
from tests.api.test_original_service import QUEUE, OriginalService, original, service  # noqa: F401
from tests.api.test_original_service import connect as connect_original
from tests.conftest import make_queue
from tests.support import KEYS, ServerProcess
from tests.support.older_server import OlderServer

DUE = datetime(2026, 12, 24, 17, tzinfo=UTC)

# Every call of B24 and B25, each with what it is called with, and the section it needs.
CALLS: list[tuple[str, str, tuple[Any, ...], dict[str, Any]]] = [
    ("B24", "create_task", (QUEUE, {"paragraph": "p"}), {"priority": 5}),
    ("B24", "create_task", (QUEUE, {"paragraph": "p"}), {"due_at": DUE}),
    ("B25", "create_task", (QUEUE, {"paragraph": "p"}), {"reserved_for": "wes@acme.test"}),
    ("B24", "import_tasks", (QUEUE, [{"paragraph": "p"}]), {"placed": [{"priority": 1}]}),
    ("B25", "import_tasks", (QUEUE, [{"paragraph": "p"}]), {"placed": [{"reserved_for": "w@x.y"}]}),
    ("B24", "patch_task", (QUEUE, 5), {"priority": 3}),
    ("B24", "patch_task", (QUEUE, 5), {"due_at": None}),
    ("B24", "set_queue_order", (QUEUE, "least_confident"), {}),
    ("B24", "queue_with_order", (QUEUE,), {}),
    ("B24", "update_queue", (QUEUE,), {"order": "oldest"}),
    ("B24", "create_queue", ("new", [{"id": "t", "name": "T", "type": "text"}]), {"order": "oldest"}),
    ("B24", "pending_tasks", (QUEUE,), {"overdue": True}),
    ("B24", "overdue_tasks", (QUEUE,), {}),
    ("B25", "pending_tasks", (QUEUE,), {"reserved_for": "me"}),
    ("B25", "assign", (QUEUE, 5, "wes@acme.test"), {}),
    ("B25", "assign", (QUEUE, 5, None), {}),
    ("B25", "reservable_people", (), {}),
]
IDS = [f"{c[1]}-{i}" for i, c in enumerate(CALLS)]
WORDS = {
    "B24": "has no priority and due dates (tasks claimed by priority and due date, overdue counts)",
    "B25": "has no reservations (tasks reserved for one person)",
}


def _on(queue_id: int, args: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(queue_id if arg == QUEUE else arg for arg in args)


def needs(server: ServerProcess, *features: str, key: str = KEYS["admin"]) -> None:
    """Skips while the test server does not list `features`; once it does the test runs, and fails
    where the server does not do what B24/B25 say."""
    listed = httpx.get(f"{server.url}/me", headers={"Authorization": f"Token {key}"}).json()
    missing = [f for f in features if f not in listed.get("features", [])]
    if missing:
        pytest.skip(f"the server does not list {', '.join(missing)} yet: {listed.get('features')}")


@pytest.mark.parametrize(("feature", "method", "args", "kwargs"), CALLS, ids=IDS)
async def test_an_older_queuedesk_says_what_it_lacks_and_sends_nothing(
    older: OlderServer, admin, org_id, feature: str, method: str, args: tuple, kwargs: dict
) -> None:
    queue = make_queue(admin, org_id)
    async with QueueDeskClient(older.url, KEYS["admin"], org_id) as qd:
        assert not await qd.supports_priority() and not await qd.supports_assignment()
        before = len(older.seen)
        with pytest.raises(FeatureMissing) as caught:
            await getattr(qd, method)(*_on(queue["id"], args), **kwargs)
        assert older.seen[before:] == []  # refused here, with nothing sent
        plain = await qd.queue(queue["id"])  # what it has works as before
    error = caught.value
    assert isinstance(error, NoPriority if feature == "B24" else NoAssignment)
    assert isinstance(error, NotSupported) and error.feature == feature
    said = str(error)
    assert f"this server (QueueDesk {__version__}) {WORDS[feature]}" in said, said
    assert f"does not list {feature} among its features" in said and "upgrade the server" in said
    assert (plain.n_overdue, plain.order) == (0, "oldest")


@pytest.mark.parametrize(("feature", "method", "args", "kwargs"), CALLS, ids=IDS)
async def test_the_original_service_says_what_it_lacks(
    original: OriginalService, feature: str, method: str, args: tuple, kwargs: dict
) -> None:
    async with connect_original(original) as qd:
        with pytest.raises(FeatureMissing) as caught:
            await getattr(qd, method)(*args, **kwargs)
    assert f"this server (the basic Task Queue API) {WORDS[feature]}" in str(caught.value)
    assert not [s for s in original.seen if s.method in ("PATCH", "POST")]


async def test_a_patch_with_nothing_or_a_priority_out_of_range_sends_nothing(older: OlderServer) -> None:
    async with QueueDeskClient(older.url, KEYS["admin"]) as qd:
        with pytest.raises(ValueError, match="give a new priority or due_at"):
            await qd.patch_task(1, 2)
        with pytest.raises(ValueError, match="from -1000 to 1000, not 1001"):
            await qd.patch_task(1, 2, priority=1001)
        with pytest.raises(ValueError, match="one of oldest, least_confident"):
            await qd.set_queue_order(1, "newest")
    assert older.seen == []
    assert repr(KEEP) == "KEEP"


async def test_priority_due_dates_and_reservations_from_creating_to_claiming(
    server: ServerProcess, admin, org_id
) -> None:
    needs(server, "B24", "B25")
    queue = make_queue(admin, org_id)
    qid = queue["id"]
    past = datetime.now(UTC) - timedelta(hours=2)
    async with (
        connect(server, "admin") as ada,
        connect(server, "supervisor") as sue,
        connect(server, "worker") as wes,
        connect(server, "worker2") as wyn,
    ):
        assert await ada.supports_priority() and await ada.supports_assignment()
        plain = await ada.create_task(qid, {"paragraph": "plain"})
        urgent = await ada.create_task(qid, {"paragraph": "urgent"}, priority=10)
        late = await ada.create_task(qid, {"paragraph": "late"}, due_at=past)
        made = await ada.import_tasks(
            qid,
            [{"paragraph": "for wes"}, {"paragraph": "low"}],
            placed=[{"reserved_for": "wes@acme.test"}, {"priority": -5}],
        )
        for_wes, low = made.ids
        seen = {t.id: t for t in (await sue.pending_tasks(qid)).tasks}
        assert (seen[urgent.id].priority, seen[late.id].due_at, seen[for_wes].reserved_for) == (
            10,
            past,
            "wes@acme.test",
        )
        assert (seen[plain.id].priority, seen[plain.id].due_at, seen[plain.id].reserved_for) == (
            0,
            None,
            None,
        )
        assert seen[low].priority == -5
        assert (await sue.queue(qid)).n_overdue == 1
        assert [q.n_overdue for q in await sue.queues() if q.id == qid] == [1]
        assert [t.id for t in await sue.overdue_tasks(qid)] == [late.id]
        assert [t.id for t in (await sue.pending_tasks(qid, reserved_for="wes@acme.test")).tasks] == [for_wes]
        assert [t.id for t in (await wes.pending_tasks(qid, reserved_for="me")).tasks] == [for_wes]

        # A reservation goes before any priority; nobody else ever gets it.
        assert (await wyn.claim_next(qid)).task.id == urgent.id  # type: ignore[union-attr]
        assert (await wes.claim_next(qid)).task.id == for_wes  # type: ignore[union-attr]

        # The PATCH (admins) and its refusals.
        moved = await ada.patch_task(qid, low, priority=100, due_at=DUE)
        assert (moved.priority, moved.due_at) == (100, DUE)
        kept = await ada.patch_task(qid, low, priority=50)  # due_at left as it is (KEEP)
        assert (kept.priority, kept.due_at) == (50, DUE)
        cleared = await ada.patch_task(qid, low, due_at=None)
        assert (cleared.priority, cleared.due_at) == (50, None)
        with pytest.raises(Forbidden):
            await sue.patch_task(qid, low, priority=1)
        await ada.patch_task(qid, late.id, due_at=DUE + timedelta(days=3650))  # no longer overdue
        assert (await sue.queue(qid)).n_overdue == 0

        # Reserving (supervisors and admins): to an enabled worker or admin, or nobody.
        people = {u.email for u in await sue.reservable_people()}
        assert "wes@acme.test" in people and "sue@acme.test" not in people
        reserved = await sue.assign(qid, plain.id, "wyn@acme.test")
        assert reserved.reserved_for == "wyn@acme.test"
        with pytest.raises(ValidationError) as refused:
            await sue.assign(qid, plain.id, "sue@acme.test")  # a supervisor claims nothing
        assert refused.value.fields.get("to")
        with pytest.raises(Forbidden):
            await wes.assign(qid, plain.id, None)
        assert (await sue.assign(qid, plain.id, None)).reserved_for is None

        # The order of claims after priority.
        assert (await ada.set_queue_order(qid, "least_confident")).order == "least_confident"
        assert (await sue.queue_with_order(qid)).order == "least_confident"

        # A completed task cannot be changed or reserved.
        await wyn.complete(qid, urgent.id, {"paragraph": "urgent", "category": "red"})
        with pytest.raises(Conflict):
            await ada.patch_task(qid, urgent.id, priority=1)
        with pytest.raises(Conflict):
            await sue.assign(qid, urgent.id, "wes@acme.test")
