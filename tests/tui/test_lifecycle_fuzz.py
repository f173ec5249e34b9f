"""The lifecycle fuzzer's short run (tests/support/lifecycle_fuzz.py; the long run is
bench/lifecycle_fuzz.py): each role opens screens, tabs and dialogs and leaves them at random
moments against a server whose answers are delayed 0-800 ms, with outages, role changes and
revoked keys; no traceback, no frozen app. The seed is printed; replay it with
QUEUEDESK_FUZZ_SEED=<seed>."""

import os
import random
from pathlib import Path

import pytest

from tests.support.lifecycle_fuzz import Fuzz, start_environment

STEPS = 30  # ≈12 s on a quiet machine, the server's start on top; steps, not seconds: no clock in it


async def test_leaving_anything_at_any_moment_never_crashes_nor_freezes_the_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # an export (X, enter) writes to the current folder
    seed = int(os.environ.get("QUEUEDESK_FUZZ_SEED") or random.randrange(1 << 32))
    print(f"lifecycle fuzz seed {seed} (replay: QUEUEDESK_FUZZ_SEED={seed})")
    env = start_environment(tmp_path, seed, most_delay=0.8, tasks=24, completed=8)
    try:
        fuzz = Fuzz(env, seed)
        try:
            report = await fuzz.run(steps=STEPS)
        finally:
            print(fuzz.report.summary())
        assert report.steps == STEPS, report.summary()
        assert not report.tracebacks and not report.frozen, report.summary()
    finally:
        env.admin.close()
        env.proxy.stop()
        env.server.stop()
