"""`email` blocks: an email address."""

from typing import ClassVar

from queuedesk.tui.forms.fields import InputEditor


class EmailEditor(InputEditor):
    DEFAULT_PLACEHOLDER: ClassVar[str] = "name@example.com"
    HINT: ClassVar[str] = "email · esc leaves field"
