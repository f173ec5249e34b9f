"""A browser session's process starts no program, by any of Python's ways to start one: each way is
tried in a process of its own with the guard on (an audit hook cannot be taken off again, so never
in the test's own process), and the program it names would leave a mark if it ran."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

# Each way to start `touch MARK`, as a statement the child runs with the guard on.
WAYS = {
    "subprocess.run": "subprocess.run(['touch', MARK])",
    "subprocess.Popen with a shell": "subprocess.Popen('touch ' + MARK, shell=True).wait()",
    "os.system": "os.system('touch ' + MARK)",
    "os.popen": "os.popen('touch ' + MARK).read()",
    "os.execv": "os.execv('/usr/bin/touch', ['touch', MARK])",
    "os.execvp": "os.execvp('touch', ['touch', MARK])",
    "os.spawnv": "os.spawnv(os.P_WAIT, '/usr/bin/touch', ['touch', MARK])",
    "os.posix_spawn": "os.waitpid(os.posix_spawn('/usr/bin/touch', ['touch', MARK], os.environ), 0)",
    "os.posix_spawnp": "os.waitpid(os.posix_spawnp('touch', ['touch', MARK], os.environ), 0)",
    "os.fork": "pid = os.fork()\nif pid == 0: os.execv('/usr/bin/touch', ['touch', MARK])\nos.waitpid(pid, 0)",
    "os.forkpty": "pid, fd = os.forkpty()\nif pid == 0: os.execv('/usr/bin/touch', ['touch', MARK])\nos.waitpid(pid, 0)",
    "pty.spawn": "import pty; pty.spawn(['touch', MARK])",
    "asyncio's subprocess": (
        "import asyncio\n"
        "async def run():\n"
        "    process = await asyncio.create_subprocess_exec('touch', MARK)\n"
        "    await process.wait()\n"
        "asyncio.run(run())"
    ),
    "multiprocessing's fork_exec": (
        "import multiprocessing.util\n"
        "os.waitpid(multiprocessing.util.spawnv_passfds(b'/usr/bin/touch', [b'touch', MARK.encode()], []), 0)"
    ),
    "the C library's system through ctypes": "import ctypes; ctypes.CDLL(None).system(('touch ' + MARK).encode())",
    "the C library's fork through ctypes": "import ctypes; ctypes.CDLL(None).fork()",
    "webbrowser": "import webbrowser; webbrowser.register('mark', None, webbrowser.GenericBrowser(['touch', MARK]), preferred=True); webbrowser.open('https://example.com')",
}

CHILD = """
import json, os, subprocess, sys
from queuedesk.tui.terminal.host_programs import refuse_host_programs
MARK = sys.argv[1]
refuse_host_programs()
try:
{body}
    outcome = "ran"
except OSError as refused:
    outcome = f"refused: {{refused}}"
print(json.dumps(outcome))
"""


@pytest.mark.parametrize("way", sorted(WAYS))
def test_no_way_of_starting_a_program_runs_one(way: str, tmp_path: Path) -> None:
    mark = tmp_path / "ran"
    script = CHILD.format(body=textwrap.indent(WAYS[way], "    "))
    done = subprocess.run(
        [sys.executable, "-c", script, str(mark)], capture_output=True, text=True, timeout=60, check=False
    )
    assert not mark.exists(), f"{way} ran a program: {done.stdout}{done.stderr}"
    # webbrowser answers False instead of raising when its browser cannot start.
    if way != "webbrowser":
        assert json.loads(done.stdout.splitlines()[-1]).startswith(
            "refused: a browser session runs no program"
        ), done.stdout + done.stderr


def test_the_same_ways_run_programs_without_the_guard(tmp_path: Path) -> None:
    """The table is honest: without the guard, each way does leave its mark."""
    for way in ("subprocess.run", "os.system", "os.posix_spawn", "multiprocessing's fork_exec"):
        mark = tmp_path / way.replace(" ", "_")
        script = CHILD.replace("refuse_host_programs()\n", "").format(body=textwrap.indent(WAYS[way], "    "))
        subprocess.run(
            [sys.executable, "-c", script, str(mark)], capture_output=True, timeout=60, check=False
        )
        assert mark.exists(), way
