"""A refused action names itself: the 403's message says what the role may not do."""

import pytest

from tests.support import assert_envelope


@pytest.mark.parametrize(
    ("role", "method", "path", "words"),
    [
        ("worker", "PUT", "/flush", "may not flush a queue"),
        ("supervisor", "POST", "/webhook/secret/rotate", "may not change the webhook"),
        ("supervisor", "POST", "/tasks/create", "may not create or import tasks"),
        ("supervisor", "PATCH", "", "may not create or change queues"),
        ("worker", "GET", "/stats", "may not read queue stats"),
        ("worker", "GET", "/webhook", "may not read the webhook"),
        ("supervisor", "POST", "/tasks/next", "may not claim or complete tasks"),
    ],
)
def test_each_refusal_names_its_action(clients, qpath, role: str, method: str, path: str, words: str) -> None:
    body = {"name": "x"} if method == "PATCH" else None
    answer = clients[role].request(method, f"{qpath}{path}", json=body)
    refusal = assert_envelope(answer, 403, "forbidden")
    assert refusal["errors"][0]["message"] == f"A {role} {words}."
