"""B19 review over real HTTP: the queue's review share, the draw, review claims, verdicts and their
events, the list of reviews, the stats and the roles."""

import json
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from standardwebhooks import Webhook

from queuedesk.server.store.schema import LATEST
from tests.conftest import make_queue
from tests.receiver import Receiver
from tests.server.test_webhooks import wait_log
from tests.support import ROLES_SEED, ServerProcess, assert_envelope, execute_sql, query_value, run_cli
from tests.support.contract import SLACK, TASK_KEYS, body_of, moment, now

# --- review_percent on queues -------------------------------------------------------------------


def test_review_percent_is_set_on_create_and_patch_and_shown_everywhere(clients, admin, org_id) -> None:
    made = make_queue(admin, org_id, review_percent=20)
    assert made["review_percent"] == 20
    qpath = f"/orgs/{org_id}/queues/{made['id']}"
    assert body_of(admin.get(qpath))["review_percent"] == 20
    changed = body_of(admin.patch(qpath, json={"review_percent": 100}))
    assert changed["review_percent"] == 100
    for role in ("admin", "supervisor", "worker"):
        listed = body_of(clients[role].get(f"/orgs/{org_id}/queues"))
        assert next(q for q in listed if q["id"] == made["id"])["review_percent"] == 100
        assert body_of(clients[role].get(qpath))["review_percent"] == 100
    assert make_queue(admin, org_id)["review_percent"] == 0


@pytest.mark.parametrize("wrong", [-1, 101, 2.5, "20", True, None])
def test_review_percent_out_of_range_is_refused(admin, org_id, queue, wrong) -> None:
    qpath = f"/orgs/{org_id}/queues/{queue['id']}"
    refused = admin.patch(qpath, json={"review_percent": wrong})
    assert_envelope(refused, 400, "invalid_value", field="review_percent")
    assert body_of(admin.get(qpath))["review_percent"] == 0


def test_only_an_admin_sets_review_percent(clients, org_id, queue) -> None:
    qpath = f"/orgs/{org_id}/queues/{queue['id']}"
    for role in ("supervisor", "worker"):
        client: httpx.Client = clients[role]
        assert_envelope(client.patch(qpath, json={"review_percent": 50}), 403, "forbidden")
    assert body_of(clients["supervisor"].get(qpath))["review_percent"] == 0  # the refusals changed nothing
    assert body_of(clients["admin"].patch(qpath, json={"review_percent": 50}))["review_percent"] == 50


# --- helpers --------------------------------------------------------------------------------------

REVIEW_KEYS = ["state", "reviewer", "reviewed_at", "note", "original", "redo_task_id", "lease_expires_at"]
REVIEWED = {"accept": "accepted", "correct": "corrected", "redo": "redone"}


def drawn(task_id: int, percent: int) -> bool:
    """The contract's draw, written out here so the test does not trust the server's copy."""
    return (task_id * 2654435761) % 2**32 % 100 < percent


def reviewed_queue(admin: httpx.Client, org_id: int, percent: int = 100, **extra: Any) -> str:
    made = make_queue(admin, org_id, review_percent=percent, **extra)
    return f"/orgs/{org_id}/queues/{made['id']}"


def complete_all(
    admin: httpx.Client,
    worker: httpx.Client,
    qpath: str,
    n: int,
    *,
    beside: Sequence[httpx.Client] = (),
    **data: Any,
) -> list[int]:
    """Import n tasks and complete each as `worker` (and the workers `beside` it, each in a thread of
    its own: the draw depends on the task, not on who completes it or when): their ids, in order."""
    body = {"source": "manual", "tasks": [{"data": {"paragraph": f"task {i}"}} for i in range(n)]}
    ids = body_of(admin.post(f"{qpath}/tasks/import", json=body))["ids"]

    def complete_until_empty(client: httpx.Client) -> None:
        while (claim := client.post(f"{qpath}/tasks/next")).status_code == 200:
            task_id = claim.json()["id"]
            body_of(
                client.post(f"{qpath}/tasks/{task_id}/complete", json={"data": {"category": "red", **data}})
            )
        assert claim.status_code == 204, claim.text

    with ThreadPoolExecutor(max_workers=1 + len(beside)) as pool:
        list(pool.map(complete_until_empty, [worker, *beside]))
    return ids


