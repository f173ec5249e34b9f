"""Textual's footer, rebuilt only when the keys it shows change.

Textual's `Footer` removes and mounts every key on each bindings refresh of its screen (focus
moves, a screen is pushed, an action's state is checked): three at the app's start, each
restyling a dozen widgets, all for the same keys. This one gathers refreshes that come together
into one, and rebuilds only when what it would show differs from what it shows.
"""

from typing import Any

from textual.screen import Screen
from textual.widgets import Footer as TextualFooter


class Footer(TextualFooter):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._rebuild_pending = False
        self._shown: tuple[object, ...] | None = None

    def bindings_changed(self, screen: Screen[Any]) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus or self._rebuild_pending:
            return
        if self.is_attached and screen is self.screen:
            self._rebuild_pending = True
            self.call_after_refresh(self._rebuild_if_changed)

    def _keys_shown(self) -> tuple[object, ...]:
        """Everything `compose` reads that can change while the footer is up."""
        active = self.screen.active_bindings
        keys = tuple(
            (binding, enabled, tooltip, self.app.get_key_display(binding))
            for _node, binding, enabled, tooltip in active.values()
            if binding.show
        )
        palette = active.get(self.app.COMMAND_PALETTE_BINDING)
        return keys, palette[1:] if palette else None, self.show_command_palette

    async def _rebuild_if_changed(self) -> None:
        self._rebuild_pending = False
        if not self.is_attached:
            return
        shown = self._keys_shown()
        if shown != self._shown:
            self._shown = shown
            await self.recompose()
