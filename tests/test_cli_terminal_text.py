"""Every line the CLI prints to a terminal goes through the display rule (api/terminal_text.py):
hostile task text, and names written before the server refused control characters (rows written
here behind the server's back), show as symbols and are never obeyed; to a file an export stays
byte-exact; names are printed as text, never as Rich markup."""

import csv
import io
import json
import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support import (
    CORE_BLOCKS,
    KEYS,
    ROLES_SEED,
    ServerProcess,
    execute_sql,
    queuedesk_command,
    run_cli,
)
from tests.support.contract import body_of, complete_next, create
from tests.support.hostile import ALL_HOSTILE, SHOWN, obeyed_in, sqlite_text
from tests.support.terminal import run_on_terminal

MARKUP_NAMES = ("Fix [/b] later", "Orders [urgent]", "[red]x[/red]")


class Hostile:
    def __init__(self, server: ServerProcess, admin: httpx.Client) -> None:
        self.server = server
        self.org = admin.get("/me").json()["organization_id"]
        queues = f"/orgs/{self.org}/queues"
        self.tasks = body_of(admin.post(queues, json={"name": "Hostile tasks", "data": CORE_BLOCKS}))
        qpath = f"{queues}/{self.tasks['id']}"
        create(admin, qpath, paragraph=ALL_HOSTILE)
        self.completed = complete_next(admin, qpath, category="red")
        self.legacy = body_of(admin.post(queues, json={"name": "Legacy", "data": CORE_BLOCKS}))
        name, target = f"Legacy {ALL_HOSTILE}", f"http://example.com/hook{ALL_HOSTILE}"
        execute_sql(
            server.db_url,
            f"UPDATE queues SET name = {sqlite_text(name)}, webhook_target = {sqlite_text(target)} "
            f"WHERE id = {self.legacy['id']}",
        )
        user = body_of(
            admin.post(
                f"/orgs/{self.org}/users", json={"email": "old@acme.test", "name": "Old", "role": "worker"}
            )
        )
        execute_sql(
            server.db_url,
            f"UPDATE users SET name = {sqlite_text('Old ' + ALL_HOSTILE)}, "
            f"email = {sqlite_text('old' + ALL_HOSTILE + '@acme.test')} WHERE id = {user['id']}",
        )
        for name in MARKUP_NAMES:
            body_of(admin.post(queues, json={"name": name, "data": CORE_BLOCKS}))

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("QUEUEDESK_")}
        return {
            **env,
            "QUEUEDESK_URL": self.server.url,
            "QUEUEDESK_TOKEN": KEYS["admin"],
            "QUEUEDESK_CONFIG": "/nonexistent/config.toml",
            "COLUMNS": "800",  # as wide as the terminal: whatever another test left in the environment
        }

    def on_terminal(self, *args: str) -> str:
        code, raw = run_on_terminal([*queuedesk_command(), *args], self.env())
        assert code == 0, raw.decode(errors="replace")
        assert obeyed_in(raw) == [], raw
        return raw.decode()


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hostile]:
    server = ServerProcess(tmp_path_factory.mktemp("hostile") / "q.db", seed=ROLES_SEED).start()
    try:
        with server.client("admin") as admin:
            yield Hostile(server, admin)
    finally:
        server.stop()


def shown_everything(printed: str) -> None:
    for symbols in SHOWN:
        assert symbols in printed, (symbols, printed)


def test_queues_on_a_terminal_shows_names_as_symbols(hostile):
    printed = hostile.on_terminal("queues")
    shown_everything(printed)


def test_users_list_on_a_terminal_shows_names_and_emails_as_symbols(hostile):
    printed = hostile.on_terminal("users", "list")
    shown_everything(printed)
    assert "Old <wipe:␛[2J␛[H>" in printed


def test_webhook_get_on_a_terminal_shows_the_target_as_symbols(hostile):
    printed = hostile.on_terminal("webhook", "get", str(hostile.legacy["id"]))
    shown_everything(printed)
    assert "http://example.com/hook<wipe:␛[2J␛[H>" in printed


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_export_to_a_terminal_shows_task_text_as_symbols(hostile, fmt):
    printed = hostile.on_terminal("export", str(hostile.tasks["id"]), "--format", fmt)
    assert "<clipboard:" in printed
    assert "␡⟪U+202E⟫abc" in printed and "\\x9b2J" in printed


def test_json_to_a_terminal_shows_names_as_symbols(hostile):
    printed = hostile.on_terminal("queues", "--json")
    assert "⟪U+202E⟫abc" in printed and "\\x9b2J" in printed and "␡" in printed


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_export_to_a_file_stays_byte_exact(hostile, fmt, tmp_path: Path):
    out = tmp_path / f"export.{fmt}"
    done = run_on_terminal(
        [*queuedesk_command(), "export", str(hostile.tasks["id"]), "--format", fmt, "--output", str(out)],
        hostile.env(),
    )
    assert done[0] == 0, done
    written = out.read_text(encoding="utf-8")
    if fmt == "csv":
        row = next(iter(csv.DictReader(io.StringIO(written, newline=""))))
        assert row["paragraph"] == ALL_HOSTILE
    else:
        assert json.loads(written)["data"]["paragraph"] == ALL_HOSTILE
        assert "\x7f" in written and "\x9b" in written and "\u202e" in written


def test_queues_prints_names_as_text_never_markup(hostile):
    env = hostile.env()
    piped = run_cli(["--url", env["QUEUEDESK_URL"], "--token", env["QUEUEDESK_TOKEN"], "queues"])
    assert piped.returncode == 0, piped.stderr
    assert "Traceback" not in piped.stderr
    for name in MARKUP_NAMES:
        assert name in piped.stdout, piped.stdout
    printed = hostile.on_terminal("queues")
    for name in MARKUP_NAMES:
        assert name in printed, printed


def test_an_error_naming_a_hostile_file_is_shown_as_symbols(hostile, tmp_path: Path):
    path = tmp_path / "tasks\x1b]0;pwned-title\x07.csv"
    path.write_text("nope\nx\n")
    code, raw = run_on_terminal(
        [*queuedesk_command(), "import", str(hostile.tasks["id"]), str(path)], hostile.env()
    )
    assert code == 2, raw
    assert obeyed_in(raw) == [], raw
    assert "tasks␛]0;pwned-title␇.csv: column 'nope'" in raw.decode()
