"""B16 webhook test over real HTTP: a signed ping to a real receiver, its failures, the guard, roles."""

import json
import time

from standardwebhooks import Webhook

from tests.conftest import make_queue
from tests.receiver import Receiver
from tests.support import ROLES_SEED, ServerProcess, assert_envelope


def hooked(admin, org_id: int, target: str) -> str:
    qpath = f"/orgs/{org_id}/queues/{make_queue(admin, org_id)['id']}"
    assert admin.put(f"{qpath}/webhook", json={"target": target}).status_code == 200
    return qpath


def test_a_signed_ping_reaches_the_receiver(admin, org_id, receiver) -> None:
    qpath = hooked(admin, org_id, receiver.url)
    answer = admin.post(f"{qpath}/webhook/test")
    assert answer.status_code == 200, answer.text
    result = answer.json()
    assert list(result) == ["status_code", "error", "duration_ms"]
    assert result["status_code"] == 200 and result["error"] is None and 0 <= result["duration_ms"] < 15_000
    (request,) = receiver.wait_for(1)
    body = json.loads(request.body)
    assert body["type"] == "ping" and body["queue_id"] == int(qpath.rsplit("/", 1)[1])
    assert abs(time.time() - time.mktime(time.strptime(body["sent_at"][:19], "%Y-%m-%dT%H:%M:%S"))) < 86_400
    secret = admin.get(f"{qpath}/webhook/secret").json()["secret"]
    Webhook(secret).verify(request.body, request.headers)  # raises when the signature is wrong


def test_a_ping_is_not_a_delivery_and_is_not_retried(admin, org_id) -> None:
    failing = Receiver(answer=lambda n: (503, 0.0)).start()
    try:
        qpath = hooked(admin, org_id, failing.url)
        result = admin.post(f"{qpath}/webhook/test").json()
        assert result["status_code"] == 503 and result["error"] == "the receiver answered 503"
        time.sleep(6)  # past the first retry delay of a delivery (5 s)
        assert len(failing.received) == 1
        assert admin.get(f"{qpath}/webhook/deliveries").json()["count"] == 0
    finally:
        failing.stop()


def test_an_unreachable_target_is_reported_not_raised(admin, org_id) -> None:
    closed = Receiver().start()
    url = closed.url
    closed.stop()
    result = admin.post(f"{hooked(admin, org_id, url)}/webhook/test").json()
    assert result["status_code"] is None and "ConnectError" in result["error"]


def test_no_webhook_is_a_409(admin, qpath) -> None:
    assert_envelope(admin.post(f"{qpath}/webhook/test"), 409, "conflict")


def test_roles_and_other_organizations(clients, org_id, other_org, receiver) -> None:
    qpath = hooked(clients["admin"], org_id, receiver.url)
    for role in ("supervisor", "worker"):
        assert_envelope(clients[role].post(f"{qpath}/webhook/test"), 403, "forbidden")
    assert_envelope(clients["anonymous"].post(f"{qpath}/webhook/test"), 401)
    assert_envelope(clients["other_admin"].post(f"{qpath}/webhook/test"), 404)
    other = f"/orgs/{other_org['org']}/queues/{other_org['queue']}/webhook/test"
    assert_envelope(clients["admin"].post(other), 404)
    assert receiver.received == []


def test_the_guard_stops_a_ping_to_a_private_address(tmp_path, backend: str) -> None:
    """A target stored while private webhooks were allowed is still refused by a guarded server."""
    receiver = Receiver().start()
    db = tmp_path / "guarded.db"
    open_server = ServerProcess(db, ["--allow-private-webhooks"], seed=ROLES_SEED, backend=backend).start()
    try:
        admin = open_server.client("admin")
        org = admin.get("/me").json()["organization_id"]
        qpath = hooked(admin, org, receiver.url)
        admin.close()
    finally:
        open_server.stop()
    guarded = ServerProcess(db, [], backend=backend).start()  # the same database
    try:
        with guarded.client("admin") as admin:
            result = admin.post(f"{qpath}/webhook/test").json()
        assert result["status_code"] is None and result["error"].startswith("blocked:")
        assert receiver.received == []
    finally:
        guarded.stop()
        receiver.stop()
