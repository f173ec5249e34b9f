"""SVG snapshots of the queue editor: editing the seed's queue (its selection block chosen, the
worker's form beside it) at 80x24 and 200x60, a duplicate block id marked on its field, and the
question before removing a block of a queue with tasks.

`pytest tests/tui/test_queue_editor_snapshots.py --snapshot-update` rewrites them; look at the PNGs
(`rsvg-convert -o x.png file.svg`) before accepting.
"""

from collections.abc import Iterator

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.widgets.block_list import BlockList
from tests.support import ROLES_SEED, ServerProcess
from tests.support.pilot import app_for
from tests.tui.test_snapshots import ready_picture

SIZES = [(80, 24), (200, 60)]


@pytest.fixture(scope="module")
def editor_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    server = ServerProcess(tmp_path_factory.mktemp("editor-snapshots") / "qd.db", seed=ROLES_SEED).start()
    yield server
    server.stop()


async def open_editor(pilot: Pilot[None]) -> None:
    await ready_picture(pilot)
    await pilot.press("E")  # the first queue: Categorization, one task
    await ready_picture(pilot)


async def on_the_selection_block(pilot: Pilot[None]) -> None:
    await open_editor(pilot)
    pilot.app.screen.query_one(BlockList).focus()
    await pilot.press("down")
    await ready_picture(pilot)


async def duplicate_id(pilot: Pilot[None]) -> None:
    await on_the_selection_block(pilot)
    pilot.app.screen.query_one("#block-id", Input).value = "paragraph"
    await ready_picture(pilot)


async def removing_a_block(pilot: Pilot[None]) -> None:
    await open_editor(pilot)
    pilot.app.screen.query_one(BlockList).focus()
    await pilot.press("delete", "ctrl+s")
    await ready_picture(pilot)


def app(server: ServerProcess) -> QueueDeskApp:
    return app_for(server)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_queue_editor(snap_compare, editor_server: ServerProcess, size: tuple[int, int]) -> None:
    assert snap_compare(app(editor_server), terminal_size=size, run_before=on_the_selection_block)


def test_queue_editor_duplicate_id(snap_compare, editor_server: ServerProcess) -> None:
    assert snap_compare(app(editor_server), terminal_size=(100, 30), run_before=duplicate_id)


def test_queue_editor_asks_before_changing_blocks(snap_compare, editor_server: ServerProcess) -> None:
    assert snap_compare(app(editor_server), terminal_size=(80, 24), run_before=removing_a_block)
