"""`pip install queuedesk` (no extra) is the client and the command line, and runs every client command.

A fresh virtual environment (no system site packages) gets the package and its plain dependencies
only: neither the app's libraries (Textual, textual-serve with aiohttp, Pillow) nor the server's.
Its `queuedesk` then works against the suite's real server and never loads the server's modules;
the app and the service's commands say what to install; and it takes a pydantic of another 2.x
minor than the one pip chose. Installing takes a while (pip's cache and the machine's configured
indexes are used as they are, nothing is compiled ahead); without a package index it is skipped.
`pip install '.[app,server]'` running the demo is the README's first command (.ci/run).
"""

import argparse
import asyncio
import gc
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from queuedesk.commands import common
from tests.support import KEYS, ServerProcess

ROOT = Path(__file__).resolve().parent.parent
SERVER_ONLY = ("sqlalchemy", "starlette", "uvicorn", "asyncpg", "orjson", "prometheus_client")
APP_ONLY = ("textual", "textual_image", "textual_serve", "aiohttp", "PIL")
OFFLINE = (
    "No matching distribution found",
    "Could not find a version that satisfies",
    "NewConnectionError",
    "Temporary failure in name resolution",
    "Network is unreachable",
    "Max retries exceeded",
)
# Run in the fresh environment: a real client command in-process, then what it loaded of the server.
IN_PROCESS = """
import json, sys
from queuedesk.cli import main
code = main(sys.argv[1:])
loaded = sorted(m for m in sys.modules if m.startswith(("queuedesk.server", "sqlalchemy", "starlette")))
print(json.dumps({"code": code, "loaded": loaded}), file=sys.stderr)
"""

Run = Callable[..., subprocess.CompletedProcess[str]]


def _copy_sources(to: Path) -> Path:
    """The package's sources alone, so that building it leaves nothing in the checkout."""
    to.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, to / name)
    shutil.copytree(
        ROOT / "src", to / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc")
    )
    return to


# The first test builds a fresh environment with pip (over 300 s on a loaded machine).
pytestmark = pytest.mark.timeout(1200)


@pytest.fixture(scope="module")
def client_only(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The `bin` directory of a fresh environment with `pip install queuedesk` (no extras) done."""
    root = tmp_path_factory.mktemp("client-only")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    sources = _copy_sources(root / "queuedesk")
    done = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-compile",
            sources,
        ],
        capture_output=True,
        text=True,
        timeout=900,
        env=_env(),
    )
    if done.returncode != 0:
        output = done.stdout + done.stderr
        if any(marker in output for marker in OFFLINE):
            pytest.skip(
                f"cannot install queuedesk into a fresh environment (no package index?): {output[-500:]}"
            )
        pytest.fail(f"pip install queuedesk failed:\n{output[-3000:]}")
    return venv / "bin"


def _env(**extra: str) -> dict[str, str]:
    """This process's environment without what would lead the fresh one to the checkout's code."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME") and not k.startswith("QUEUEDESK_")
    }
    return {**env, "QUEUEDESK_CONFIG": "/nonexistent/queuedesk-test/config.toml", **extra}


@pytest.fixture
def run(client_only: Path, server: ServerProcess, org_id: int) -> Run:
    """Run a program of the fresh environment as the admin of the suite's server."""
    env = _env(QUEUEDESK_URL=server.url, QUEUEDESK_TOKEN=KEYS["admin"], QUEUEDESK_ORG=str(org_id))

    def run(program: str, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(client_only / program), *args], capture_output=True, text=True, timeout=120, env=env, cwd="/"
        )

    return run


def test_the_fresh_environment_has_neither_the_app_nor_the_server(run: Run) -> None:
    found = run(
        "python",
        "-c",
        f"import importlib.util as u; print([m for m in {(*SERVER_ONLY, *APP_ONLY)!r} if u.find_spec(m)])",
    )
    assert found.returncode == 0, found.stderr
    assert found.stdout.strip() == "[]"
    where = run("python", "-c", "import queuedesk; print(queuedesk.__file__)")
    assert "site-packages" in where.stdout, where.stdout  # the installed package, not the checkout


def test_the_client_imports(run: Run) -> None:
    done = run("python", "-c", "import queuedesk.api, queuedesk.api.client, queuedesk.api.models")
    assert done.returncode == 0, done.stderr


