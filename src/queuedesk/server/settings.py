"""How one `queuedesk serve` process is configured (Part C of the contract)."""

from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from platformdirs import user_data_dir

from queuedesk.service_defaults import DEFAULT_DB_POOL_SIZE, DEFAULT_HOST, DEFAULT_LEASE_SECONDS, DEFAULT_PORT

MAX_BODY_BYTES = 1024 * 1024


def default_db_url() -> str:
    return f"sqlite:///{Path(user_data_dir('queuedesk')) / 'queuedesk.db'}"


@dataclass(frozen=True)
class Settings:
    db_url: str
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    public_url: str | None = None
    lease_seconds: int = DEFAULT_LEASE_SECONDS
    allow_private_webhooks: bool = False
    db_pool_size: int = DEFAULT_DB_POOL_SIZE
    # Finished webhook deliveries older than this are pruned daily (None: kept for ever).
    retain_deliveries: timedelta | None = None

    @property
    def lease(self) -> timedelta:
        return timedelta(seconds=self.lease_seconds)
