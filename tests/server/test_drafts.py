"""Drafts (B6): a release's values are kept apart from the task's data, shown to their author alone,
never in Part A answers or events, and dropped at completion or flush."""

import httpx

from tests.support import ServerProcess, query_value
from tests.support.contract import TASK_KEYS, assert_empty_200, body_of, claim, create


def _release(client: httpx.Client, qpath: str, task_id: int, draft: dict | None = None) -> dict:
    body = None if draft is None else {"data": draft}
    return body_of(client.post(f"{qpath}/tasks/{task_id}/release", json=body))


def test_a_draft_is_its_authors_alone_and_never_the_tasks_data(clients, admin, worker, queue, qpath) -> None:
    made = create(admin, qpath, paragraph="the text")
    task_id = claim(worker, qpath)["id"]
    released = _release(worker, qpath, task_id, {"category": "blue", "paragraph": "half-typed"})
    assert released["data"] == made["data"]
    assert released["draft"] == {"category": "blue", "paragraph": "half-typed"}

    others = (admin, clients["supervisor"], clients["worker2"])
    for other in others:
        seen = body_of(other.get(f"{qpath}/tasks/{task_id}"))
        assert (seen["data"], seen["draft"]) == (made["data"], None), other.headers
        listed = body_of(other.get(f"{qpath}/tasks"))["tasks"]
        assert [(t["id"], t["data"], t["draft"]) for t in listed] == [(task_id, made["data"], None)]
    mine = body_of(worker.get(f"{qpath}/tasks"))["tasks"]
    assert [(t["id"], t["draft"]) for t in mine] == [
        (task_id, {"category": "blue", "paragraph": "half-typed"})
    ]

    # Another worker claims it: neither the data nor the answer carry the first worker's draft.
    taken = claim(clients["worker2"], qpath)
    assert (taken["id"], taken["data"], taken["draft"]) == (task_id, made["data"], None)
    _release(clients["worker2"], qpath, task_id)
    # Its author claims it again and gets the draft back, to restore it.
    again = claim(worker, qpath)
    assert (again["id"], again["data"]) == (task_id, made["data"])
    assert again["draft"] == {"category": "blue", "paragraph": "half-typed"}


def test_completion_drops_the_draft_and_the_history_never_shows_it(admin, worker, queue, qpath) -> None:
    create(admin, qpath, paragraph="the text")
    task_id = claim(worker, qpath)["id"]
    _release(worker, qpath, task_id, {"category": "blue"})
    claim(worker, qpath)
    done = body_of(worker.post(f"{qpath}/tasks/{task_id}/complete", json={"data": {"category": "red"}}))
    assert list(done) == TASK_KEYS and done["data"]["category"] == "red"
    history = body_of(worker.get(f"{qpath}/tasks/completed?completed_by=me"))["tasks"]
    assert [(list(t), t["data"]["category"]) for t in history] == [(TASK_KEYS, "red")]
    assert body_of(worker.get(f"{qpath}/tasks/{task_id}"))["draft"] is None


def test_a_data_object_replaces_the_draft_and_no_data_keeps_it(admin, worker, queue, qpath) -> None:
    create(admin, qpath, paragraph="the text")
    task_id = claim(worker, qpath)["id"]
    assert _release(worker, qpath, task_id, {"category": "blue"})["draft"] == {"category": "blue"}
    claim(worker, qpath)
    assert _release(worker, qpath, task_id)["draft"] == {"category": "blue"}  # no body: kept
    claim(worker, qpath)
    assert _release(worker, qpath, task_id, {"paragraph": "new"})["draft"] == {"paragraph": "new"}
    claim(worker, qpath)
    assert _release(worker, qpath, task_id, {})["draft"] is None  # an empty object: removed


def test_a_draft_with_a_wrong_value_is_refused_and_nothing_changes(admin, worker, queue, qpath) -> None:
    create(admin, qpath, paragraph="the text")
    task_id = claim(worker, qpath)["id"]
    refused = worker.post(f"{qpath}/tasks/{task_id}/release", json={"data": {"category": "purple"}})
    assert refused.status_code == 400 and refused.json()["errors"][0]["field"] == "data.category"
    still = body_of(worker.get(f"{qpath}/tasks/{task_id}"))
    assert (still["status"], still["draft"]) == ("in_progress", None)


def test_a_flush_drops_the_drafts_of_the_tasks_it_deleted(
    server: ServerProcess, admin, worker, queue, qpath
) -> None:
    create(admin, qpath, paragraph="the text")
    task_id = claim(worker, qpath)["id"]
    _release(worker, qpath, task_id, {"category": "blue"})
    drafts_of_queue = f"SELECT count(*) FROM task_drafts WHERE queue_id = {queue['id']}"
    assert query_value(server.db_url, drafts_of_queue) == 1
    assert_empty_200(admin.put(f"{qpath}/flush"))
    assert query_value(server.db_url, drafts_of_queue) == 0


def test_a_draft_over_64_kib_is_refused_and_the_earlier_one_kept(admin, worker, queue, qpath) -> None:
    """Issue 43, finding 2: ~0.9 MiB drafts on 60 tasks made one worker's pages of tasks megabytes
    each. A draft of at most 64 KiB of JSON is kept; one byte more is a 400 on `data` and changes
    nothing (the task stays held, the earlier draft stays)."""
    create(admin, qpath, paragraph="the text")
    task_id = claim(worker, qpath)["id"]
    framing = len('{"paragraph":""}')
    largest = {"paragraph": "x" * (64 * 1024 - framing)}
    assert _release(worker, qpath, task_id, largest)["draft"] == largest
    claim(worker, qpath)
    over = {"paragraph": "x" * (64 * 1024 - framing + 1)}
    refused = worker.post(f"{qpath}/tasks/{task_id}/release", json={"data": over})
    assert refused.status_code == 400, refused.text
    (error,) = refused.json()["errors"]
    assert error["field"] == "data" and "64 KiB" in error["message"]
    still = body_of(worker.get(f"{qpath}/tasks/{task_id}"))
    assert still["status"] == "in_progress" and still["draft"] == largest
