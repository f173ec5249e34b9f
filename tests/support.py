"""Test support: a real `queuedesk serve` process on a free loopback port, and HTTP helpers."""

import asyncio
import functools
import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROLES_SEED: dict[str, Any] = {
    "organizations": [
        {
            "name": "Acme",
            "users": [
                {
                    "email": "ada@acme.test",
                    "name": "Ada",
                    "role": "admin",
                    "api_key": "acme-ada-0123456789abcdef",
                },
                {
                    "email": "sue@acme.test",
                    "name": "Sue",
                    "role": "supervisor",
                    "api_key": "acme-sue-0123456789abcdef",
                },
                {
                    "email": "wes@acme.test",
                    "name": "Wes",
                    "role": "worker",
                    "api_key": "acme-wes-0123456789abcdef",
                },
                {
                    "email": "wyn@acme.test",
                    "name": "Wyn",
                    "role": "worker",
                    "api_key": "acme-wyn-0123456789abcdef",
                },
            ],
            "queues": [
                {
                    "name": "Categorization",
                    "description": "Sort incoming reports",
                    "blocks": [
                        {
                            "id": "paragraph",
                            "name": "Paragraph",
                            "type": "text",
                            "text": {"placeholder": "What?"},
                        },
                        {
                            "id": "category",
                            "name": "Category",
                            "type": "single_selection",
                            "single_selection": {
                                "is_required": True,
                                "options": [{"id": "red", "name": "Red"}, {"id": "blue", "name": "Blue"}],
                            },
                        },
                    ],
                    "tasks": [{"data": {"paragraph": "The printer is on fire"}}],
                }
            ],
        },
        {
            "name": "Globex",
            "users": [
                {
                    "email": "gus@globex.test",
                    "name": "Gus",
                    "role": "admin",
                    "api_key": "globex-gus-0123456789abcdef",
                },
            ],
            "queues": [
                {
                    "name": "Secret",
                    "blocks": [{"id": "note", "name": "Note", "type": "text"}],
                    "tasks": [{"data": {"note": "globex only"}}],
                }
            ],
        },
    ]
}

KEYS = {
    "admin": "acme-ada-0123456789abcdef",
    "supervisor": "acme-sue-0123456789abcdef",
    "worker": "acme-wes-0123456789abcdef",
    "worker2": "acme-wyn-0123456789abcdef",
    "other_admin": "globex-gus-0123456789abcdef",
}

# The standard test queue: one of each core block type.
CORE_BLOCKS: list[dict[str, Any]] = [
    {"id": "paragraph", "name": "Paragraph", "type": "text", "text": {"placeholder": "What is going on?"}},
    {
        "id": "category",
        "name": "Category",
        "type": "single_selection",
        "single_selection": {
            "is_required": True,
            "options": [
                {"id": "red", "name": "Red"},
                {"id": "blue", "name": "Blue"},
                {"id": "green", "name": "Green"},
            ],
        },
    },
    {"id": "photo", "name": "Photo", "type": "image", "image": {"placeholder": "https://example.com/p.png"}},
]


