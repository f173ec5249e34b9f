"""Rich's private names QueueDesk uses (Rich 15)."""

from queuedesk.compat import PrivateName

PRIVATE_NAMES = (
    PrivateName(
        "rich.style.Style._link",
        2,
        "A style's hyperlink target: the terminal guard drops an OSC 8 link whose address holds a "
        "control character (Style has no public reader of the raw link).",
        "tui/terminal/terminal_guard.py guarded",
    ),
)
