"""The command line's manners: a reader that goes away (`| head`) ends a command quietly; a command
that needs an extra that is not installed says which; bash completes from the parser."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fill import fill_completed
from tests.support import KEYS, ServerProcess, queuedesk_command

ROOT = Path(__file__).resolve().parent.parent


def run_into_a_closed_pipe(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`queuedesk ARGS` with standard output a pipe nobody reads any more: the first write (or the
    last flush) fails as `| head` makes it fail once head has what it wants."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(
            [*queuedesk_command(), *args],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            env=env,
        )
    finally:
        os.close(write_end)


# Every kind of output the command line writes: argparse's, a generated script, a Rich table, JSON,
# JSON lines and CSV streamed from the server, a one-object answer.
PIPED = [
    ["--help"],
    ["completion", "bash"],
    ["queues"],
    ["queues", "--json"],
    ["export", "{queue}", "--format", "jsonl"],
    ["export", "{queue}", "--format", "csv"],
    ["queue", "show", "{queue}", "--json"],
    ["users", "list"],
]


@pytest.fixture(scope="module")
def filled_queue(server: ServerProcess, clients) -> str:
    from tests.conftest import make_queue

    org = clients["admin"].get("/me").json()["organization_id"]
    queue = make_queue(clients["admin"], org, label="Piped")
    fill_completed(server.db_url, queue["id"], 3000, "wes@acme.test", lambda n: {"paragraph": f"task {n}"})
    return str(queue["id"])


@pytest.mark.parametrize("args", PIPED, ids=" ".join)
def test_a_reader_gone_ends_the_command_quietly(
    args: list[str], server: ServerProcess, org_id: int, filled_queue: str
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("QUEUEDESK_")}
    env |= {
        "QUEUEDESK_URL": server.url,
        "QUEUEDESK_TOKEN": KEYS["admin"],
        "QUEUEDESK_ORG": str(org_id),
        "QUEUEDESK_CONFIG": "/nonexistent/queuedesk-test/config.toml",
    }
    done = run_into_a_closed_pipe([arg.format(queue=filled_queue) for arg in args], env)
    assert (done.returncode, done.stderr) == (0, "")


BLOCKED = """
import sys
for name in sys.argv[1].split(","):
    sys.modules[name] = None  # as if not installed: importing it raises ModuleNotFoundError
from queuedesk.cli import main
raise SystemExit(main(sys.argv[2:]))
"""


@pytest.mark.parametrize(
    ("missing", "args", "extras"),
    [
        ("textual", [], "app"),
        ("textual", ["--profile", "work"], "app"),
        ("textual_serve", ["web"], "app"),
        ("uvicorn", ["serve"], "server"),
        ("sqlalchemy", ["backup", "x.db"], "server"),
        ("uvicorn", ["demo"], "server"),
        ("uvicorn", ["demo", "--no-app"], "server"),
        ("textual,uvicorn", ["demo"], "app,server"),
    ],
)
def test_a_command_whose_extra_is_missing_says_what_to_install(
    missing: str, args: list[str], extras: str, tmp_path: Path
) -> None:
    env = {**os.environ, "QUEUEDESK_DATA_DIR": str(tmp_path), "QUEUEDESK_CONFIG": str(tmp_path / "c.toml")}
    done = subprocess.run(
        [sys.executable, "-c", BLOCKED, missing, *args], capture_output=True, text=True, timeout=60, env=env
    )
    assert done.returncode == 2, done.stderr
    assert f"pip install 'queuedesk[{extras}]'" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("args", "extras"),
    [
        ([], ("app",)),
        (["web"], ("app",)),
        (["demo"], ("app", "server")),
        (["demo", "--no-app"], ("server",)),
        (["serve"], ("server",)),
        (["prune", "--dry-run"], ("server",)),
        (["queues"], ()),
        (["export", "1"], ()),
        (["completion", "bash"], ()),
    ],
)
def test_each_command_needs_its_extras(args: list[str], extras: tuple[str, ...]) -> None:
    from queuedesk.cli import build_parser
    from queuedesk.commands.extras import needed

    assert needed(build_parser().parse_args(args))[1] == extras


def test_a_module_found_missing_while_running_names_its_extra() -> None:
    from queuedesk.commands import extras

    assert extras.extra_for(ModuleNotFoundError(name="textual_image.widget")) == "app"
    assert extras.extra_for(ModuleNotFoundError(name="asyncpg")) == "postgres"
    assert extras.extra_for(ModuleNotFoundError(name="starlette.requests")) == "server"
    assert extras.extra_for(ModuleNotFoundError(name="queuedesk.nothing")) is None


def test_every_module_of_an_extra_is_named() -> None:
    """What an extra's probe looks for, a module found missing while running is named by."""
    from queuedesk.commands import extras

    for extra, modules in extras.PROBES.items():
        assert {extras.PROVIDED_BY[module] for module in modules} == {extra}


COMPLETE = """
source "$SCRIPT"
complete -p queuedesk >/dev/null || exit 3
function=$(complete -p queuedesk | sed -E 's/.* -F ([^ ]+) .*/\\1/')
COMP_LINE=$1
read -ra COMP_WORDS <<<"$1"
[[ $1 == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMP_POINT=${#COMP_LINE}
"$function" queuedesk "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
printf '%s\\n' "${COMPREPLY[@]}"
"""


@pytest.fixture(scope="module")
def bash_script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`queuedesk completion bash`, as the README installs it."""
    made = subprocess.run(
        [*queuedesk_command(), "completion", "bash"], capture_output=True, text=True, timeout=60
    )
    assert made.returncode == 0, made.stderr
    path = tmp_path_factory.mktemp("completion") / "queuedesk"
    path.write_text(made.stdout)
    return path


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
@pytest.mark.parametrize(
    ("typed", "offered"),
    [
        ("queuedesk exp", ["export"]),
        ("queuedesk export --fo", ["--format"]),
        ("queuedesk admin-keys ", ["create", "list", "revoke"]),
        ("queuedesk demo --role ", ["admin", "supervisor", "worker"]),
        ("queuedesk completion ", ["bash", "zsh"]),
        ("queuedesk --pro", ["--profile"]),
    ],
)
def test_bash_completes_a_partial_command_line(bash_script: Path, typed: str, offered: list[str]) -> None:
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", COMPLETE, "complete", typed],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "SCRIPT": str(bash_script)},
    )
    assert done.returncode == 0, done.stderr
    assert sorted(done.stdout.split()) == offered


def test_the_zsh_script_is_a_completion_function() -> None:
    done = subprocess.run(
        [*queuedesk_command(), "completion", "zsh"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("#compdef queuedesk")
    assert "export" in done.stdout and "--format" in done.stdout


def test_every_rich_console_of_the_command_line_is_made_by_terminal_streams() -> None:
    """Rich's own consoles exit with 1 when their reader has gone; the command line's raise, and
    `queuedesk` ends quietly (the test above)."""
    source = ROOT / "src" / "queuedesk"
    found = [
        str(path.relative_to(source))
        for path in source.rglob("*.py")
        if "tui" not in path.relative_to(source).parts and "Console(" in path.read_text()
    ]
    assert found == ["commands/terminal_streams.py"]
