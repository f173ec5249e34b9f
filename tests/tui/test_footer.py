"""The queue list's footer rebuilds its keys once at the start, and again only when they change."""

import pytest
from textual.widget import Widget

from queuedesk.tui.widgets.footer import Footer
from tests.tui.conftest import MakeApp
from tests.tui.test_app import SIZE, footer_line, home, settle


@pytest.fixture
def rebuilds(monkeypatch: pytest.MonkeyPatch) -> list[Widget]:
    """Every footer recompose, in order (Textual's own recompose still runs)."""
    seen: list[Widget] = []
    recompose = Widget.recompose

    async def counted(self: Widget) -> None:
        if isinstance(self, Footer):
            seen.append(self)
        await recompose(self)

    monkeypatch.setattr(Widget, "recompose", counted)
    return seen


async def test_the_footer_is_built_once_at_the_start(make_app: MakeApp, rebuilds: list[Widget]) -> None:
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        screen = await home(app, pilot)
        await settle(app, pilot)
        footer = footer_line(app)
        assert "Refresh" in footer and "Flush" in footer, footer
        assert len(rebuilds) == 1, rebuilds  # Textual's Footer: once per bindings refresh, three here
        screen.refresh_bindings()  # the same keys: nothing to rebuild
        await settle(app, pilot)
        assert len(rebuilds) == 1, rebuilds


async def test_the_footer_is_rebuilt_when_its_keys_change(make_app: MakeApp, rebuilds: list[Widget]) -> None:
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        screen = await home(app, pilot)
        await settle(app, pilot)
        assert "palette" in footer_line(app), footer_line(app)
        screen.query_one(Footer).show_command_palette = False
        screen.refresh_bindings()
        await settle(app, pilot)
        assert len(rebuilds) == 2, rebuilds
        assert "palette" not in footer_line(app), footer_line(app)
        assert "Refresh" in footer_line(app)
