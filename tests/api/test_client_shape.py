"""The client is built of one part per resource behind one face: no class of `api/` passes 400 lines,
and callers import what they always imported from `queuedesk.api.client`."""

import ast
from pathlib import Path

from queuedesk.api import client

API = Path(__file__).resolve().parents[2] / "src" / "queuedesk" / "api"
MAX_LINES = 400


def test_no_class_of_the_api_passes_400_lines() -> None:
    big = [
        f"{path.relative_to(API)}: {node.name} has {node.end_lineno - node.lineno + 1} lines"
        for path in sorted(API.rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ClassDef) and (node.end_lineno or 0) - node.lineno + 1 > MAX_LINES
    ]
    assert big == []


def test_the_one_face_keeps_what_callers_import() -> None:
    for name in ("QueueDeskClient", "RetryPolicy", "Claim", "ReviewClaim", "retry_after_seconds",
                 "CompletedSort", "PendingSort", "DeliverySort", "AuditSort", "ENV_ORG"):  # fmt: skip
        assert hasattr(client, name), name
    parts = {part.__module__.rsplit(".", 1)[-1] for part in client.QueueDeskClient.__mro__[1:-1]}
    assert {"core", "queues", "tasks", "completed", "work", "imports", "webhooks", "reviews"} <= parts
