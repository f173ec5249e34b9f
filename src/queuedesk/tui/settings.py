"""Where the app connects, independent of where it came from (flags, file, tests); its settings are
`queuedesk.api.config.AppSettings`, the model the configuration file is read with."""

import os
from collections.abc import Callable
from dataclasses import dataclass

from pydantic import SecretStr


@dataclass(frozen=True)
class Target:
    """Where to connect: a URL, a key and maybe an organization, with where they came from."""

    url: str
    token: SecretStr | None  # a key given as text (tests, the demo) is wrapped
    org: int | None
    source: str = "flags"

    def __post_init__(self) -> None:
        if isinstance(self.token, str):
            object.__setattr__(self, "token", SecretStr(self.token))


SaveProfile = Callable[[str, str, str, int | None], None]  # name, url, token, org


WEB_SESSION_VARIABLE = "QUEUEDESK_WEB_SESSION"
WEB_SERVER_URL_VARIABLE = "QUEUEDESK_WEB_SERVER_URL"  # the address the Connect screen offers


def web_session() -> bool:
    """A browser session (`queuedesk web` sets the variable): nothing is written to the host's disk,
    neither profiles nor the journal of unsent work, and no connection of the host is used."""
    return os.environ.get(WEB_SESSION_VARIABLE) == "1"
