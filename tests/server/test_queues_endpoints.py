"""Queues: list and get (A3, A4), flush (A5), create and change (B12, B13), the legacy /workflows
aliases.

Each endpoint's success answer, field by field, against /work/shared/API.md, over real HTTP.
Every test talks to a real `queuedesk serve` process (the session `server` fixture)
and works in a fresh queue, so tests never see each other's tasks.
"""

import time

from tests.support import CORE_BLOCKS
from tests.support.contract import (
    BLOCK_IDS,
    PAGE_KEYS,
    QUEUE_DETAIL_KEYS,
    QUEUE_KEYS,
    SLACK,
    WES,
    assert_empty_200,
    assert_task,
    body_of,
    claim,
    complete_next,
    create,
    full,
    moment,
    now,
    split_link,
)

# --- A3 list queues, A4 get a queue -------------------------------------------------------------


def test_list_queues_ordered_by_id_with_exact_keys(clients, admin, queue, org_id, other_org):
    listed = body_of(admin.get(f"/orgs/{org_id}/queues"))
    assert isinstance(listed, list)
    ids = [q["id"] for q in listed]
    assert ids == sorted(ids)
    assert len(ids) == len(set(ids))
    assert other_org["queue"] not in ids
    for item in listed:
        assert list(item) == QUEUE_KEYS, item
        moment(item["created_at"])
        assert isinstance(item["n_tasks"], int)
        assert isinstance(item["active_users"], list)
    assert "Categorization" in [q["name"] for q in listed]
    mine = next(q for q in listed if q["id"] == queue["id"])
    assert mine == {
        "id": queue["id"],
        "name": queue["name"],
        "created_at": queue["created_at"],
        "n_tasks": 0,
        "active_users": [],
        "review_percent": 0,
        "gold_percent": 0,
    }
    for role in ("supervisor", "worker"):
        assert body_of(clients[role].get(f"/orgs/{org_id}/queues")) == listed


def test_list_queues_counts_open_tasks_and_live_claim_holders(clients, admin, worker, queue, qpath, org_id):
    worker2 = clients["worker2"]

    def summary() -> dict:
        listed = body_of(admin.get(f"/orgs/{org_id}/queues"))
        return next(q for q in listed if q["id"] == queue["id"])

    for n in range(5):
        create(admin, qpath, paragraph=f"task {n}")
    assert summary()["n_tasks"] == 5
    assert summary()["active_users"] == []

    # Claimed in the order Wes, Ada, Wyn: the names come back sorted, not in claim order (or its reverse).
    held_by_wes = claim(worker, qpath)
    held_by_ada = claim(admin, qpath)
    claim(worker2, qpath)
    state = summary()
    assert state["n_tasks"] == 5, "in_progress tasks are not completed"
    assert state["active_users"] == ["Ada", "Wes", "Wyn"]

    body_of(worker.post(f"{qpath}/tasks/{held_by_wes['id']}/complete", json={"data": {"category": "red"}}))
    state = summary()
    assert state["n_tasks"] == 4
    assert state["active_users"] == ["Ada", "Wyn"]

    body_of(admin.post(f"{qpath}/tasks/{held_by_ada['id']}/release"))
    state = summary()
    assert state["n_tasks"] == 4, "an open task still counts"
    assert state["active_users"] == ["Wyn"]

    detail = body_of(admin.get(qpath))
    assert detail["n_tasks"] == 4
    assert detail["active_users"] == ["Wyn"]


def test_get_queue_adds_description_and_data(clients, admin, queue, qpath, org_id):
    detail = body_of(admin.get(qpath))
    assert list(detail) == QUEUE_DETAIL_KEYS
    assert detail["id"] == queue["id"]
    assert detail["name"] == queue["name"]
    assert detail["created_at"] == queue["created_at"]
    moment(detail["created_at"])
    assert detail["n_tasks"] == 0
    assert detail["active_users"] == []
    assert detail["description"] == ""
    assert [b["id"] for b in detail["data"]] == BLOCK_IDS
    for sent, got in zip(CORE_BLOCKS, detail["data"], strict=True):
        assert got["id"] == sent["id"]
        assert got["name"] == sent["name"]
        assert got["type"] == sent["type"]
        settings = got[sent["type"]]
        for key, value in sent[sent["type"]].items():
            assert settings[key] == value, (sent["id"], key)

    create(admin, qpath, paragraph="one")
    create(admin, qpath, paragraph="two")
    assert body_of(clients["worker"].get(qpath))["n_tasks"] == 2
    assert body_of(clients["supervisor"].get(qpath)) == body_of(admin.get(qpath))

    seeded = next(q for q in body_of(admin.get(f"/orgs/{org_id}/queues")) if q["name"] == "Categorization")
    seeded_detail = body_of(admin.get(f"/orgs/{org_id}/queues/{seeded['id']}"))
    assert seeded_detail["description"] == "Sort incoming reports"
    assert [b["id"] for b in seeded_detail["data"]] == ["paragraph", "category"]


