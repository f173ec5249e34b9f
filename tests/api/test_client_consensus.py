"""The client's consensus calls (B21): typed answers from a real `queuedesk serve`, and one clear
"this server has no consensus", with nothing sent, from a server without it: a real QueueDesk made to
answer as one older than `features`, and the original service's stand-in."""

# ruff: noqa: F811  (the fixtures imported by name are the tests' parameters)

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from queuedesk import __version__
from queuedesk.api import models
from queuedesk.api.client import QueueDeskClient
from queuedesk.api.errors import Conflict, FeatureMissing, NoConsensus, NotSupported
from tests.api.test_client import connect, own_settings  # noqa: F401  (the fixture, used by name)
from tests.api.test_original_service import QUEUE, OriginalService, original, service  # noqa: F401
from tests.api.test_original_service import connect as connect_original
from tests.conftest import make_queue
from tests.support import KEYS, ServerProcess
from tests.support.older_server import OlderServer

# Every call of B21, each with what it is called with (the queue, or a task of it).
B21_CALLS: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("set_consensus", (QUEUE, 2), {"max_answers": 3}),
    ("set_consensus", (QUEUE, None), {}),
    ("queue_with_consensus", (QUEUE,), {}),
    ("consensus_of", (QUEUE, 5), {}),
    ("pending_tasks", (QUEUE,), {"consensus": "disputed"}),
    ("give_verdict", (QUEUE, 5, "decide"), {"data": {"category": "red"}}),
    ("reviews", (QUEUE,), {"verdict": "correct,decide"}),
    ("create_queue", ("Q", [{"id": "c", "name": "C", "type": "binary"}]), {"consensus": {"answers": 2}}),
]


