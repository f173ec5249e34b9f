"""How one `queuedesk serve` process is configured (Part C of the contract)."""

from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from platformdirs import user_data_dir

from queuedesk.service_defaults import (
    DEFAULT_AUTH_FAILURE_LIMIT,
    DEFAULT_BODY_TIMEOUT,
    DEFAULT_DB_POOL_SIZE,
    DEFAULT_FORWARDED_ALLOW_IPS,
    DEFAULT_HEADER_TIMEOUT,
    DEFAULT_HOST,
    DEFAULT_KEEP_ALIVE_TIMEOUT,
    DEFAULT_LEASE_SECONDS,
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_PORT,
    DEFAULT_RATE_LIMIT,
)

MAX_BODY_BYTES = 1024 * 1024
# The drain on SIGTERM (Part C: exit 0 within 30 s whatever is left): the requests in flight get
# this long, then the dispatcher's attempts in flight this long; past EXIT_WITHIN the process ends.
DRAIN_REQUESTS_SECONDS = 10.0
DRAIN_DISPATCHER_SECONDS = 12.0
EXIT_WITHIN_SECONDS = 28.0


def default_data_directory() -> Path:
    return Path(user_data_dir("queuedesk"))


def default_db_url() -> str:
    return f"sqlite:///{default_data_directory() / 'queuedesk.db'}"


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
    header_timeout: float = DEFAULT_HEADER_TIMEOUT
    body_timeout: float = DEFAULT_BODY_TIMEOUT
    keep_alive_timeout: float = DEFAULT_KEEP_ALIVE_TIMEOUT
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    rate_limit: int | None = DEFAULT_RATE_LIMIT  # requests per second per key; None: no limit
    auth_failure_limit: int = DEFAULT_AUTH_FAILURE_LIMIT  # failed authentications per second per address
    forwarded_allow_ips: str = DEFAULT_FORWARDED_ALLOW_IPS
    # GET /metrics answers to `Authorization: Bearer <metrics_token>`; None: /metrics is a 404.
    metrics_token: str | None = None
    access_log: bool = False  # a line per request (logger queuedesk.access, at info); serve's is on
    log_format: str = "text"  # text | json, for the access lines (server/ops/logs.py for the rest)

    @property
    def lease(self) -> timedelta:
        return timedelta(seconds=self.lease_seconds)
