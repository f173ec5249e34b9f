"""At 80 columns every footer fits the terminal: the app's own keys (`^q Quit`, `f1 Keys`) end
it on every screen and tab, however many keys the screen has (f1 lists every key)."""

import pytest
from textual.widgets import TabbedContent

from queuedesk.tui.widgets.app_footer import fitted
from tests.support.pilot import settled_footer, until
from tests.tui.conftest import MakeApp
from tests.tui.test_app import create, home, open_queue

NARROW = (80, 24)


class Key:
    """A stand-in of Textual's footer key: what `fitted` reads of one."""

    def __init__(self, key: str, description: str, action: str) -> None:
        self.key, self.key_display, self.description, self.action = key, key, description, action

    def has_class(self, name: str) -> bool:
        return False


def test_the_screens_last_keys_go_first_and_the_apps_keys_and_escape_stay() -> None:
    keys = [Key("e", "Edit", "edit"), Key("escape", "Back", "back"), Key("X", "Export", "export")]
    keys += [Key("s", "Sort", "sort"), Key("ctrl+q", "Quit", "quit"), Key("f1", "Keys", "keys")]
    widths = [7, 12, 9, 7, 12, 8]  # compact: key, space, description, margin
    assert [len(k.key) + 1 + len(k.description) + 1 for k in keys] == widths
    every = sum(widths)
    assert fitted(keys, every, {"quit", "keys"}, compact=True) == keys  # type: ignore[arg-type]
    # The last key's trailing cell may be cut: one cell short still fits; two do not.
    assert fitted(keys, every - 1, {"quit", "keys"}, compact=True) == keys  # type: ignore[arg-type]
    left = fitted(keys, every - 2, {"quit", "keys"}, compact=True)  # type: ignore[arg-type]
    assert [k.action for k in left] == ["edit", "back", "export", "quit", "keys"]  # type: ignore[attr-defined]
    left = fitted(keys, 30, {"quit", "keys"}, compact=True)  # type: ignore[arg-type]
    assert [k.action for k in left] == ["back", "quit", "keys"]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "tab", ["tab-pending", "tab-completed", "tab-blocks", "tab-stats", "tab-webhook", "tab-feedback"]
)
async def test_every_tab_of_the_queue_screen_ends_its_footer_with_the_apps_keys_at_80_columns(
    make_app: MakeApp, admin, org_id: int, fresh, tab: str
) -> None:
    queue = fresh("Footer")
    create(admin, org_id, queue, 2)
    app = make_app("admin")
    async with app.run_test(size=NARROW) as pilot:
        await home(app, pilot)
        screen = await open_queue(app, pilot, queue["id"])
        screen.query_one(TabbedContent).active = tab
        await until(app, pilot, lambda: screen.query_one(TabbedContent).active == tab, "the tab shown")
        line = await settled_footer(app, pilot)
        assert line.rstrip().endswith("^q Quit f1 Keys"), line
        assert "esc Back" in line, line
