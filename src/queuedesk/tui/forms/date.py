"""`date` blocks: an ISO 8601 date or date-time, kept as the text typed."""

from typing import ClassVar

from queuedesk.tui.forms.fields import InputEditor


class DateEditor(InputEditor):
    DEFAULT_PLACEHOLDER: ClassVar[str] = "YYYY-MM-DD or YYYY-MM-DDTHH:MM"
    HINT: ClassVar[str] = "ISO date · esc leaves field"