# The PostgreSQL server the tests about PostgreSQL use; each test database is created in it.
POSTGRES_URL = os.environ.get("QUEUEDESK_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
_created_databases: set[str] = set()


async def _postgres_admin(sql: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(POSTGRES_URL, timeout=5)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


@functools.cache
def postgres_unavailable() -> str | None:
    """Why the tests cannot use PostgreSQL here, or None when they can."""
    try:
        import asyncpg  # noqa: F401
    except ImportError:
        return "asyncpg is not installed (pip install -e '.[dev]')"
    try:
        asyncio.run(_postgres_admin("SELECT 1"))
    except Exception as exc:
        return f"no PostgreSQL at {POSTGRES_URL} ({type(exc).__name__}: {exc})"
    return None


def postgres_database(key: str) -> str:
    """The URL of a database of its own for `key` (created on first use, dropped by drop_databases)."""
    name = f"qd_test_{os.getpid()}_{hashlib.sha1(key.encode()).hexdigest()[:12]}"
    if name not in _created_databases:
        asyncio.run(_postgres_admin(f'CREATE DATABASE "{name}"'))
        _created_databases.add(name)
    return POSTGRES_URL.rsplit("/", 1)[0] + "/" + name


def execute_sql(db_url: str, sql: str) -> None:
    """Change the database behind the server's back, as another program with a connection would."""
    _sql(db_url, sql, fetch=False)


def query_value(db_url: str, sql: str) -> Any:
    """The first column of the first row, read over a connection of its own."""
    return _sql(db_url, sql, fetch=True)


def _sql(db_url: str, sql: str, *, fetch: bool) -> Any:
    if db_url.startswith("sqlite:///"):
        import sqlite3

        with sqlite3.connect(db_url.removeprefix("sqlite:///")) as conn:
            row = conn.execute(sql).fetchone()
        return row[0] if fetch and row else None

    async def run() -> Any:
        import asyncpg

        conn = await asyncpg.connect(db_url, timeout=5)
        try:
            return await conn.fetchval(sql) if fetch else await conn.execute(sql)
        finally:
            await conn.close()

    found = asyncio.run(run())
    return found if fetch else None


def drop_databases() -> None:
    for name in sorted(_created_databases):
        asyncio.run(_postgres_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    _created_databases.clear()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def queuedesk_command() -> list[str]:
    return [sys.executable, "-m", "queuedesk"]


def run_cli(args: Sequence[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*queuedesk_command(), *args], capture_output=True, text=True, timeout=timeout)


@dataclass
class ServerProcess:
    """`queuedesk serve` in a child process, stopped on `stop()`."""

    db_path: Path
    extra_args: list[str] = field(default_factory=list)
    seed: dict[str, Any] | None = None
    backend: str = "sqlite"
    database_url: str | None = None  # instead of the backend's own database (e.g. through a proxy)
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[str] | None = None
    log_path: Path | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def db_url(self) -> str:
        """SQLite: the file at db_path. PostgreSQL: a database of its own, the same for the same db_path."""
        if self.database_url is not None:
            return self.database_url
        if self.backend == "postgresql":
            return postgres_database(str(self.db_path))
        return f"sqlite:///{self.db_path}"

    def start(self, timeout: float = 20) -> "ServerProcess":
        args = ["serve", "--db", self.db_url, "--port", str(self.port), *self.extra_args]
        if self.seed is not None:
            seed_path = self.db_path.with_suffix(".seed.json")
            seed_path.write_text(json.dumps(self.seed))
            args += ["--seed", str(seed_path)]
        self.log_path = self.db_path.with_suffix(f".{self.port}.log")
        log = self.log_path.open("w")
        self.process = subprocess.Popen(
            [*queuedesk_command(), *args],
            stdout=log,
            stderr=subprocess.STDOUT,
            text=True,
            env=os.environ.copy(),
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"queuedesk serve exited {self.process.returncode}:\n{self.log()}")
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"queuedesk serve did not answer within {timeout}s:\n{self.log()}")

    def log(self) -> str:
        return self.log_path.read_text() if self.log_path and self.log_path.exists() else ""

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def client(self, role: str = "admin", **kwargs: Any) -> httpx.Client:
        headers = {"Authorization": f"Token {KEYS[role]}"} if role else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30, **kwargs)


def assert_envelope(
    response: httpx.Response, status: int, code: str | None = None, field: str | None = None
) -> dict:
    """The response is the contract's error envelope with this status (and code, and field)."""
    assert response.status_code == status, (response.status_code, response.text)
    assert response.headers["content-type"].startswith("application/json"), response.headers
    body = response.json()
    assert set(body) == {"status_code", "errors"}, body
    assert body["status_code"] == status
    assert body["errors"], body
    for item in body["errors"]:
        assert isinstance(item["message"], str) and item["message"]
        assert set(item) <= {"code", "field", "message"}
    if code is not None:
        assert code in [e.get("code") for e in body["errors"]], body
    if field is not None:
        assert field in [e.get("field") for e in body["errors"]], body
    return body