# --- A5 flush -----------------------------------------------------------------------------------


def test_flush_deletes_pending_and_keeps_completed(clients, admin, worker, queue, qpath):
    done = create(admin, qpath, paragraph="done")
    completed = complete_next(worker, qpath, category="red")
    assert completed["id"] == done["id"]
    reopened = create(admin, qpath, paragraph="open")
    held = create(admin, qpath, paragraph="held")
    fresh = create(admin, qpath, paragraph="new")
    body_of(worker.post(f"{qpath}/tasks/{claim(worker, qpath)['id']}/release"))
    assert claim(clients["worker2"], qpath)["id"] == held["id"]
    statuses = {t["id"]: t["status"] for t in body_of(admin.get(f"{qpath}/tasks"))["tasks"]}
    assert statuses == {reopened["id"]: "open", held["id"]: "in_progress", fresh["id"]: "new"}
    assert body_of(admin.get(qpath))["n_tasks"] == 3

    assert_empty_200(admin.put(f"{qpath}/flush"))

    pending = body_of(admin.get(f"{qpath}/tasks"))
    assert pending["count"] == 0
    assert pending["tasks"] == []
    after = body_of(admin.get(qpath))
    assert after["n_tasks"] == 0
    assert after["active_users"] == []
    history = body_of(admin.get(f"{qpath}/tasks/completed"))
    assert history["count"] == 1
    assert history["tasks"] == [completed]
    assert body_of(admin.get(f"{qpath}/tasks/{done['id']}"))["status"] == "completed"
    for gone in (reopened, held, fresh):
        assert admin.get(f"{qpath}/tasks/{gone['id']}").status_code == 404

    # Flushing an already empty queue is still a 200 with an empty body.
    assert_empty_200(admin.put(f"{qpath}/flush"))
    assert body_of(admin.get(f"{qpath}/tasks/completed"))["count"] == 1


# --- legacy /workflows aliases ------------------------------------------------------------------


def test_workflows_aliases_behave_like_queues(server, clients, admin, worker, queue, qpath, org_id):
    legacy = qpath.replace(f"/orgs/{org_id}/queues/", f"/orgs/{org_id}/workflows/", 1)
    assert legacy != qpath

    assert body_of(admin.get(f"/orgs/{org_id}/workflows")) == body_of(admin.get(f"/orgs/{org_id}/queues"))
    assert body_of(admin.get(legacy)) == body_of(admin.get(qpath))

    made = body_of(admin.post(f"{legacy}/tasks/create", json={"data": {"paragraph": "legacy"}}))
    assert_task(made, queue)
    assert made["status"] == "new"
    assert made["source"] == "api"
    assert made["data"] == full(paragraph="legacy")
    assert body_of(admin.get(f"{qpath}/tasks/{made['id']}"))["data"] == made["data"]

    create(admin, qpath, paragraph="second")
    create(admin, qpath, paragraph="third")
    for _ in range(3):
        complete_next(worker, qpath, category="blue")
    params = {"completed_by": WES[0], "limit": 2}
    old = body_of(admin.get(f"{legacy}/tasks/completed", params=params))
    new = body_of(admin.get(f"{qpath}/tasks/completed", params=params))
    assert list(old) == PAGE_KEYS
    assert old["count"] == new["count"] == 3
    assert old["tasks"] == new["tasks"]
    assert old["previous"] is None
    scheme, netloc, _, query = split_link(old["next"])
    assert f"{scheme}://{netloc}" == server.url
    assert query == {"completed_by": WES[0], "limit": "2", "offset": "2"}
    assert body_of(admin.get(old["next"]))["tasks"] == body_of(admin.get(new["next"]))["tasks"]
    mine = body_of(worker.get(f"{legacy}/tasks/completed", params={"completed_by": "me"}))
    assert mine["count"] == 3

    assert body_of(admin.get(f"{legacy}/webhook")) == {"target": ""}
    assert_empty_200(admin.put(f"{legacy}/webhook", json={"target": "http://127.0.0.1:9/legacy"}))
    assert body_of(admin.get(f"{qpath}/webhook")) == {"target": "http://127.0.0.1:9/legacy"}
    assert_empty_200(admin.patch(f"{legacy}/webhook", json={"target": "http://127.0.0.1:9/patched"}))
    assert body_of(clients["supervisor"].get(f"{legacy}/webhook")) == {"target": "http://127.0.0.1:9/patched"}
    assert_empty_200(admin.put(f"{legacy}/webhook", json={"target": ""}))
    assert body_of(admin.get(f"{qpath}/webhook")) == {"target": ""}

    create(admin, qpath, paragraph="to flush")
    assert body_of(admin.get(legacy))["n_tasks"] == 1
    assert_empty_200(admin.put(f"{legacy}/flush"))
    assert body_of(admin.get(qpath))["n_tasks"] == 0
    assert body_of(admin.get(f"{legacy}/tasks/completed"))["count"] == 3