def verdict(client: httpx.Client, qpath: str, task_id: int, kind: str, **body: Any) -> httpx.Response:
    return client.post(f"{qpath}/tasks/{task_id}/review", json={"verdict": kind, **body})


def claim_review(client: httpx.Client, qpath: str, exclude: list[int] | None = None) -> httpx.Response:
    if exclude is None:
        return client.post(f"{qpath}/reviews/next")
    return client.post(f"{qpath}/reviews/next", json={"exclude": exclude})


# --- the draw -------------------------------------------------------------------------------------


def test_the_draw_is_the_formulas_on_a_thousand_completions(clients, admin, worker, org_id) -> None:
    percent = 37
    qpath = reviewed_queue(admin, org_id, percent)
    ids = complete_all(admin, worker, qpath, 1000, beside=[clients["worker2"]])
    expected = {task_id for task_id in ids if drawn(task_id, percent)}
    assert 250 < len(expected) < 500  # the share is near 37 %, so the check below means something
    assert body_of(admin.get(f"{qpath}/stats"))["reviews_pending"] == len(expected)
    supervisor = clients["supervisor"]
    claimed: list[int] = []
    while (answer := claim_review(supervisor, qpath)).status_code == 200:
        task = answer.json()
        assert task["review"]["state"] == "in_review" and task["review"]["reviewer"] == "sue@acme.test"
        claimed.append(task["id"])
        body_of(verdict(supervisor, qpath, task["id"], "accept"))
    assert answer.status_code == 204 and answer.headers["X-Reviews-Held"] == "0"
    assert claimed == sorted(expected)  # each drawn task once, oldest first
    listed = body_of(admin.get(f"{qpath}/reviews", params={"limit": 1000}))
    assert listed["count"] == len(expected)
    assert {t["id"] for t in listed["tasks"]} == expected
    assert body_of(admin.get(f"{qpath}/stats"))["reviews_pending"] == 0


def test_a_queue_without_review_draws_nothing(clients, admin, worker, org_id) -> None:
    qpath = reviewed_queue(admin, org_id, 0)
    (task_id,) = complete_all(admin, worker, qpath, 1)
    assert claim_review(clients["supervisor"], qpath).status_code == 204
    assert body_of(admin.get(f"{qpath}/tasks/{task_id}"))["review"] is None
    assert body_of(admin.get(f"{qpath}/stats"))["reviews_pending"] == 0


# --- review claims ----------------------------------------------------------------------------------


def test_two_reviewers_never_claim_the_same_review(server, own_org) -> None:
    # Four reviewers added: in an organization of the test's own (Acme's people are every test's).
    qpath = reviewed_queue(own_org.client("admin"), own_org.id)
    ids = complete_all(own_org.client("admin"), own_org.client("worker"), qpath, 60)
    keys = [supervisor_key(server, own_org.email(f"checker{i}"), own_org.name) for i in range(4)]
    done: list[tuple[str, int]] = []
    errors: list[str] = []
    lock = threading.Lock()

    def review_until_empty(key: str) -> None:
        with httpx.Client(
            base_url=server.url, headers={"Authorization": f"Token {key}"}, timeout=60
        ) as client:
            while True:
                answer = claim_review(client, qpath)
                if answer.status_code == 204:
                    return
                if answer.status_code != 200:
                    errors.append(answer.text)
                    return
                task_id = answer.json()["id"]
                given = verdict(client, qpath, task_id, "accept")
                if given.status_code != 200:
                    errors.append(given.text)
                    return
                with lock:
                    done.append((key, task_id))

    threads = [threading.Thread(target=review_until_empty, args=(key,)) for key in keys]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not errors
    assert sorted(task_id for _, task_id in done) == ids  # every review once, none twice
    assert len({key for key, _ in done}) > 1  # the reviews really were shared


