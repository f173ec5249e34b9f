"""What the app needs to know at start, independent of where it came from (flags, file, tests)."""

import os
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Target:
    """Where to connect: a URL, a key and maybe an organization, with where they came from."""

    url: str
    token: str | None
    org: int | None
    source: str = "flags"


SaveProfile = Callable[[str, str, str, int | None], None]  # name, url, token, org


@dataclass(frozen=True)
class AppSettings:
    refresh_seconds: float = 5.0
    theme: str | None = None
    submit_on_choice: bool = False
    keys: dict[str, str] = field(default_factory=dict)  # binding id -> key(s)
    profile_name: str = "default"
    config_file: str = ""  # where the settings were read, for messages about them


WEB_SESSION_VARIABLE = "QUEUEDESK_WEB_SESSION"
WEB_SERVER_URL_VARIABLE = "QUEUEDESK_WEB_SERVER_URL"  # the address the Connect screen offers


def web_session() -> bool:
    """A browser session (`queuedesk web` sets the variable): nothing is written to the host's disk,
    neither profiles nor the journal of unsent work, and no connection of the host is used."""
    return os.environ.get(WEB_SESSION_VARIABLE) == "1"
