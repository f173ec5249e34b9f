"""SVG snapshots of the work screen reading a long task (issue 27): the queue's instructions shown,
the task's text scrolled, named entities marked by keyboard; and a bounding-box queue refused.
At 80x24 and 200x60. `--snapshot-update` rewrites them; look at the PNGs before accepting.
"""

from collections.abc import Iterator

import pytest

from tests.support import ROLES_SEED, ServerProcess, execute_sql
from tests.support.pilot import app_for
from tests.tui.test_snapshots import MINUTE, NOON, steps

SIZES = [(80, 24), (200, 60)]
DESCRIPTION = (
    "## Before you start\n\nMark every **person** and **company** in the mail, then pick the team.\n\n"
    "- a shop's name is a company\n- ask *Sue* when unsure"
)
STORY = "\n".join(
    f"Line {n}: the parcel was sent on Monday and came back on Friday, unopened." for n in range(1, 61)
)
BLOCKS = [
    {"id": "message", "name": "Message", "type": "text", "text": {"read_only": True}},
    {
        "id": "names",
        "name": "Names",
        "type": "named_entity_recognition",
        "named_entity_recognition": {
            "labels": [{"id": "PER", "name": "Person"}, {"id": "ORG", "name": "Company"}]
        },
    },
    {
        "id": "team",
        "name": "Team",
        "type": "single_selection",
        "single_selection": {
            "options": [{"id": "billing", "name": "Billing"}, {"id": "post", "name": "Post"}]
        },
    },
]
MAIL = "Dear team, Alice Moreau here: my order from Northwind Traders never arrived. Please ask DHL."


@pytest.fixture
def work_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    server = ServerProcess(tmp_path_factory.mktemp("work-snapshots") / "qd.db", seed=ROLES_SEED).start()
    admin = server.client("admin")
    org = admin.get("/me").json()["organization_id"]
    for name, blocks, data in (
        ("Mail", BLOCKS, {"message": STORY, "names": {"text": MAIL, "entities": []}}),
        (
            "Boxes",
            [BLOCKS[0], {"id": "cars", "name": "Cars", "type": "bounding_boxes"}],
            {"message": "Draw a box round every car."},
        ),
    ):
        queue = admin.post(
            f"/orgs/{org}/queues", json={"name": name, "description": DESCRIPTION, "data": blocks}
        ).json()
        admin.post(f"/orgs/{org}/queues/{queue['id']}/tasks/create", json={"data": data}).raise_for_status()
    execute_sql(server.db_url, f"UPDATE queues SET created_at = {NOON} + id * 7 * {MINUTE}")
    execute_sql(server.db_url, f"UPDATE tasks SET created_at = {NOON} + id * {MINUTE}")
    admin.close()
    yield server
    server.stop()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_work_screen_long_task_scrolled_with_instructions_and_entities(
    snap_compare, work_server: ServerProcess, size: tuple[int, int]
) -> None:
    """Alice Moreau a person (two words), Northwind Traders a company, the story scrolled a page;
    the instructions folded at 80x24 are opened with f2."""
    opened = ["f2"] if size[1] < 40 else []
    keys = [*"/Mail", "enter", "w", *opened, "right", "right", "right", "shift+right", "1"]
    keys += ["right"] * 6 + ["shift+right", "2", "ctrl+down"]
    assert snap_compare(app_for(work_server, "worker"), terminal_size=size, run_before=steps(*keys))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_work_screen_refuses_a_bounding_box_queue_before_claiming(
    snap_compare, work_server: ServerProcess, size: tuple[int, int]
) -> None:
    assert snap_compare(
        app_for(work_server, "worker"), terminal_size=size, run_before=steps(*"/Boxes", "enter", "w")
    )
