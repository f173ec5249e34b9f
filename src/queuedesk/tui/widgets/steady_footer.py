"""Textual's footer, rebuilt only when the keys it shows change.

Textual rebuilds the footer (a widget per key) after every change of the focus. The work screen
moves the focus twice a task, away at the decision and to the next task's first field once it is
painted, and the keys shown are the same before and after: two rebuilds a task for nothing, most
of the time from the submit to the next task painted (bench/tui_work.py, issue 25).
"""

from textual.screen import Screen

from queuedesk.tui.widgets.app_footer import AppFooter

KeysShown = tuple[tuple[str, str, str, str | None, bool, str], ...]


def keys_shown(screen: Screen[object]) -> KeysShown:
    """What the footer shows of `screen`'s active bindings: key, action, description, how the key is
    written, whether it is enabled, its tooltip."""
    return tuple(
        (key, binding.action, binding.description, binding.key_display, enabled, tooltip)
        for key, (_node, binding, enabled, tooltip) in screen.active_bindings.items()
        if binding.show or key == screen.app.COMMAND_PALETTE_BINDING
    )


class SteadyFooter(AppFooter):
    """A footer that looks, after a refresh, whether the keys it shows changed, and is rebuilt only
    then (several changes of the focus within one refresh are one look)."""

    def __init__(self) -> None:
        super().__init__()
        self._shown: KeysShown | None = None
        self._look_asked = False

    def bindings_changed(self, screen: Screen[object]) -> None:
        if not self._look_asked:
            self._look_asked = True
            self.call_after_refresh(self._look, screen)

    def _look(self, screen: Screen[object]) -> None:
        self._look_asked = False
        if not (self.is_attached and screen is self.screen):
            return
        shown = keys_shown(screen)
        if shown == self._shown:
            return
        # Kept only once the app has the terminal's focus: before, Textual's footer waits for it.
        self._shown = shown if screen.app.app_focus else None
        super().bindings_changed(screen)
