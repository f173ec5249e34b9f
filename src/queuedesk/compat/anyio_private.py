"""anyio's private names QueueDesk relies on (anyio 4.15 and 4.16, through httpx; on another version the
app's head start imports the module if it is there and goes on quietly if not)."""

from queuedesk.compat import PrivateName

ASYNCIO_BACKEND = "anyio._backends._asyncio"

PRIVATE_NAMES = (
    PrivateName(
        ASYNCIO_BACKEND,
        3,
        "The module anyio loads for its asyncio backend when the first request is made; the app "
        "imports it while the terminal is being asked, before the first screen needs it.",
        "tui/main.py _FIRST_SCREEN_NEEDS",
        versions=("4.15", "4.16"),
    ),
)
