"""What the app needs to know at start, independent of where it came from (flags, file, tests)."""

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
