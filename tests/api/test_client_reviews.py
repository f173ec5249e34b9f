"""The client's review methods (B19): typed answers from a real `queuedesk serve`, and a clear
"this server has no review" from a server without it (the original service's stand-in)."""

# ruff: noqa: F811  (the fixtures imported by name are the tests' parameters)

import httpx
import pytest

from queuedesk.api import models
from queuedesk.api.client import ReviewClaim
from queuedesk.api.errors import Conflict, Forbidden, NoReview, NotSupported
from tests.api.test_client import connect, own_settings  # noqa: F401  (the fixture, used by name)
from tests.api.test_original_service import QUEUE, OriginalService, original, service  # noqa: F401
from tests.api.test_original_service import connect as connect_original
from tests.conftest import make_queue
from tests.support import ServerProcess


def _completed(admin: httpx.Client, worker: httpx.Client, qpath: str, n: int) -> list[int]:
    body = {"source": "manual", "tasks": [{"data": {"paragraph": f"p{i}"}} for i in range(n)]}
    ids = admin.post(f"{qpath}/tasks/import", json=body).json()["ids"]
    for task_id in ids:
        assert worker.post(f"{qpath}/tasks/next").json()["id"] == task_id
        done = worker.post(f"{qpath}/tasks/{task_id}/complete", json={"data": {"category": "red"}})
        assert done.status_code == 200, done.text
    return ids


async def test_review_methods_answer_typed_models(server: ServerProcess, admin, worker, org_id) -> None:
    queue = make_queue(admin, org_id, review_percent=100)
    ids = _completed(admin, worker, f"/orgs/{org_id}/queues/{queue['id']}", 4)
    async with connect(server, "supervisor") as qd:
        assert await qd.supports_review(queue["id"])
        claim = await qd.claim_review(queue["id"])
        assert isinstance(claim, ReviewClaim) and claim.task is not None and claim.task.id == ids[0]
        assert claim.task.review is not None and claim.task.review.state == "in_review"
        renewed = await qd.review_heartbeat(queue["id"], ids[0])
        assert isinstance(renewed, models.Review) and renewed.lease_expires_at is not None
        released = await qd.release_review(queue["id"], ids[0])
        assert released.review is not None and released.review.state == "pending"
        accepted = await qd.give_verdict(queue["id"], ids[0], "accept", note="fine")
        assert accepted.review is not None and (accepted.review.state, accepted.review.note) == (
            "accepted",
            "fine",
        )
        corrected = await qd.give_verdict(queue["id"], ids[1], "correct", data={"category": "blue"})
        assert corrected.review is not None and corrected.review.original == {
            "paragraph": "p1",
            "category": "red",
            "photo": None,
        }
        redone = await qd.give_verdict(queue["id"], ids[2], "redo")
        assert redone.review is not None and redone.review.redo_task_id is not None
        with pytest.raises(Conflict) as caught:
            await qd.give_verdict(queue["id"], ids[2], "accept")
        assert caught.value.code == "already_reviewed"
        page = await qd.reviews(queue["id"], verdict="correct,redo")
        assert isinstance(page, models.ReviewPage) and [t.id for t in page.tasks] == [ids[2], ids[1]]
        every = [t.id async for t in qd.iter_reviews(queue["id"], page_size=1)]
        assert every == [ids[2], ids[1], ids[0]]
        assert (await qd.claim_review(queue["id"])).task.id == ids[3]  # type: ignore[union-attr]
        assert await qd.claim_review(queue["id"], exclude=[ids[3]]) == ReviewClaim(None, 0)
        stats = await qd.stats(queue["id"])
        assert stats.reviews_pending == 1
        assert [(w.email, w.reviewed, w.corrected, w.redone) for w in stats.by_worker] == [
            ("wes@acme.test", 3, 1, 1)
        ]
        log_types = {d.type for d in (await qd.deliveries(queue["id"])).deliveries}
        assert log_types <= {"task.completed", "task.corrected", "task.redo"}
    async with connect(server, "worker") as qd:
        mine = await qd.reviews(queue["id"], completed_by="me")
        assert mine.count == 3
        with pytest.raises(Forbidden):
            await qd.reviews(queue["id"])


async def test_queue_review_percent_through_the_client(server: ServerProcess, org_id) -> None:
    async with connect(server) as qd:
        made = await qd.create_queue(
            "Reviewed by the client", [{"id": "t", "name": "T", "type": "text"}], "", 25
        )
        assert made.review_percent == 25
        changed = await qd.update_queue(made.id, review_percent=0)
        assert changed.review_percent == 0


@pytest.mark.parametrize(
    ("method", "args"),
    [
        ("claim_review", (QUEUE,)),
        ("review_heartbeat", (QUEUE, 5)),
        ("release_review", (QUEUE, 5)),
        ("give_verdict", (QUEUE, 5, "accept")),
        ("reviews", (QUEUE,)),
    ],
)
async def test_a_server_without_review_says_so(original: OriginalService, method: str, args: tuple) -> None:
    async with connect_original(original) as qd:
        assert not await qd.supports_review(QUEUE)
        with pytest.raises(NoReview) as caught:
            await getattr(qd, method)(*args)
    assert isinstance(caught.value, NotSupported)
    assert "this server has no review of work" in str(caught.value) and "B19" not in str(caught.value)
    assert not [s for s in original.seen if "review" in s.path]  # nothing was sent to try
