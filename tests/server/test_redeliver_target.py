"""B11's optional `{"target": "current"}`: a delivery sent again to the queue's webhook as it is now
(its target changes, its event id stays), and B10's `type` on every delivery."""

import httpx

from tests.receiver import Receiver
from tests.server.test_webhooks import complete_one, hooked_queue, wait_log
from tests.support.contract import body_of


def _failed_delivery(
    admin: httpx.Client, worker: httpx.Client, org_id: int, gone: Receiver
) -> tuple[str, dict]:
    """A queue whose one delivery failed at once (its receiver answered 410 Gone)."""
    qpath = hooked_queue(admin, org_id, gone.url)
    complete_one(admin, worker, qpath)
    gone.wait_for(1)
    log = wait_log(admin, qpath, lambda log: bool(log) and log[0]["status"] == "failed")
    assert log[0]["status"] == "failed", log
    return qpath, log[0]


def test_redeliver_to_the_current_target_keeps_the_event_id(admin, worker, org_id) -> None:
    gone = Receiver(answer=lambda n: (410, 0.0)).start()
    fixed = Receiver().start()
    try:
        qpath, failed = _failed_delivery(admin, worker, org_id, gone)
        assert failed["type"] == "task.completed" and failed["target"] == gone.url
        assert admin.put(f"{qpath}/webhook", json={"target": fixed.url}).status_code == 200
        again = body_of(
            admin.post(f"{qpath}/webhook/deliveries/{failed['id']}/redeliver", json={"target": "current"})
        )
        assert (again["id"], again["event_id"], again["type"]) == (
            failed["id"],
            failed["event_id"],
            "task.completed",
        )
        assert (again["target"], again["status"]) == (fixed.url, "pending")
        (request,) = fixed.wait_for(1)
        assert request.headers["webhook-id"] == failed["event_id"]
        log = wait_log(admin, qpath, lambda log: log[0]["status"] == "delivered")
        assert (log[0]["target"], log[0]["status"], log[0]["attempts"]) == (fixed.url, "delivered", 2)
        assert body_of(admin.get(f"{qpath}/webhook/deliveries/{failed['id']}"))["type"] == "task.completed"
        assert len(gone.received) == 1
        org = f"/orgs/{org_id}/audit"
        queue_id = int(qpath.rsplit("/", 1)[1])
        [event] = body_of(admin.get(org, params={"queue_id": queue_id, "action": "delivery.redeliver"}))[
            "events"
        ]
        assert event["detail"] == {"target": fixed.url, "previous_target": gone.url}
    finally:
        gone.stop()
        fixed.stop()


def test_redeliver_refuses_a_wrong_body_and_a_queue_without_webhook(admin, worker, org_id) -> None:
    gone = Receiver(answer=lambda n: (410, 0.0)).start()
    try:
        qpath, failed = _failed_delivery(admin, worker, org_id, gone)
        path = f"{qpath}/webhook/deliveries/{failed['id']}/redeliver"
        wrong = admin.post(path, json={"target": "https://elsewhere.example/hook"})
        assert wrong.status_code == 400 and wrong.json()["errors"][0]["field"] == "target"
        unknown = admin.post(path, json={"to": "current"})
        assert unknown.status_code == 400 and unknown.json()["errors"][0]["code"] == "unknown_field"
        missing = admin.post(f"{qpath}/webhook/deliveries/999999999/redeliver", json={"target": 1})
        assert missing.status_code == 404  # the object before the body
        assert admin.delete(f"{qpath}/webhook").status_code == 200
        refused = admin.post(path, json={"target": "current"})
        assert refused.status_code == 409 and "no webhook" in refused.json()["errors"][0]["message"]
        still = body_of(admin.get(f"{qpath}/webhook/deliveries/{failed['id']}"))
        assert (still["status"], still["target"]) == ("failed", gone.url)  # nothing changed
        own = body_of(admin.post(path, json={}))  # no target: its own, as before
        assert (own["status"], own["target"]) == ("pending", gone.url)
    finally:
        gone.stop()