def supervisor_key(server: ServerProcess, email: str, organization: str) -> str:
    result = run_cli(
        [
            "keys",
            "create",
            "--db",
            server.db_url,
            "--email",
            email,
            "--org",
            organization,
            "--role",
            "supervisor",
        ]
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_review_claims_resume_exclude_and_stop_at_three(clients, admin, worker, org_id) -> None:
    qpath = reviewed_queue(admin, org_id)
    ids = complete_all(admin, worker, qpath, 5)
    supervisor = clients["supervisor"]
    first = body_of(claim_review(supervisor, qpath))
    assert first["id"] == ids[0]
    assert list(first) == [*TASK_KEYS, "assignment", "draft", "review", "consensus"]
    assert list(first["review"]) == REVIEW_KEYS
    assert first["review"]["state"] == "in_review" and first["review"]["reviewer"] == "sue@acme.test"
    assert moment(first["review"]["lease_expires_at"]) > now()
    assert first["assignment"]["lease_expires_at"] is None  # the task's own claim ended with it
    assert body_of(claim_review(supervisor, qpath))["id"] == ids[0]  # own claim again
    assert body_of(claim_review(supervisor, qpath, [ids[0]]))["id"] == ids[1]
    assert body_of(claim_review(supervisor, qpath, [ids[0], ids[1]]))["id"] == ids[2]
    limit = claim_review(supervisor, qpath, ids[:3])
    assert_envelope(limit, 409, "claim_limit")
    assert "review claims" in limit.json()["errors"][0]["message"]
    # Another reviewer gets the others, then is told how many are held.
    assert body_of(claim_review(admin, qpath))["id"] == ids[3]
    assert body_of(claim_review(admin, qpath, [ids[3]]))["id"] == ids[4]
    empty = claim_review(admin, qpath, [ids[3], ids[4]])
    assert empty.status_code == 204 and empty.headers["X-Reviews-Held"] == "3"


def test_review_heartbeat_and_release(clients, admin, worker, org_id) -> None:
    qpath = reviewed_queue(admin, org_id)
    (task_id,) = complete_all(admin, worker, qpath, 1)
    supervisor = clients["supervisor"]
    claimed = body_of(claim_review(supervisor, qpath))
    time.sleep(0.01)
    renewed = body_of(supervisor.post(f"{qpath}/tasks/{task_id}/review/heartbeat"))
    assert list(renewed) == REVIEW_KEYS
    assert renewed["lease_expires_at"] > claimed["review"]["lease_expires_at"]
    assert_envelope(admin.post(f"{qpath}/tasks/{task_id}/review/heartbeat"), 409, "not_assignee")
    assert_envelope(verdict(admin, qpath, task_id, "accept"), 409, "not_assignee")  # held by Sue
    released = body_of(supervisor.post(f"{qpath}/tasks/{task_id}/review/release"))
    assert released["review"] == {**dict.fromkeys(REVIEW_KEYS), "state": "pending"}
    assert_envelope(supervisor.post(f"{qpath}/tasks/{task_id}/review/release"), 409, "not_assignee")
    assert body_of(claim_review(admin, qpath))["id"] == task_id  # pending again, for anyone
    body_of(verdict(admin, qpath, task_id, "accept"))
    assert_envelope(admin.post(f"{qpath}/tasks/{task_id}/review/heartbeat"), 409, "already_reviewed")


# --- verdicts ---------------------------------------------------------------------------------------

REDO_BLOCKS: list[dict[str, Any]] = [
    {"id": "given", "name": "Given", "type": "text", "text": {"read_only": True}},
    {"id": "photo", "name": "Photo", "type": "image"},
    {"id": "site", "name": "Site", "type": "link"},
    {"id": "answer", "name": "Answer", "type": "text"},
    {
        "id": "category",
        "name": "Category",
        "type": "single_selection",
        "single_selection": {
            "is_required": True,
            "options": [{"id": "red", "name": "Red"}, {"id": "blue", "name": "Blue"}],
        },
    },
]


def test_accept_records_the_verdict_and_its_note(clients, admin, worker, org_id) -> None:
    qpath = reviewed_queue(admin, org_id)
    (task_id,) = complete_all(admin, worker, qpath, 1)
    supervisor = clients["supervisor"]
    before = now()
    accepted = body_of(verdict(supervisor, qpath, task_id, "accept", note="Good call"))
    assert accepted["id"] == task_id and accepted["status"] == "completed"
    review = accepted["review"]
    assert list(review) == REVIEW_KEYS
    assert (review["state"], review["reviewer"], review["note"]) == ("accepted", "sue@acme.test", "Good call")
    assert (review["original"], review["redo_task_id"], review["lease_expires_at"]) == (None, None, None)
    assert before - SLACK <= moment(review["reviewed_at"]) <= now() + SLACK
    assert body_of(admin.get(f"{qpath}/tasks/{task_id}"))["review"] == review
    assert_envelope(verdict(admin, qpath, task_id, "redo"), 409, "already_reviewed")


def test_correct_replaces_the_values_and_keeps_the_workers(clients, admin, worker, org_id) -> None:
    qpath = reviewed_queue(admin, org_id)
    (task_id,) = complete_all(admin, worker, qpath, 1)
    corrected = body_of(
        verdict(admin, qpath, task_id, "correct", data={"category": "blue"}, note="It is blue")
    )
    assert corrected["data"] == {"paragraph": "task 0", "category": "blue", "photo": None}
    assert corrected["review"]["state"] == "corrected"
    assert corrected["review"]["original"] == {"paragraph": "task 0", "category": "red", "photo": None}
    assert corrected["completed_by"] == "wes@acme.test"  # still the worker's task
    history = body_of(admin.get(f"{qpath}/tasks/completed"))["tasks"]
    assert history[0]["data"]["category"] == "blue"
    assert list(history[0]) == TASK_KEYS  # Part A unchanged


def test_correct_refuses_unchanged_missing_and_invalid_data(admin, worker, org_id) -> None:
    qpath = reviewed_queue(admin, org_id)
    (task_id,) = complete_all(admin, worker, qpath, 1)
    unchanged = verdict(admin, qpath, task_id, "correct", data={"category": "red"})
    assert_envelope(unchanged, 400, "invalid_value", field="data")
    assert "change at least one value" in unchanged.json()["errors"][0]["message"]
    assert_envelope(verdict(admin, qpath, task_id, "correct", data={}), 400, "invalid_value", field="data")
    assert_envelope(verdict(admin, qpath, task_id, "correct"), 400, "no_data", field="data")
    assert_envelope(
        verdict(admin, qpath, task_id, "correct", data={"category": "purple"}), 400, "invalid_value"
    )
    assert_envelope(
        verdict(admin, qpath, task_id, "correct", data={"category": None}), 400, "missing_required"
    )
    assert_envelope(verdict(admin, qpath, task_id, "correct", data={"nope": 1}), 400, "unknown_field")
    assert_envelope(verdict(admin, qpath, task_id, "accept", data={"category": "blue"}), 400, "invalid_value")
    assert_envelope(verdict(admin, qpath, task_id, "approve"), 400, "invalid_value", field="verdict")
    assert_envelope(
        verdict(admin, qpath, task_id, "accept", note="x" * 2001), 400, "invalid_value", field="note"
    )
    assert_envelope(admin.post(f"{qpath}/tasks/{task_id}/review", json={}), 400, "missing_required")
    # Nothing was recorded by the refusals: the review is still pending.
    assert body_of(admin.get(f"{qpath}/tasks/{task_id}"))["review"]["state"] == "pending"


def test_redo_creates_a_new_task_with_what_the_worker_was_given(admin, worker, org_id) -> None:
    qpath = reviewed_queue(admin, org_id, blocks=REDO_BLOCKS)
    given = {"given": "Sort this", "photo": "https://example.com/a.png", "site": "https://example.com/"}
    created = body_of(admin.post(f"{qpath}/tasks/create", json={"data": given}))
    body_of(worker.post(f"{qpath}/tasks/next"))
    answered = {"answer": "A cat", "category": "red"}
    body_of(worker.post(f"{qpath}/tasks/{created['id']}/complete", json={"data": answered}))
    redone = body_of(verdict(admin, qpath, created["id"], "redo", note="Look again"))
    review = redone["review"]
    assert review["state"] == "redone" and review["note"] == "Look again" and review["original"] is None
    assert redone["data"] == {**given, **answered}  # the reviewed task keeps its values
    fresh = body_of(admin.get(f"{qpath}/tasks/{review['redo_task_id']}"))
    assert fresh["status"] == "new" and fresh["source"] == "review" and fresh["review"] is None
    assert fresh["data"] == {**given, "answer": None, "category": None}
    assert body_of(admin.get(qpath))["n_tasks"] == 1  # the redo is pending work
    assert body_of(worker.post(f"{qpath}/tasks/next"))["id"] == fresh["id"]


def test_verdicts_need_a_completed_task(admin, org_id) -> None:
    qpath = reviewed_queue(admin, org_id)
    task = body_of(admin.post(f"{qpath}/tasks/create", json={"data": {"paragraph": "p"}}))
    assert_envelope(verdict(admin, qpath, task["id"], "accept"), 409, "not_completed")
    assert_envelope(verdict(admin, qpath, 10**15, "accept"), 404, "not_found")


def test_a_spot_check_needs_no_draw(clients, admin, worker, org_id) -> None:
    qpath = reviewed_queue(admin, org_id, 0)
    (task_id,) = complete_all(admin, worker, qpath, 1)
    assert body_of(admin.get(f"{qpath}/tasks/{task_id}"))["review"] is None
    checked = body_of(verdict(clients["supervisor"], qpath, task_id, "correct", data={"category": "green"}))
    assert checked["review"]["state"] == "corrected" and checked["data"]["category"] == "green"
    assert_envelope(verdict(admin, qpath, task_id, "accept"), 409, "already_reviewed")


def _first_attempt_fails(receiver: Receiver) -> Callable[[int], tuple[int, float]]:
    """Each event's first attempt gets a 500, its next ones a 200."""

    def answer(index: int) -> tuple[int, float]:
        event_id = receiver.received[index].headers["webhook-id"]
        earlier = [r for r in receiver.received[:index] if r.headers["webhook-id"] == event_id]
        return (200 if earlier else 500, 0.0)

    return answer


def test_each_verdict_event_is_signed_retried_and_arrives_once(clients, admin, worker, org_id) -> None:
    qpath = reviewed_queue(admin, org_id)
    first, second, third = complete_all(admin, worker, qpath, 3)
    receiver = Receiver()
    receiver.answer = _first_attempt_fails(receiver)
    receiver.start()
    try:
        # Hooked after the completions: only the verdicts' events are sent.
        assert admin.put(f"{qpath}/webhook", json={"target": receiver.url}).status_code == 200
        supervisor = clients["supervisor"]
        corrected = body_of(
            verdict(supervisor, qpath, first, "correct", data={"category": "blue"}, note="n1")
        )
        redone = body_of(verdict(supervisor, qpath, second, "redo", note="n2"))
        body_of(verdict(supervisor, qpath, third, "accept"))  # sends nothing
        log = wait_log(
            admin, qpath, lambda log: len(log) == 2 and all(d["status"] == "delivered" for d in log)
        )
        assert [(d["type"], d["task_id"], d["attempts"]) for d in log] == [
            ("task.redo", second, 2),
            ("task.corrected", first, 2),
        ]
        received = receiver.wait_for(4)
        time.sleep(1)
        assert len(receiver.received) == 4  # two attempts each, and nothing after the success
        secret = admin.get(f"{qpath}/webhook/secret").json()["secret"]
        for delivery in log:
            attempts = [r for r in received if r.headers["webhook-id"] == delivery["event_id"]]
            assert len(attempts) == 2 and attempts[0].body == attempts[1].body
            for attempt in attempts:
                Webhook(secret).verify(attempt.body, attempt.headers)
        bodies = {json.loads(r.body)["type"]: json.loads(r.body) for r in received}
        part_a = {k: v for k, v in corrected.items() if k in TASK_KEYS}
        assert bodies["task.corrected"] == {
            "type": "task.corrected",
            "task": part_a,
            "original": {"paragraph": "task 0", "category": "red", "photo": None},
            "redo_task_id": None,
            "reviewer": "sue@acme.test",
            "note": "n1",
        }
        assert list(bodies["task.corrected"]["task"]) == TASK_KEYS
        redo = bodies["task.redo"]
        assert (redo["task"]["id"], redo["redo_task_id"], redo["note"]) == (
            second,
            redone["review"]["redo_task_id"],
            "n2",
        )
        assert redo["original"] == redo["task"]["data"]
        # Redelivery sends the same event again, unchanged.
        again = body_of(admin.post(f"{qpath}/webhook/deliveries/{log[1]['id']}/redeliver"))
        assert again["type"] == "task.corrected" and again["status"] == "pending"
        fifth = receiver.wait_for(5)[4]
        assert fifth.headers["webhook-id"] == log[1]["event_id"]
        assert fifth.body == next(r for r in received if r.headers["webhook-id"] == log[1]["event_id"]).body
    finally:
        receiver.stop()


# --- the list of reviews, stats and roles -------------------------------------------------------------


def test_reviews_are_listed_newest_first_with_filters(clients, admin, worker, org_id) -> None:
    qpath = reviewed_queue(admin, org_id)
    by_wes = complete_all(admin, worker, qpath, 3)
    by_wyn = complete_all(admin, clients["worker2"], qpath, 2)
    supervisor = clients["supervisor"]
    body_of(verdict(supervisor, qpath, by_wes[0], "accept"))
    body_of(verdict(admin, qpath, by_wes[1], "correct", data={"category": "blue"}, note="blue"))
    body_of(verdict(supervisor, qpath, by_wyn[0], "redo"))
    body_of(verdict(supervisor, qpath, by_wyn[1], "accept"))

    def listed(client: httpx.Client = admin, **params: Any) -> list[int]:
        page = body_of(client.get(f"{qpath}/reviews", params=params))
        assert list(page) == ["next", "previous", "count", "tasks"] and page["count"] == len(page["tasks"])
        for task in page["tasks"]:
            assert list(task) == [*TASK_KEYS, "assignment", "draft", "review", "consensus"]
        return [t["id"] for t in page["tasks"]]

    assert listed() == [by_wyn[1], by_wyn[0], by_wes[1], by_wes[0]]  # newest verdict first; by_wes[2] pending
    assert listed(verdict="accept") == [by_wyn[1], by_wes[0]]
    assert listed(verdict="corrected,redo") == [by_wyn[0], by_wes[1]]
    assert listed(completed_by="wes@acme.test") == [by_wes[1], by_wes[0]]
    assert listed(reviewer="ada@acme.test") == [by_wes[1]]
    assert listed(supervisor, reviewer="me") == [by_wyn[1], by_wyn[0], by_wes[0]]
    assert listed(completed_by="wyn@acme.test", verdict="redo") == [by_wyn[0]]
    page = body_of(admin.get(f"{qpath}/reviews", params={"limit": 1, "offset": 1}))
    assert page["count"] == 4 and [t["id"] for t in page["tasks"]] == [by_wyn[0]]
    assert page["next"] is not None and page["previous"] is not None
    assert_envelope(admin.get(f"{qpath}/reviews", params={"verdict": "maybe"}), 400, "invalid_parameter")
    assert_envelope(admin.get(f"{qpath}/reviews", params={"limit": 0}), 400, "invalid_parameter")
    # A worker lists the reviews of their own work, and only with completed_by=me.
    mine = body_of(worker.get(f"{qpath}/reviews", params={"completed_by": "me"}))
    assert [t["id"] for t in mine["tasks"]] == [by_wes[1], by_wes[0]]
    assert mine["tasks"][0]["review"]["note"] == "blue"
    assert mine["tasks"][0]["review"]["original"]["category"] == "red"
    assert_envelope(worker.get(f"{qpath}/reviews"), 403, "forbidden")
    assert_envelope(
        worker.get(f"{qpath}/reviews", params={"completed_by": "wyn@acme.test"}), 403, "forbidden"
    )


def test_stats_count_reviews_pending_and_each_workers_verdicts(clients, admin, worker, org_id) -> None:
    qpath = reviewed_queue(admin, org_id)
    by_wes = complete_all(admin, worker, qpath, 4)
    by_wyn = complete_all(admin, clients["worker2"], qpath, 1)
    body_of(verdict(admin, qpath, by_wes[0], "accept"))
    body_of(verdict(admin, qpath, by_wes[1], "accept"))
    body_of(verdict(admin, qpath, by_wes[2], "correct", data={"category": "green"}))
    body_of(verdict(admin, qpath, by_wyn[0], "redo"))
    body_of(claim_review(admin, qpath))  # wes's last: claimed, still waiting for its verdict
    stats = body_of(clients["supervisor"].get(f"{qpath}/stats"))
    assert stats["reviews_pending"] == 1
    counts = {
        w["email"]: (w["completed"], w["reviewed"], w["accepted"], w["corrected"], w["redone"])
        for w in stats["by_worker"]
    }
    assert counts == {"wes@acme.test": (4, 3, 2, 1, 0), "wyn@acme.test": (1, 1, 0, 0, 1)}
    assert stats["pending"] == 1  # the redo


def test_roles_per_the_table(clients, admin, worker, org_id) -> None:
    qpath = reviewed_queue(admin, org_id)
    ids = complete_all(admin, worker, qpath, 2)
    for role in ("worker", "worker2"):
        client: httpx.Client = clients[role]
        assert_envelope(claim_review(client, qpath), 403, "forbidden")
        assert_envelope(verdict(client, qpath, ids[0], "accept"), 403, "forbidden")
        assert_envelope(client.post(f"{qpath}/tasks/{ids[0]}/review/heartbeat"), 403, "forbidden")
        assert_envelope(client.post(f"{qpath}/tasks/{ids[0]}/review/release"), 403, "forbidden")
    assert_envelope(clients["anonymous"].post(f"{qpath}/reviews/next"), 401)
    for role in ("supervisor", "admin"):
        assert body_of(claim_review(clients[role], qpath))["review"]["state"] == "in_review"
    # An admin may release another reviewer's claim; a supervisor may not.
    held_by_admin = body_of(claim_review(admin, qpath))["id"]
    held_by_sue = body_of(claim_review(clients["supervisor"], qpath))["id"]
    assert_envelope(
        clients["supervisor"].post(f"{qpath}/tasks/{held_by_admin}/review/release"), 409, "not_assignee"
    )
    assert body_of(admin.post(f"{qpath}/tasks/{held_by_sue}/review/release"))["review"]["state"] == "pending"
    other = clients["other_admin"]
    assert_envelope(claim_review(other, qpath), 404, "not_found")


# --- the schema upgrade ---------------------------------------------------------------------------------


def test_a_version_8_database_gains_review(tmp_path: Path, backend: str) -> None:
    """A database as version 8 left it (no review share, no reviews, deliveries without a type) is
    upgraded: its queues review nothing, its deliveries are completions, and review works."""
    fresh = ServerProcess(tmp_path / "v8.db", ["--allow-private-webhooks"], seed=ROLES_SEED, backend=backend)
    fresh.start()
    try:
        with fresh.client("admin") as admin, fresh.client("worker") as worker:
            assert (
                admin.put("/orgs/1/queues/1/webhook", json={"target": "http://127.0.0.1:9/h"}).status_code
                == 200
            )
            seeded = body_of(worker.post("/orgs/1/queues/1/tasks/next"))
            body_of(
                worker.post(
                    f"/orgs/1/queues/1/tasks/{seeded['id']}/complete", json={"data": {"category": "red"}}
                )
            )
    finally:
        fresh.stop()
    db_url = fresh.db_url
    execute_sql(db_url, "DROP TABLE reviews")
    execute_sql(db_url, "ALTER TABLE queues DROP COLUMN review_percent")
    execute_sql(db_url, "ALTER TABLE deliveries DROP COLUMN type")
    execute_sql(db_url, "UPDATE schema_version SET version = 8")

    server = ServerProcess(tmp_path / "v8.db", ["--allow-private-webhooks"], backend=backend).start()
    try:
        with server.client("admin") as admin, server.client("worker") as worker:
            assert body_of(admin.get("/orgs/1/queues/1"))["review_percent"] == 0
            (delivery,) = body_of(admin.get("/orgs/1/queues/1/webhook/deliveries"))["deliveries"]
            assert delivery["type"] == "task.completed"
            assert body_of(admin.get(f"/orgs/1/queues/1/tasks/{seeded['id']}"))["review"] is None
            body_of(admin.patch("/orgs/1/queues/1", json={"review_percent": 100}))
            task = body_of(admin.post("/orgs/1/queues/1/tasks/create", json={"data": {"paragraph": "after"}}))
            body_of(worker.post("/orgs/1/queues/1/tasks/next"))
            body_of(
                worker.post(
                    f"/orgs/1/queues/1/tasks/{task['id']}/complete", json={"data": {"category": "blue"}}
                )
            )
            assert body_of(admin.post("/orgs/1/queues/1/reviews/next"))["id"] == task["id"]
            corrected = body_of(
                verdict(admin, "/orgs/1/queues/1", task["id"], "correct", data={"category": "red"})
            )
            assert corrected["review"]["state"] == "corrected"
            assert (
                body_of(verdict(admin, "/orgs/1/queues/1", seeded["id"], "accept"))["review"]["state"]
                == "accepted"
            )
    finally:
        server.stop()
    assert query_value(db_url, "SELECT version FROM schema_version") == LATEST