def _on(queue_id: int, args: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(queue_id if arg == QUEUE else arg for arg in args)


def needs_b21(server: ServerProcess, key: str = KEYS["admin"]) -> None:
    """The test server serves consensus (B21): a test that needs it fails, never skips, without it."""
    features = httpx.get(f"{server.url}/me", headers={"Authorization": f"Token {key}"}).json()
    assert "B21" in features.get("features", []), f"the server does not list B21: {features}"


@pytest.fixture
def older(server: ServerProcess) -> Iterator[OlderServer]:
    front = OlderServer(server.url).start()
    yield front
    front.stop()


@pytest.mark.parametrize(("method", "args", "kwargs"), B21_CALLS, ids=[c[0] for c in B21_CALLS])
async def test_an_older_queuedesk_says_it_has_no_consensus_and_sends_nothing(
    older: OlderServer, admin, org_id, method: str, args: tuple, kwargs: dict
) -> None:
    queue = make_queue(admin, org_id)
    async with QueueDeskClient(older.url, KEYS["admin"], org_id) as qd:
        assert await qd.supports_extensions()
        assert await qd.features() == frozenset()
        assert not await qd.supports_consensus()
        before = len(older.seen)
        with pytest.raises(NoConsensus) as caught:
            await getattr(qd, method)(*_on(queue["id"], args), **kwargs)
        assert older.seen[before:] == []  # refused here, with nothing sent
        plain = await qd.queue(queue["id"])  # what it has works as before
    error = caught.value
    assert isinstance(error, FeatureMissing) and isinstance(error, NotSupported) and error.feature == "B21"
    said = str(error)
    assert f"this server (QueueDesk {__version__}) has no consensus" in said
    assert "does not list B21 among its features" in said and "upgrade the server" in said
    assert plain.consensus is None


@pytest.mark.parametrize(("method", "args", "kwargs"), B21_CALLS, ids=[c[0] for c in B21_CALLS])
async def test_the_original_service_says_it_has_no_consensus(
    original: OriginalService, method: str, args: tuple, kwargs: dict
) -> None:
    async with connect_original(original) as qd:
        assert await qd.features() == frozenset()
        with pytest.raises(NoConsensus) as caught:
            await getattr(qd, method)(*args, **kwargs)
    assert "this server (the basic Task Queue API) has no consensus" in str(caught.value)
    assert not [s for s in original.seen if s.method in ("PATCH", "POST") or "consensus" in s.path]


async def test_a_queue_without_consensus_claims_and_reads_as_before(
    server: ServerProcess, admin, org_id
) -> None:
    """The B21 keys read as their defaults where a queue has no consensus, on any server."""
    queue = make_queue(admin, org_id)
    async with connect(server, "worker") as qd:
        claim = await qd.claim_next(queue["id"])
        assert (claim.task, claim.held_by_others, claim.answered) == (None, 0, 0)
    async with connect(server, "supervisor") as qd:
        assert (await qd.queue(queue["id"])).consensus is None
        stats = await qd.stats(queue["id"])
        assert stats.by_worker == [] and stats.disputed in (None, 0)


async def test_consensus_from_settings_to_a_decided_dispute(server: ServerProcess, admin, org_id) -> None:
    needs_b21(server)
    queue = make_queue(admin, org_id)
    qid = queue["id"]
    async with (
        connect(server, "admin") as ada,
        connect(server, "supervisor") as sue,
        connect(server, "worker") as wes,
        connect(server, "worker2") as wyn,
    ):
        assert await ada.supports_consensus() and "B21" in await ada.features()
        detail = await ada.set_consensus(qid, 2, max_answers=3)
        assert detail.consensus == models.ConsensusSettings(
            answers=2, max_answers=3, agreement=0.5, blocks=["category"]
        )
        assert (await sue.queue_with_consensus(qid)).consensus == detail.consensus
        made = await ada.import_tasks(qid, [{"paragraph": "one"}, {"paragraph": "two"}], source="manual")
        first, second = made.ids

        async def answer(who: QueueDeskClient, task_id: int, category: str) -> models.Task:
            claim = await who.claim_next(qid)
            assert claim.task is not None and claim.task.id == task_id
            return await who.complete(qid, task_id, {"category": category})

        recorded = await answer(wes, first, "red")
        assert (recorded.status, recorded.data["category"]) == ("open", "red")  # an answer, not done
        await answer(wes, second, "red")
        waiting = await wes.claim_next(qid)
        assert (waiting.task, waiting.answered) == (None, 2)  # both wait for other workers
        await answer(wyn, first, "blue")  # tasks with answers first; they disagree: a third answer
        settled = await answer(wyn, second, "red")
        assert (settled.status, settled.completed_by) == ("completed", "wes@acme.test")
        with pytest.raises(Conflict) as twice:
            await wes.complete(qid, first, {"category": "red"})
        assert twice.value.code in ("already_answered", "not_assignee")
        await answer(ada, first, "green")  # three values, none a majority: disputed

        disputed = await sue.pending_tasks(qid, consensus="disputed")
        assert [t.id for t in disputed.tasks] == [first]
        task = await sue.consensus_of(qid, first)
        assert task.consensus is not None and task.consensus.state == "disputed"
        assert [(a.worker, a.data["category"]) for a in task.consensus.answers] == [
            ("wes@acme.test", "red"),
            ("wyn@acme.test", "blue"),
            ("ada@acme.test", "green"),
        ]
        assert task.consensus.agreement == {"category": pytest.approx(1 / 3)}
        assert (await wes.task(qid, first)).consensus is None  # a worker never sees others' answers
        stats = await sue.stats(qid)
        assert stats.disputed == 1
        wes_stats = next(w for w in stats.by_worker if w.email == "wes@acme.test")
        assert (wes_stats.answers, wes_stats.agreed) == (2, 1)

        claim = await sue.claim_review(qid)  # disputed tasks come first in the review loop
        assert claim.task is not None and claim.task.id == first
        with pytest.raises(Conflict):
            await ada.give_verdict(qid, first, "decide", data={"category": "red"})  # ada answered it
        decided = await sue.give_verdict(qid, first, "decide", data={"category": "red"})
        assert (decided.status, decided.completed_by) == ("completed", "sue@acme.test")
        assert decided.review is not None and decided.review.state == "decided"
        assert decided.consensus is not None and decided.consensus.decided_by == "sue@acme.test"
        assert [t.id for t in (await sue.reviews(qid, verdict="decide")).tasks] == [first]
        off = await ada.set_consensus(qid, None)
        assert off.consensus is None
