"""The client's gold tasks (B22): typed answers from a real `queuedesk serve`, and one clear "this
server has no gold tasks", with nothing sent, from a server without them: a real QueueDesk made to
answer as one older than `features`, and the original service's stand-in."""

# ruff: noqa: F811  (the fixtures imported by name are the tests' parameters)

from typing import Any

import httpx
import pytest

from queuedesk import __version__
from queuedesk.api import gold_rules
from queuedesk.api.client import QueueDeskClient
from queuedesk.api.client.imports import task_entries
from queuedesk.api.errors import FeatureMissing, Forbidden, NoGold, NotSupported
from tests.api.test_client import connect, own_settings  # noqa: F401  (the fixture, used by name)
from tests.api.test_client_consensus import older  # noqa: F401  (the fixture, used by name)
from tests.api.test_original_service import QUEUE, OriginalService, original, service  # noqa: F401
from tests.api.test_original_service import connect as connect_original
from tests.conftest import make_queue
from tests.support import KEYS, ServerProcess
from tests.support.older_server import OlderServer

# Every call of B22, each with what it is called with (the queue, or a task of it).
B22_CALLS: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("set_gold_percent", (QUEUE, 10), {}),
    ("queue_with_gold", (QUEUE,), {}),
    ("create_task", (QUEUE, {"paragraph": "p"}), {"gold": {"category": "red"}}),
    ("import_tasks", (QUEUE, [{"paragraph": "p"}]), {"gold": [{"category": "red"}]}),
    ("pending_tasks", (QUEUE,), {"gold": True}),
    ("gold_tasks", (QUEUE,), {}),
    ("update_gold_task", (QUEUE, 5), {"gold": {"category": "blue"}}),
    ("update_gold_task", (QUEUE, 5), {"retired": True}),
    ("gold_answers", (QUEUE,), {"completed_by": "me"}),
]
IDS = [f"{c[0]}-{i}" for i, c in enumerate(B22_CALLS)]


