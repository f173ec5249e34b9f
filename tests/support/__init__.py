"""Test support: a real `queuedesk serve` process on a free loopback port, and HTTP helpers.

One module per job; every name is also importable from `tests.support` as before the split.

- `seeds`: the seeded organizations, users' keys and the core blocks
- `processes`: `queuedesk serve` on a free port, one-off CLI runs
- `postgres`: the PostgreSQL server the tests use and the databases made in it
- `sql`: SQL run behind the server's back
- `envelope`: the contract's error envelope
- `organizations`: an organization of the test's own on the session server
- `contract`: the contract's success shapes and the small HTTP steps the endpoint tests share
"""

from tests.support.envelope import assert_envelope
from tests.support.organizations import Organization, next_organization
from tests.support.postgres import POSTGRES_URL, drop_databases, postgres_database, postgres_unavailable
from tests.support.processes import ServerProcess, free_port, queuedesk_command, run_cli
from tests.support.seeds import CORE_BLOCKS, KEYS, ROLES_SEED, with_spare_organizations
from tests.support.sql import execute_sql, query_value

__all__ = [
    "CORE_BLOCKS",
    "KEYS",
    "POSTGRES_URL",
    "ROLES_SEED",
    "Organization",
    "ServerProcess",
    "assert_envelope",
    "drop_databases",
    "execute_sql",
    "free_port",
    "next_organization",
    "postgres_database",
    "postgres_unavailable",
    "query_value",
    "queuedesk_command",
    "run_cli",
    "with_spare_organizations",
]
