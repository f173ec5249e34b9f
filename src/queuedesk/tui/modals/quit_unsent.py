"""`ctrl+q` with work not on the server yet: send it and wait, keep it for the next start, or
discard it, each with the counts. Dismissed with "send", "keep", "discard", or None to stay."""

from typing import ClassVar, Literal

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Label, Static

from queuedesk.tui.base import AppModal, styles
from queuedesk.tui.widgets.app_footer import AppFooter

Choice = Literal["send", "keep", "discard"]


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def explanation(held: int, unsent: int, *, persist: bool) -> str:
    parts = []
    if unsent:
        parts.append(f"{plural(unsent, 'submission')} the server did not take (it did not answer)")
    if held:
        parts.append(f"{plural(held, 'submission')} not sent yet")
    kept = (
        "Keep: sent at the next start of QueueDesk with this server and user (the tasks stay claimed until their leases run out)."
        if persist
        else "Keep is not offered: in a browser session nothing is kept on disk."
    )
    return (
        f"{' and '.join(parts).capitalize()}.\n\n"
        "Send and wait: try now and quit once the server has them.\n"
        f"{kept}\n"
        "Discard: the values entered are dropped and the tasks go back to the queue."
    )


class QuitUnsentScreen(AppModal[Choice | None]):
    STYLE_FILES: ClassVar = styles("dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "choose('send')", "Send and wait", id="quit_unsent.send"),
        Binding("k", "choose('keep')", "Keep for next start", id="quit_unsent.keep"),
        Binding("d", "choose('discard')", "Discard", id="quit_unsent.discard"),
        Binding("escape", "stay", "Stay", id="quit_unsent.stay"),
    ]

    def __init__(self, held: int, unsent: int, *, persist: bool = True) -> None:
        super().__init__()
        self.held = held
        self.unsent = unsent
        self.persist = persist

    def compose(self) -> ComposeResult:
        total = self.held + self.unsent
        with Vertical(id="confirm-box"):
            yield Label(f"Quit with {plural(total, 'submission')} unsent?", id="confirm-title")
            yield Static(
                explanation(self.held, self.unsent, persist=self.persist), id="confirm-explain", markup=False
            )
            with Horizontal(id="confirm-actions"):
                yield Button(f"Send {total} and wait", variant="primary", id="quit-send")
                if self.persist:
                    yield Button(f"Keep {total} for next start", id="quit-keep")
                yield Button(f"Discard {total}", variant="error", id="quit-discard")
        yield AppFooter()  # s, k, d and escape

    def on_mount(self) -> None:
        self.query_one("#quit-send", Button).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "choose" and parameters and parameters[0] == "keep":
            return self.persist
        return True

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        choice = (event.button.id or "").removeprefix("quit-")
        self.action_choose(choice)

    def action_choose(self, choice: str) -> None:
        if choice in ("send", "keep", "discard"):
            self.dismiss(choice)  # type: ignore[arg-type]

    def action_stay(self) -> None:
        self.dismiss(None)
