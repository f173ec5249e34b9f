"""The worker's form as the queue being edited will show it, beside the editor: redrawn once per
refresh however many changes came, and only when the blocks it shows changed (not for the name)."""

from typing import Any

from textual.app import ComposeResult
from textual.containers import Container, Vertical
from textual.widgets import Label, Static

from queuedesk.api.models import Block
from queuedesk.tui.forms.form import TaskForm


class QueuePreview(Vertical):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._due: tuple[list[dict[str, Any]], int] | None = None
        self._shown: tuple[list[dict[str, Any]], int] | None = None

    def compose(self) -> ComposeResult:
        yield Label("What a worker sees", classes="qe-heading")
        slot = Container(id="preview-slot")
        slot.can_focus_children = False
        yield slot

    def show(self, blocks: list[dict[str, Any]], total: int) -> None:
        """The blocks without a problem (raw, as sent), of `total` blocks in the queue."""
        if self._due is None:
            self.call_after_refresh(self._redraw)
        self._due = (blocks, total)

    async def _redraw(self) -> None:
        shown, self._due = self._due, None
        if shown is None or shown == self._shown:
            return  # the name or description changed: the worker's form did not
        self._shown = shown
        raw, total = shown
        blocks = [Block.model_validate(b) for b in raw]
        slot = self.query_one("#preview-slot")
        await slot.remove_children()
        if len(blocks) < total:
            await slot.mount(Static("Blocks marked ✗ are left out until they are fixed.", classes="qe-note"))
        if blocks:
            await slot.mount(TaskForm(blocks, {}, mode="work", id="preview-form"))
        else:
            await slot.mount(Static("No blocks yet: ctrl+n adds one.", classes="form-empty"))
