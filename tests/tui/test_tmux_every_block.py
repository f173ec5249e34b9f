"""Every block type of the contract, worked keyboard-only in a real terminal (tmux, the installed
command), against a real `queuedesk serve` (issue 27). The server then holds exactly what was
typed, read back over the API. Bounding boxes are refused before any claim, with the reason.

Each field's keys go in as one burst (one `send-keys`), without waiting for the app: a fast worker.
"""

import uuid
from collections.abc import Callable
from typing import Any

import httpx

from tests.support.tmux import Pane, needs_tmux
from tests.tui.test_tmux_review import open_app, open_queue_row, still  # noqa: F401  (fixture)

pytestmark = needs_tmux

OPTIONS = [{"id": "a", "name": "Alpha"}, {"id": "b", "name": "Beta"}, {"id": "c", "name": "Gamma"}]
TEXT = "Alice wrote to ACME about the refund"
# The task's content first (shown), then what the worker fills, in the order `tab` visits it.
BLOCKS: list[dict[str, Any]] = [
    {"id": "message", "name": "Message", "type": "text", "text": {"read_only": True}},
    {"id": "brief", "name": "Brief", "type": "rich_text", "rich_text": {"format": "markdown"}},
    {"id": "photo", "name": "Photo", "type": "image"},
    *(
        {"id": kind, "name": kind.title(), "type": kind}
        for kind in ("link", "embed", "audio", "video", "pdf")
    ),
    {
        "id": "names",
        "name": "Names",
        "type": "named_entity_recognition",
        "named_entity_recognition": {"labels": ["PER", "ORG"]},
    },
    {"id": "team", "name": "Team", "type": "single_selection", "single_selection": {"options": OPTIONS}},
    {"id": "tags", "name": "Tags", "type": "multiple_selection", "multiple_selection": {"options": OPTIONS}},
    {"id": "urgent", "name": "Urgent", "type": "binary"},
    {"id": "amount", "name": "Amount", "type": "number"},
    {"id": "due", "name": "Due", "type": "date"},
    {"id": "contact", "name": "Contact", "type": "email"},
    {"id": "items", "name": "Items", "type": "list"},
    {"id": "steps", "name": "Steps", "type": "text_sequence"},
    {"id": "form", "name": "Form", "type": "form_sequence"},
    {"id": "note", "name": "Note", "type": "text"},
]
GIVEN = {
    "message": "Sort this customer's mail",
    "brief": "Read the **whole** mail first",
    "link": "https://example.com/mail/1",
    "embed": "https://example.com/embed/1",
    "audio": "https://example.com/call.mp3",
    "video": "https://example.com/call.mp4",
    "pdf": "https://example.com/invoice.pdf",
    "names": {"text": TEXT, "entities": []},
}
# One burst per field: (what `send-keys` gets, whether it is literal text).
BURSTS: list[tuple[list[str], bool]] = [
    # Names: Alice is PER; three words on, "ACME about" (shift+right extends) is ORG.
    (["1", "Right", "Right", "Right", "S-Right", "2", "Tab"], False),
    (["2", "Tab"], False),  # Team: Beta
    (["1", "3", "Tab"], False),  # Tags: Alpha and Gamma
    (["y", "Tab"], False),  # Urgent: yes
    (["12.5"], True),
    (["Tab"], False),
    (["2026-12-01"], True),
    (["Tab"], False),
    (["sue@acme.test"], True),
    (["Tab"], False),
    (["red"], True),
    (["Enter"], False),
    (["blue"], True),
    (["Tab"], False),
    (["one"], True),
    (["Enter"], False),
    (["two"], True),
    (["Tab"], False),
    (['{"pages": 2}'], True),
    (["Tab"], False),
    (["all fine"], True),
]
EXPECTED = {
    **GIVEN,
    "photo": None,
    "names": {
        "text": TEXT,
        "entities": [{"start": 0, "end": 5, "label": "PER"}, {"start": 15, "end": 25, "label": "ORG"}],
    },
    "team": "b",
    "tags": ["a", "c"],
    "urgent": True,
    "amount": 12.5,
    "due": "2026-12-01",
    "contact": "sue@acme.test",
    "items": ["red", "blue"],
    "steps": ["one", "two"],
    "form": {"pages": 2},
    "note": "all fine",
}


def test_a_task_with_every_block_type_is_completed_keyboard_only(
    open_app: Callable[[str], Pane],  # noqa: F811
    admin: httpx.Client,
    org_id: int,
) -> None:
    name = f"Everyblock {uuid.uuid4().hex[:6]}"
    queue = admin.post(f"/orgs/{org_id}/queues", json={"name": name, "data": BLOCKS}).json()
    qpath = f"/orgs/{org_id}/queues/{queue['id']}"
    task_id = admin.post(f"{qpath}/tasks/create", json={"data": GIVEN}).json()["id"]
    assert TEXT[15:25] == "ACME about"

    pane = open_app("worker")
    open_queue_row(pane, name)
    pane.keys("w")
    screen = pane.wait_for("⇧←→ span")  # the named-entity field has the focus
    assert "Sort this customer's mail" in screen and "needs another tool" not in screen
    for keys, literal in BURSTS:
        pane.keys(*(["-l", *keys] if literal else keys))
    still(pane)
    pane.keys("Enter")
    pane.wait_for(f"Task {task_id} sent in 5 s")
    pane.keys("Escape")  # leaving sends what waits for the undo grace
    pane.wait_for("Sort")
    pane.keys("C-q")
    assert "QUEUEDESK-EXIT=0" in pane.wait_for("QUEUEDESK-EXIT=")

    done = admin.get(f"{qpath}/tasks/completed").json()["tasks"]
    assert [task["id"] for task in done] == [task_id]
    assert done[0]["data"] == EXPECTED


def test_a_queue_with_bounding_boxes_says_so_before_claiming(
    open_app: Callable[[str], Pane],  # noqa: F811
    admin: httpx.Client,
    org_id: int,
) -> None:
    name = f"Boxes {uuid.uuid4().hex[:6]}"
    blocks = [BLOCKS[0], {"id": "boxes", "name": "Boxes", "type": "bounding_boxes"}]
    queue = admin.post(f"/orgs/{org_id}/queues", json={"name": name, "data": blocks}).json()
    qpath = f"/orgs/{org_id}/queues/{queue['id']}"
    admin.post(f"{qpath}/tasks/create", json={"data": {"message": "draw the cars"}}).raise_for_status()
    pane = open_app("worker")
    open_queue_row(pane, name)
    pane.keys("w")
    screen = pane.wait_for("needs another tool")
    assert "Boxes (drawing boxes on the image)" in " ".join(screen.split())
    assert "No task was claimed" in " ".join(screen.split())
    pane.keys("C-q")
    assert "QUEUEDESK-EXIT=0" in pane.wait_for("QUEUEDESK-EXIT=")
    pending = admin.get(f"{qpath}/tasks").json()["tasks"]
    assert [task["assignment"]["assigned_to"] for task in pending] == [None]