def test_help_without_the_server(run: Run) -> None:
    for args in ([], ["queues"], ["tasks", "create"], ["import"], ["export"], ["serve"], ["web"]):
        done = run("queuedesk", *args, "--help")
        assert done.returncode == 0, (args, done.stderr)
        assert "usage: queuedesk" in done.stdout


def test_shell_completion_without_the_app(run: Run) -> None:
    done = run("queuedesk", "completion", "bash")
    assert done.returncode == 0, done.stderr
    assert "export" in done.stdout and "complete" in done.stdout


def test_building_the_parser_loads_nothing_of_the_server(run: Run) -> None:
    program = (
        "import sys; from queuedesk.cli import build_parser; build_parser(); "
        "print([m for m in sys.modules if m.startswith(('queuedesk.server', 'sqlalchemy', 'starlette'))])"
    )
    done = run("python", "-c", program)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_client_commands_work_against_a_real_server(run: Run, queue: dict) -> None:
    listed = run("queuedesk", "queues", "--json")
    assert listed.returncode == 0, listed.stderr
    assert queue["id"] in [q["id"] for q in json.loads(listed.stdout)]
    created = run(
        "queuedesk", "tasks", "create", str(queue["id"]), "--data", '{"paragraph": "fresh"}', "--json"
    )
    assert created.returncode == 0, created.stderr
    assert json.loads(created.stdout)["data"]["paragraph"] == "fresh"
    exported = run("queuedesk", "export", str(queue["id"]), "--format", "jsonl")
    assert exported.returncode == 0, exported.stderr


def test_a_client_command_never_imports_the_server(run: Run, queue: dict) -> None:
    done = run("python", "-c", IN_PROCESS, "queues", "--json")
    report = json.loads(done.stderr.strip().splitlines()[-1])
    assert report == {"code": 0, "loaded": []}, done.stderr
    assert queue["id"] in [q["id"] for q in json.loads(done.stdout)]


@pytest.mark.parametrize(
    ("args", "extras"),
    [
        (["serve", "--port", "1"], "server"),
        (["prune", "--dry-run"], "server"),
        ([], "app"),
        (["--profile", "work"], "app"),
        (["web"], "app"),
        (["demo"], "app,server"),
        (["demo", "--no-app"], "server"),
    ],
)
def test_the_app_and_the_service_say_what_to_install(run: Run, args: list[str], extras: str) -> None:
    done = run("queuedesk", *args)
    assert done.returncode == 2, done.stderr
    assert f"pip install 'queuedesk[{extras}]'" in done.stderr
    assert "Traceback" not in done.stderr


def test_another_pydantic_minor(client_only: Path, run: Run, queue: dict) -> None:
    """The client takes any pydantic 2.x from 2.13 (an integrator's own): the minor pip did not
    choose is installed into the same environment, and the client works on it."""
    asked = run("python", "-c", "import pydantic; print(pydantic.VERSION)")
    now = tuple(int(part) for part in asked.stdout.strip().split(".")[:2])
    other = (2, 13) if now != (2, 13) else (2, 14)
    wanted = f"pydantic>={other[0]}.{other[1]},<{other[0]}.{other[1] + 1}"
    installed = subprocess.run(
        [str(client_only / "python"), "-m", "pip", "install", "--quiet", "--no-compile", wanted],
        capture_output=True,
        text=True,
        timeout=600,
        env=_env(),
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    asked = run("python", "-c", "import pydantic; print(pydantic.VERSION)")
    assert asked.stdout.startswith(f"{other[0]}.{other[1]}."), asked.stdout
    listed = run("queuedesk", "queues", "--json")
    assert listed.returncode == 0, listed.stderr
    assert queue["id"] in [q["id"] for q in json.loads(listed.stdout)]
    test_the_client_imports(run)


def test_a_task_nobody_awaited_is_said_in_one_line_not_a_traceback(capsys) -> None:
    async def command(_args: argparse.Namespace) -> int:
        async def fails() -> None:
            raise RuntimeError("boom")

        task = asyncio.ensure_future(fails())
        for _ in range(3):
            await asyncio.sleep(0)
        del task
        gc.collect()
        return 0

    assert common.run(command, argparse.Namespace()) == 0
    said = capsys.readouterr().err
    assert "Traceback" not in said and "never retrieved: RuntimeError: boom" in said, said
