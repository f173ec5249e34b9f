"""Issue: ZWJ emoji shift the border. In a real terminal (tmux), a table whose cells hold emoji
sequences, shown by the display rule, has its right border in the column Rich put it in on every
line: the terminal draws each cell in the cells Rich counted for it.

A script in the pane renders the table with Rich, writes each line in one write and asks the terminal
where its cursor is (DSR, `ESC [ 6 n`): the column after the border, as the terminal drew the line.
With "raw" in place of "shown" (the texts as they came), the rows of `❤️`, the rainbow flag and the
keycap end a column short in tmux 3.3a.
"""

import json
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.cells import cell_len

from tests.support.tmux import Pane, needs_tmux
from tests.unit.test_terminal_text import DRAWN

pytestmark = [needs_tmux, pytest.mark.tmux, pytest.mark.slow]

SCRIPT = r"""
import io, json, os, sys, tty
from pathlib import Path
from rich.console import Console
from rich.table import Table
from queuedesk.api.terminal_text import shown

texts, out, rule = json.loads(sys.argv[1]), Path(sys.argv[2]), sys.argv[3] == "shown"
table = Table("text", "next")
for text in texts:
    table.add_row(shown(text) if rule else text, "x", end_section=False)
console = Console(file=io.StringIO(), width=40, color_system=None, legacy_windows=False)
console.print(table)
lines = console.file.getvalue().splitlines()
tty.setraw(0)
ends = []
for line in lines:
    os.write(1, line.encode() + b"\x1b[6n")  # the line in one write, as a frame is written
    reply = b""
    while not reply.endswith(b"R"):
        reply += os.read(0, 1)
    ends.append(int(reply[reply.index(b";") + 1 : -1]) - 1)  # the columns drawn
    os.write(1, b"\r\n")
out.write_text(json.dumps({"lines": lines, "ends": ends}))
"""


@pytest.fixture
def pane() -> Iterator[Pane]:
    pane = Pane("emoji", f"qd-emoji-{os.getpid()}-{time.monotonic_ns()}")
    yield pane
    pane.kill_server()


def drawn(pane: Pane, texts: list[str], out: Path, rule: str) -> dict:
    command = shlex.join([sys.executable, "-c", SCRIPT, json.dumps(texts), str(out), rule])
    subprocess.run(
        [*pane.tmux, "new-session", "-d", "-s", pane.name, "-x", "60", "-y", "30", f"{command}; sleep 30"],
        check=True,
    )
    deadline = time.monotonic() + 15
    while not out.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert out.exists(), pane.text()
    return json.loads(out.read_text())


def test_a_table_of_emoji_sequences_keeps_its_border_in_place(pane: Pane, tmp_path: Path) -> None:
    found = drawn(pane, [text for text, _out, _cells in DRAWN], tmp_path / "drawn.json", "shown")
    width = cell_len(found["lines"][0])
    assert all(cell_len(line) == width for line in found["lines"]), found  # as Rich laid it out
    assert found["ends"] == [width] * len(found["lines"]), found  # as the terminal drew it
