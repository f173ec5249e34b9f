"""B19 review over real HTTP: the queue's review share, the draw, review claims, verdicts and their
events, the list of reviews, the stats and the roles."""

import httpx
import pytest

from tests.conftest import make_queue
from tests.support import assert_envelope
from tests.support.contract import body_of

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
