"""Forms made of blocks: one editor per block type (found through `registry`), and `TaskForm`.

The app must load `FORMS_CSS` (e.g. `CSS_PATH = [..., FORMS_CSS]`) for the editors' look.
"""

from pathlib import Path

from queuedesk.tui.forms.base import BlockEditor
from queuedesk.tui.forms.form import TaskForm
from queuedesk.tui.forms.registry import EDITORS, editor_for, filled_by_worker

FORMS_CSS = Path(__file__).parent.parent / "styles" / "forms.tcss"

__all__ = ["EDITORS", "FORMS_CSS", "BlockEditor", "TaskForm", "editor_for", "filled_by_worker"]
