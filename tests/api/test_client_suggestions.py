"""The client's suggestions (B23): typed answers from a real `queuedesk serve` (the task's
suggestions and outcome, the stats' `by_agent`), suggestions checked before anything is sent, and
one clear "this server has no suggestions", with nothing sent, from a QueueDesk answering as one
older than B23."""

# ruff: noqa: F811  (the fixtures imported by name are the tests' parameters)

import pytest

from queuedesk.api.client import QueueDeskClient
from queuedesk.api.errors import FeatureMissing, ValidationError
from queuedesk.api.models import Suggestion
from tests.api.test_client_consensus import older  # noqa: F401  (the fixture, used by name)
from tests.conftest import make_queue
from tests.support import KEYS, ServerProcess
from tests.support.older_server import OlderServer

OFFER = {"category": {"value": "blue", "agent": "model-a", "score": 0.75}}


async def test_created_and_imported_suggestions_come_back_typed_with_their_outcome(
    server: ServerProcess, admin, org_id
) -> None:
    queue = make_queue(admin, org_id)
    async with (
        QueueDeskClient(server.url, KEYS["admin"], org_id) as qd,
        QueueDeskClient(server.url, KEYS["worker"], org_id) as wes,
    ):
        assert await qd.supports_suggestions()
        made = await qd.create_suggested_task(queue["id"], {"paragraph": "p"}, OFFER)
        imported = await qd.import_suggested_tasks(
            queue["id"], [{"paragraph": "q"}, {"paragraph": "r"}], [None, OFFER]
        )
        task = await wes.task(queue["id"], made.id)
        assert task.suggestions == {"category": Suggestion(value="blue", agent="model-a", score=0.75)}
        assert task.data["category"] is None and task.suggestion_outcome is None
        assert (await wes.task(queue["id"], imported.ids[0])).suggestions is None
        claim = await wes.claim_next(queue["id"])
        assert claim.task is not None and claim.task.id == made.id
        assert claim.task.suggestions is not None
        await wes.complete(queue["id"], made.id, {"category": "blue"})
        done = await qd.task(queue["id"], made.id)
        assert done.suggestion_outcome == {"category": "accepted"}
        stats = await qd.stats(queue["id"])
        assert [(a.agent, a.offered, a.accepted) for a in stats.by_agent or []] == [("model-a", 1, 1)]


@pytest.mark.parametrize(
    "wrong",
    [
        {"category": {"value": "purple", "agent": "m"}},
        {"category": {"value": "red", "agent": "m", "score": 2}},
        {"category": {"value": "red", "agent": ""}},
        {"photo": {"value": "https://example.test/p.png", "agent": "m"}},
    ],
)
async def test_wrong_suggestions_are_refused_here_with_nothing_sent(
    older: OlderServer, server: ServerProcess, admin, org_id, wrong
) -> None:
    queue = make_queue(admin, org_id)
    async with QueueDeskClient(server.url, KEYS["admin"], org_id) as qd:
        with pytest.raises(ValidationError) as caught:
            await qd.create_suggested_task(queue["id"], {"paragraph": "p"}, wrong)
        assert caught.value.fields and all(f.startswith("suggestions.") for f in caught.value.fields)
    assert admin.get(f"/orgs/{org_id}/queues/{queue['id']}/tasks").json()["count"] == 0


async def test_an_older_queuedesk_says_it_has_no_suggestions_and_sends_nothing(
    older: OlderServer, admin, org_id
) -> None:
    queue = make_queue(admin, org_id)
    async with QueueDeskClient(older.url, KEYS["admin"], org_id) as qd:
        assert not await qd.supports_suggestions()
        before = len(older.seen)
        with pytest.raises(FeatureMissing) as caught:
            await qd.create_suggested_task(queue["id"], {"paragraph": "p"}, OFFER)
        assert "suggestions" in str(caught.value) and "B23" in str(caught.value)
        with pytest.raises(FeatureMissing):
            await qd.import_suggested_tasks(queue["id"], [{"paragraph": "p"}], [OFFER])
        assert all("/tasks" not in path for path in older.seen[before:])
    assert admin.get(f"/orgs/{org_id}/queues/{queue['id']}/tasks").json()["count"] == 0
