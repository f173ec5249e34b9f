"""The API models build their validators on first use (a start-up cost), safely from many threads."""

import subprocess
import sys

FRESH_PROCESS = """
import sys
from concurrent.futures import ThreadPoolExecutor
from threading import Barrier

from queuedesk.api import models

assert models.DEFER_BUILD, "this pydantic builds models at import"
assert not models.Queue.__pydantic_complete__, "Queue was built at import"
assert not models.Block.__pydantic_complete__, "Block was built at import"

barrier = Barrier(8)
QUEUE = {"id": 7, "name": "Q", "created_at": "2026-01-02T03:04:05Z", "n_tasks": 3, "active_users": ["a"]}
BLOCK = {"id": "b", "name": "Answer", "type": "text", "text": {"is_required": True}}


def first_use(_: int) -> tuple[object, ...]:
    barrier.wait()  # every thread meets the unbuilt models at once
    queue = models.Queue.model_validate(QUEUE)
    block = models.Block.model_validate(BLOCK)
    return type(queue).__name__, queue.id, queue.n_tasks, queue.created_at.year, block.is_required


with ThreadPoolExecutor(8) as pool:
    results = set(pool.map(first_use, range(8)))
assert results == {("Queue", 7, 3, 2026, True)}, results
assert models.Queue.__pydantic_complete__ and not models.Me.__pydantic_complete__
print("ok")
"""


def test_models_are_built_on_first_use_and_right_from_many_threads_at_once() -> None:
    done = subprocess.run([sys.executable, "-c", FRESH_PROCESS], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
