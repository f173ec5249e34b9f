"""The Blocks tab: each block of the queue with its name, id, type and settings."""

from queuedesk.api.models import Block
from queuedesk.tui.present import settings_text
from queuedesk.tui.widgets.row_table import RowTable

COLUMNS = (("name", "Block"), ("id", "Id"), ("type", "Type"), ("settings", "Settings"))


class BlocksView(RowTable):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        for key, label in COLUMNS:
            self.add_column(label, key=key)

    def show(self, blocks: list[Block]) -> None:
        """The blocks as rows, made again only when they changed (the cursor stays otherwise)."""
        rows = [(b.name, b.id, b.type, settings_text(b)) for b in blocks]
        if [tuple(map(str, self.get_row_at(i))) for i in range(self.row_count)] == rows:
            return
        self.clear()
        for row in rows:
            self.add_row(*row)
