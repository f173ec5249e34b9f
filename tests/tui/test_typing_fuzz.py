"""The typing fuzzer's short run (bench/typing_fuzz.py has the long one): the installed command in
tmux, keys typed at 5-200 ms while the app is stopped at random, every value the server recorded
checked against what the keys meant."""

import json
from pathlib import Path

import pytest

from bench.typing_fuzz import fuzz
from tests.support.tmux import needs_tmux

pytestmark = [needs_tmux, pytest.mark.slow, pytest.mark.tmux]


def test_typed_sequences_record_what_they_meant_with_the_app_stalling_at_random(tmp_path: Path) -> None:
    out = tmp_path / "fuzz.jsonl"
    summary = fuzz(tasks=6, seed=7, out_path=out)
    problems = [line for line in out.read_text().splitlines() if '"ok": false' in line or "frozen" in line]
    assert summary["wrong_values"] == 0, problems
    assert summary["frozen_forms"] == 0, problems
    assert summary["tasks_typed_for"] >= 6 and summary["completed_checked"] > 0, summary
    assert summary["bursts_refused_and_named"] == summary["bursts"], summary
    assert json.loads(out.read_text().splitlines()[-1])["summary"] is True