def _on(queue_id: int, args: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(queue_id if arg == QUEUE else arg for arg in args)


def needs_b22(server: ServerProcess, key: str = KEYS["admin"]) -> None:
    """Skips while the test server does not serve gold tasks (B22); once it lists B22 the test runs,
    and fails where the server does not do what B22 says."""
    features = httpx.get(f"{server.url}/me", headers={"Authorization": f"Token {key}"}).json()
    if "B22" not in features.get("features", []):
        pytest.skip(f"the server does not list B22 yet: {features.get('features')}")


@pytest.mark.parametrize(("method", "args", "kwargs"), B22_CALLS, ids=IDS)
async def test_an_older_queuedesk_says_it_has_no_gold_and_sends_nothing(
    older: OlderServer, admin, org_id, method: str, args: tuple, kwargs: dict
) -> None:
    queue = make_queue(admin, org_id)
    async with QueueDeskClient(older.url, KEYS["admin"], org_id) as qd:
        assert not await qd.supports_gold()
        before = len(older.seen)
        with pytest.raises(NoGold) as caught:
            await getattr(qd, method)(*_on(queue["id"], args), **kwargs)
        assert older.seen[before:] == []  # refused here, with nothing sent
        plain = await qd.queue(queue["id"])  # what it has works as before
    error = caught.value
    assert isinstance(error, FeatureMissing) and isinstance(error, NotSupported) and error.feature == "B22"
    said = str(error)
    assert f"this server (QueueDesk {__version__}) has no gold tasks (tasks with a known answer" in said
    assert "does not list B22 among its features" in said and "upgrade the server" in said
    assert plain.gold_percent == 0


@pytest.mark.parametrize(("method", "args", "kwargs"), B22_CALLS, ids=IDS)
async def test_the_original_service_says_it_has_no_gold(
    original: OriginalService, method: str, args: tuple, kwargs: dict
) -> None:
    async with connect_original(original) as qd:
        with pytest.raises(NoGold) as caught:
            await getattr(qd, method)(*args, **kwargs)
    assert "this server (the basic Task Queue API) has no gold tasks" in str(caught.value)
    assert not [s for s in original.seen if s.method in ("PATCH", "POST") or "gold" in s.path]


def test_gold_entries_sit_beside_data_one_per_task() -> None:
    assert task_entries([{"a": 1}, {"a": 2}], [None, {"c": "red"}]) == [
        {"data": {"a": 1}},
        {"data": {"a": 2}, "gold": {"c": "red"}},
    ]
    with pytest.raises(ValueError, match="gold has 1 entries for 2 tasks"):
        task_entries([{"a": 1}, {"a": 2}], [None])


async def test_gold_tasks_from_creating_to_a_scored_miss_corrected_and_retired(
    server: ServerProcess, admin, org_id
) -> None:
    needs_b22(server)
    queue = make_queue(admin, org_id)
    qid = queue["id"]
    async with (
        connect(server, "admin") as ada,
        connect(server, "supervisor") as sue,
        connect(server, "worker") as wes,
        connect(server, "worker2") as wyn,
    ):
        assert await ada.supports_gold() and "B22" in await ada.features()
        assert (await ada.set_gold_percent(qid, 20)).gold_percent == 20
        assert (await sue.queue_with_gold(qid)).gold_percent == 20
        first = await ada.create_task(qid, {"paragraph": "gold one"}, gold={"category": "red"})
        made = await ada.import_tasks(
            qid, [{"paragraph": "gold two"}], source="manual", gold=[{"category": "blue"}]
        )
        second = made.ids[0]
        listed = await sue.gold_tasks(qid)
        assert {t.id: t.gold for t in listed} == {first.id: {"category": "red"}, second: {"category": "blue"}}
        assert (await sue.queue(qid)).n_tasks == 0  # gold is not in n_tasks
        with pytest.raises(Forbidden):
            await wes.pending_tasks(qid, gold=True)

        # Only gold is left: it is served, and looks like any other task.
        claim = await wes.claim_next(qid)
        assert claim.task is not None and claim.task.id == first.id
        assert claim.task.gold is None and claim.task.source == "api"
        assert "gold" not in (claim.task.model_extra or {})
        answered = await wes.complete(qid, first.id, {"category": "green"})
        assert answered.status == "completed"  # exactly as a completion would answer
        with pytest.raises(Forbidden) as unasked:
            await wes.gold_answers(qid)  # a worker reads their own only
        assert "nothing was sent" in str(unasked.value)
        mine = await wes.gold_answers(qid, completed_by="me")
        assert mine.count == 1
        miss = mine.answers[0]
        assert (miss.task_id, miss.worker, miss.correct, miss.wrong) == (
            first.id,
            "wes@acme.test",
            False,
            ["category"],
        )
        assert (miss.expected, miss.data["category"]) == ({"category": "red"}, "green")

        changed = await ada.update_gold_task(qid, first.id, gold={"category": "green"})
        assert changed.gold == {"category": "green"}
        kept = (await sue.gold_answers(qid)).answers[0]
        assert kept.correct is False  # earlier answers keep their score
        await ada.update_gold_task(qid, second, retired=True)
        got = await wyn.claim_next(qid)
        assert got.task is not None and got.task.id == first.id  # the retired one is never served
        await wyn.complete(qid, first.id, {"category": "green"})
        assert (await wyn.claim_next(qid)).task is None

        stats = await sue.stats(qid)
        by_email = {w.email: (w.gold_answered, w.gold_correct) for w in stats.by_worker}
        assert by_email["wes@acme.test"] == (1, 0) and by_email["wyn@acme.test"] == (1, 1)
        tallied = gold_rules.tallies([a async for a in sue.iter_gold_answers(qid)])
        assert (tallied[first.id].answered, tallied[first.id].correct) == (2, 1)
