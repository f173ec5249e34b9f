"""How one `queuedesk serve` process is configured (Part C of the contract)."""

from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from platformdirs import user_data_dir

DEFAULT_LEASE_SECONDS = 900
MAX_BODY_BYTES = 1024 * 1024


def default_db_url() -> str:
    return f"sqlite:///{Path(user_data_dir('queuedesk')) / 'queuedesk.db'}"


@dataclass(frozen=True)
class Settings:
    db_url: str
    host: str = "127.0.0.1"
    port: int = 8000
    public_url: str | None = None
    lease_seconds: int = DEFAULT_LEASE_SECONDS
    allow_private_webhooks: bool = False
    db_pool_size: int = 10

    @property
    def lease(self) -> timedelta:
        return timedelta(seconds=self.lease_seconds)