# --- B12 create and B13 change queues -----------------------------------------------------------


def test_create_queue_answers_the_queue_with_data(clients, admin, org_id):
    blocks = [
        {
            "id": "body",
            "name": "Body",
            "type": "text",
            "text": {"placeholder": "Say it", "is_required": True},
        },
        {
            "id": "mood",
            "name": "Mood",
            "type": "single_selection",
            "single_selection": {"options": [{"id": "up", "name": "Up"}, {"id": "down", "name": "Down"}]},
        },
    ]
    name = f"Created {time.monotonic_ns()}"
    before = now()
    made = body_of(
        admin.post(f"/orgs/{org_id}/queues", json={"name": name, "description": "Moods", "data": blocks})
    )
    after = now()
    assert list(made) == QUEUE_DETAIL_KEYS
    assert isinstance(made["id"], int) and made["id"] > 0
    assert made["name"] == name
    assert before - SLACK <= moment(made["created_at"]) <= after + SLACK
    assert made["n_tasks"] == 0
    assert made["active_users"] == []
    assert made["description"] == "Moods"
    assert [b["id"] for b in made["data"]] == ["body", "mood"]
    assert made["data"][0]["text"]["placeholder"] == "Say it"
    assert made["data"][1]["single_selection"]["options"] == blocks[1]["single_selection"]["options"]

    assert body_of(admin.get(f"/orgs/{org_id}/queues/{made['id']}")) == made
    listed = body_of(clients["worker"].get(f"/orgs/{org_id}/queues"))
    assert listed[-1] == {k: made[k] for k in QUEUE_KEYS}

    bare = body_of(admin.post(f"/orgs/{org_id}/queues", json={"name": f"{name} bare", "data": blocks[:1]}))
    assert bare["description"] == ""
    assert bare["id"] > made["id"]

    task = create(admin, f"/orgs/{org_id}/queues/{made['id']}", mood="down")
    assert task["data"] == {"body": None, "mood": "down"}
    assert task["queue"] == name


def test_patch_queue_changes_only_what_is_sent(admin, worker, queue, qpath):
    create(admin, qpath, paragraph="counted")

    renamed = body_of(admin.patch(qpath, json={"name": f"{queue['name']} renamed"}))
    assert list(renamed) == QUEUE_DETAIL_KEYS
    assert renamed["id"] == queue["id"]
    assert renamed["name"] == f"{queue['name']} renamed"
    assert renamed["created_at"] == queue["created_at"]
    assert renamed["description"] == ""
    assert renamed["data"] == queue["data"]
    assert renamed["n_tasks"] == 1
    assert renamed["active_users"] == []

    described = body_of(admin.patch(qpath, json={"description": "Now with words"}))
    assert described["description"] == "Now with words"
    assert described["name"] == renamed["name"]
    assert described["data"] == queue["data"]

    claim(worker, qpath)
    blocks = [*CORE_BLOCKS, {"id": "notes", "name": "Notes", "type": "text", "text": {}}]
    reshaped = body_of(admin.patch(qpath, json={"data": blocks}))
    assert [b["id"] for b in reshaped["data"]] == [*BLOCK_IDS, "notes"]
    assert reshaped["name"] == renamed["name"]
    assert reshaped["description"] == "Now with words"
    assert reshaped["active_users"] == ["Wes"]
    assert reshaped["n_tasks"] == 1

    everything = body_of(admin.patch(qpath, json={"name": "All at once " + queue["name"], "description": ""}))
    assert everything["name"] == "All at once " + queue["name"]
    assert everything["description"] == ""
    assert body_of(admin.get(qpath)) == everything

    task = create(admin, qpath, notes="new block")
    assert task["queue"] == everything["name"]
    assert task["data"] == {"paragraph": None, "category": None, "photo": None, "notes": "new block"}
