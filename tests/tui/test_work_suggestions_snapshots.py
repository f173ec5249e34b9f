"""SVG snapshots of a suggested form (B23) at 80x24 and 200x60: each suggested value pre-filled,
tinted and marked with its agent and score (a multi-line reply among them), so it never passes for
the worker's typing; and at 80x24 the same form once the worker changed the team, marked as changed
with what was suggested and the key that puts it back. `--snapshot-update` rewrites them; look at
the PNGs first (rsvg-convert)."""

from collections.abc import Iterator

import pytest

from tests.support import ROLES_SEED, ServerProcess, execute_sql
from tests.support.pilot import app_for
from tests.tui.test_snapshots import MINUTE, NOON, steps

SIZES = [(80, 24), (200, 60)]
TEAMS = [
    {"id": "billing", "name": "Billing"},
    {"id": "tech", "name": "Technical"},
    {"id": "sales", "name": "Sales"},
]
BLOCKS = [
    {"id": "message", "name": "Message", "type": "text", "text": {"read_only": True}},
    {
        "id": "team",
        "name": "Team",
        "type": "single_selection",
        "single_selection": {"is_required": True, "options": TEAMS},
    },
    {"id": "urgent", "name": "Urgent", "type": "binary", "binary": {}},
    {"id": "reply", "name": "Reply", "type": "text", "text": {"placeholder": "A first answer"}},
]
MESSAGE = "I was charged twice for my March invoice. Can you refund one of the payments?"
SUGGESTIONS = {
    "team": {"value": "billing", "agent": "triage-model v3", "score": 0.94},
    "reply": {
        "value": "Sorry about the double charge.\nOne payment is refunded today.",
        "agent": "reply-writer",
        "score": None,
    },
}


@pytest.fixture(scope="module")
def suggested_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    server = ServerProcess(tmp_path_factory.mktemp("work-suggestions") / "qd.db", seed=ROLES_SEED).start()
    try:
        admin = server.client("admin")
        org = admin.get("/me").json()["organization_id"]
        queue = admin.post(f"/orgs/{org}/queues", json={"name": "Triage", "data": BLOCKS}).json()
        body = {"data": {"message": MESSAGE}, "suggestions": SUGGESTIONS}
        admin.post(f"/orgs/{org}/queues/{queue['id']}/tasks/create", json=body).raise_for_status()
        execute_sql(server.db_url, f"UPDATE queues SET created_at = {NOON} + id * 7 * {MINUTE}")
        admin.close()
        yield server
    finally:
        server.stop()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_suggested_form_is_pre_filled_and_marked(
    snap_compare, suggested_server: ServerProcess, size: tuple[int, int]
) -> None:
    assert snap_compare(
        app_for(suggested_server, "worker"), terminal_size=size, run_before=steps(*"/Triage", "enter", "w")
    )


def test_a_changed_suggestion_is_marked_as_changed(snap_compare, suggested_server: ServerProcess) -> None:
    assert snap_compare(
        app_for(suggested_server, "worker"),
        terminal_size=(80, 24),
        run_before=steps(*"/Triage", "enter", "w", "2"),
    )
