"""The client and the command line against a server that speaks only Part A: the original service.

A loopback stand-in (`http.server`, so that every quirky byte is under control) answers like the
original Django service described in ../shared/reference/original-service.md (beside this
repository), from the hand-made JSON fixtures in tests/fixtures/original/: HTML 404 for `/me` and
unknown paths, HTML 500 on the `/queues/` spelling of queue detail, webhook and flush, 201 on
create, 201/200/204 on webhook writes (with the odd 19-byte `{"status_code":204}` body), an empty
untyped 200 on flush, the DRF envelope without `code`, and `Connection: close` on every answer.

The reference's "Further answers observed (version 1.0.51)", one by one, and where the stand-in
gives each (`test_the_stand_in_gives_the_further_answers` sends the requests and checks the answers):

| the reference says                                                | the stand-in                                  |
|-------------------------------------------------------------------|-----------------------------------------------|
| block ids need not be strings: a queue keeps `{"id": 7}`; detail  | queue 9 "Intake" (`add_queue`): block `7` a   |
| has the JSON number, task `data` the string key "7"               | number in the detail, "7" in every task       |
| `start_date`/`end_date` as a date-time with `Z` -> 500 (HTML);    | `completed`: an aware date-time -> HTML 500;  |
| a plain date works (end inclusive; unparseable values ignored)    | plain dates filter by UTC day; other ignored  |
| no `completed_by` filter: ignored, every completed task comes back | `completed` ignores `completed_by`            |
| a create leaving out a list block -> 500 after the task was saved | `create`: saves (id, n_tasks), then HTML 500  |
| `single_selection` values are not checked against the options     | `create` stores any value (as before, #26)    |
| no bulk import: tasks get source `api`                            | `/tasks/import` -> HTML 404; source `api`     |
| completions between two page requests shift later pages by one    | `between_pages`: a completion after a page    |

Observed again (1.0.51, 2026-12-07), in the stand-in too: the webhook routes look a queue up by its
id alone (`webhook`), a list holding objects is stored and every completed page holding it then
answers 500 (`completed`), an entity needs `category` (`label` is a 400) and a named-entity value may
be a plain string (`create`). `tests/api/test_original_round3.py` checks the client against them.

Beyond the reference, `fail_creates` makes chosen creates answer HTML 500 without saving, and
`fail_after_save` after saving: a row that fails for a reason nobody could check beforehand (the
database was locked, a worker died).
"""

import asyncio
import csv
import json
import os
import re
import socket
import subprocess
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest

from queuedesk.api import models
from queuedesk.api.client import QueueDeskClient
from queuedesk.api.errors import (
    AuthenticationError,
    ConnectionFailed,
    Forbidden,
    NotConfigured,
    NotFound,
    NotSupported,
    QueueDeskError,
    ServerError,
    ValidationError,
)
from queuedesk.api.queue_files import load_queue_file
from tests.support import queuedesk_command

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "original"
TOKEN = "9f2c4e1a7b3d5f6e8a0c2b4d6f8e0a1c3b5d7f9e"  # 40 hex, as the original issues them
# A key of a member who is not the organization's admin: creates, the completed tasks and the
# webhook need an org admin (403), yet the original lets it flush (that view checks only that the
# queue is among the caller's organizations) and read the queues.
MEMBER_TOKEN = "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567"
ORG = 1
OTHER_ORG = 2
QUEUE = 7
# The real 1.0.51's pages (Django 2.2 with DEBUG off: bare fragments, `Content-Type: text/html`).
SERVER_ERROR = b"<h1>Server Error (500)</h1>"
NOT_FOUND = b"<h1>Not Found</h1><p>The requested resource was not found on this server.</p>"
ODD_204 = b'{"status_code":204}'
# What a create leaving a block out gets, by the block's type (observed on 1.0.51, 2026-11-25):
SAVED_THEN_FAILS = {"list", "named_entity_recognition"}  # saved, then HTML 500
NO_ENTITIES = {"text": "", "entities": []}  # a named-entity value the original takes as "none"
FAILS_UNSAVED = {"bounding_boxes"}  # HTML 500, nothing saved
# multiple_selection, text_sequence and every other type left out: 201
URL = re.compile(r"^(https?|ftps?)://[^\s/:?#]+(:\d{2,5})?(/\S*)?$")


NO_CONFIG = Path("/nonexistent/queuedesk-test/config.toml")  # no profile of the machine's user


def fixture(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text())


TASK_KEYS = {
    "id",
    "status",
    "completed_at",
    "created_at",
    "completed_by",
    "queue",
    "queue_id",
    "data",
    "source",
}


@dataclass
class Answer:
    status: int
    body: bytes = b""
    content_type: str | None = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Seen:
    method: str
    path: str
    query: dict[str, list[str]]
    body: Any
    status: int


def _json(status: int, body: Any, **headers: str) -> Answer:
    return Answer(status, json.dumps(body, separators=(",", ":")).encode(), "application/json", headers)


def _html(status: int, page: bytes) -> Answer:
    return Answer(status, page, "text/html")


class Denied(Exception):
    def __init__(self, answer: Answer) -> None:
        self.answer = answer


class OriginalService:
    """The original service's external API, quirks included, over real HTTP on loopback."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.reset()
        service = self

        class Handler(BaseHTTPRequestHandler):
            server_version = "gunicorn"
            sys_version = ""

            def _any(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with service.lock:
                    answer = service.answer(self.command, self.path, dict(self.headers), raw)
                self.send_response(answer.status)
                if answer.content_type is not None:
                    self.send_header("Content-Type", answer.content_type)
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(answer.body)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(answer.body)  # also on a 204, as the original does
                self.close_connection = True

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _any

            def log_message(self, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def reset(self) -> None:
        self.seen: list[Seen] = []
        self.hooks: dict[int, str] = {}
        self.next_id = 101
        self.n_tasks = {7: 2, 8: 0}
        self.extra_queues: dict[int, dict[str, Any]] = {}  # queue id -> its detail
        self.created: list[dict[str, Any]] = []  # every task a create saved, in order
        recorded = fixture("completed_page1.json")["tasks"] + fixture("completed_page2.json")["tasks"]
        self.finished: dict[int, list[dict[str, Any]]] = {QUEUE: recorded, 8: []}
        self.creates = 0
        self.fail_creates: set[int] = set()  # these creates (1 = the first) fail without saving
        self.fail_after_save: set[int] = set()  # these creates save the task, then fail
        self.between_pages: Callable[[], object] | None = None  # runs after each completed page
        self.on_create: Callable[[int], object] | None = None  # runs as create N arrives (1 = the first)
        self.forbid_completed = False  # a key that may not read the history (403, as to a non-admin)

    def add_queue(
        self, queue_id: int, name: str, blocks: list[dict[str, Any]], org: int = ORG, description: str = ""
    ) -> None:
        """A queue of `org`; the original finds any queue by its id alone, in every route but the list."""
        self.extra_queues[queue_id] = {
            "id": queue_id,
            "name": name,
            "created_at": "2026-11-23T09:00:00.000+00:00",
            "n_tasks": 0,
            "active_users": [],
            "task_description": description,  # the original's name for the description
            "org_id": org,
            "data": blocks,
        }
        self.n_tasks[queue_id] = 0
        self.finished[queue_id] = []

    def complete_now(self, queue_id: int, data: dict[str, Any], by: str = "wes@acme.test") -> int:
        """A task completed at this moment (the newest), as a worker would through the internal API."""
        task_id = self.next_id
        self.next_id += 1
        now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        self.finished[queue_id].insert(0, self._task(queue_id, task_id, data, now, by))
        return task_id

    def _task(
        self, queue_id: int, task_id: int, data: dict[str, Any], completed_at: str | None, by: str | None
    ) -> dict[str, Any]:
        name = self.extra_queues[queue_id]["name"] if queue_id in self.extra_queues else "Categorization"
        return {
            **fixture("task_created.json"),
            "id": task_id,
            "status": "completed" if completed_at else "new",
            "completed_at": completed_at,
            "completed_by": by,
            "queue": name,
            "queue_id": queue_id,
            "data": data,
        }

    def blocks(self, queue_id: int) -> list[dict[str, Any]]:
        if queue_id in self.extra_queues:
            return self.extra_queues[queue_id]["data"]
        return fixture("queue_detail.json")["data"] if queue_id == QUEUE else []

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    # --- the original's behaviour ---------------------------------------------------------------

    def answer(self, method: str, target: str, headers: dict[str, str], raw: bytes) -> Answer:
        parts = urlsplit(target)
        query = parse_qs(parts.query)
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw
        try:
            answer = self.route(method, parts.path, query, headers, body)
        except Denied as denied:
            answer = denied.answer
        self.seen.append(Seen(method, parts.path, query, body, answer.status))
        return answer

    @staticmethod
    def authenticate(headers: dict[str, str]) -> bool:
        """Raises the original's 401s; True for the member's (non-admin) key."""
        header = {k.lower(): v for k, v in headers.items()}.get("authorization")
        auth = {"WWW-Authenticate": "Token"}
        if header is None:
            raise Denied(_json(401, fixture("error_401_not_provided.json"), **auth))
        words = header.split()
        if words[0].lower() != "token":
            raise Denied(_json(401, fixture("error_401_not_provided.json"), **auth))
        if len(words) == 1:
            message = "Invalid token header. No credentials provided."
            raise Denied(_json(401, {"status_code": 401, "errors": [{"message": message}]}, **auth))
        if words[1] not in (TOKEN, MEMBER_TOKEN):
            raise Denied(_json(401, fixture("error_401_invalid_token.json"), **auth))
        return words[1] == MEMBER_TOKEN

    def route(self, method: str, path: str, query: dict, headers: dict[str, str], body: Any) -> Answer:
        match = re.fullmatch(r"/orgs/(\d+)/(queues|workflows)(?:/(\d+)(/.*)?)?", path)
        if match is None:
            return _html(404, NOT_FOUND)
        org, spelling, queue, rest = int(match[1]), match[2], match[3], match[4] or ""
        endpoints = {
            ("", "GET"),
            ("/tasks/create", "POST"),
            ("/tasks/completed", "GET"),
            ("/webhook", "GET"),
            ("/webhook", "PUT"),
            ("/webhook", "PATCH"),
            ("/webhook", "DELETE"),
            ("/flush", "PUT"),
            ("/flush", "GET"),
            ("/flush", "POST"),
        }
        if queue is None:
            if method != "GET":
                return _json(
                    405, {"status_code": 405, "errors": [{"message": f'Method "{method}" not allowed.'}]}
                )
            self.authenticate(headers)
            if org != ORG:
                return _json(403, fixture("error_403.json"))
            listed = [
                {k: q[k] for k in ("id", "name", "created_at", "active_users")}
                for q in self.extra_queues.values()
                if q["org_id"] == org
            ]
            extra = [{**q, "n_tasks": self.n_tasks[q["id"]]} for q in listed]
            return _json(200, fixture("queues.json") + extra)
        if rest not in {e for e, _ in endpoints}:
            return _html(404, NOT_FOUND)
        if (rest, method) not in endpoints:
            return _json(
                405, {"status_code": 405, "errors": [{"message": f'Method "{method}" not allowed.'}]}
            )
        member = self.authenticate(headers)
        queue_id = int(queue)
        if rest == "/flush":
            return self.flush(org, spelling, queue_id, method)
        if org != ORG:
            return _json(403, fixture("error_403.json"))
        if member and rest in ("/webhook", "/tasks/create", "/tasks/completed"):
            return _json(403, fixture("error_403.json"))
        if rest == "" or rest == "/webhook":
            if spelling == "queues":  # kwargs["workflow_id"] on a route that names it queue_id
                return _html(500, SERVER_ERROR)
            return self.detail(queue_id) if rest == "" else self.webhook(queue_id, method, body)
        if queue_id not in self.n_tasks:
            return _json(404, fixture("error_404.json"))
        if rest == "/tasks/create":
            return self.create(queue_id, body)
        if self.forbid_completed:
            return _json(403, fixture("error_403.json"))
        answer = self.completed(queue_id, query, headers)
        if self.between_pages is not None:
            self.between_pages()
        return answer

    def flush(self, org: int, spelling: str, queue_id: int, method: str) -> Answer:
        if method != "PUT":
            return _json(
                405, {"status_code": 405, "errors": [{"message": f'Method "{method}" not allowed.'}]}
            )
        if spelling == "queues":
            return _html(500, SERVER_ERROR)
        if org != ORG or queue_id not in self.n_tasks:  # only "queue among the caller's orgs"
            return _json(404, fixture("error_404.json"))
        self.n_tasks[queue_id] = 0
        return Answer(200)  # empty body, no Content-Type

    def detail(self, queue_id: int) -> Answer:
        if queue_id == QUEUE:
            detail = fixture("queue_detail.json")
        elif queue_id in self.extra_queues:
            detail = dict(self.extra_queues[queue_id])
        elif queue_id in self.n_tasks:
            listed = {str(q["id"]): q for q in fixture("queues.json")}[str(queue_id)]
            detail = {**listed, "task_description": "", "org_id": ORG, "data": []}
        else:
            return _json(404, fixture("error_404.json"))
        detail["n_tasks"] = self.n_tasks[queue_id]
        detail.pop("webhook", None)
        if queue_id in self.hooks:
            detail["webhook"] = {"target": self.hooks[queue_id]}
        return _json(200, detail)

    def _hook(self, queue_id: int) -> dict[str, Any]:
        return {**fixture("webhook_set.json"), "target": self.hooks[queue_id], "workflow": queue_id}

    def webhook(self, queue_id: int, method: str, body: Any) -> Answer:
        if method == "DELETE":
            return _json(405, {"status_code": 405, "errors": [{"message": 'Method "DELETE" not allowed.'}]})
        if method == "GET":
            return _json(
                200, self._hook(queue_id) if queue_id in self.hooks else fixture("webhook_none.json")
            )
        if not isinstance(body, dict) or "target" not in body:
            return _html(500, SERVER_ERROR)
        target = body["target"]
        if target == "":
            if self.hooks.pop(queue_id, None) is not None:
                return Answer(204)
            return Answer(204, ODD_204, "application/json")
        if not isinstance(target, str) or not URL.match(target):
            return _json(400, fixture("error_400_target.json"))
        status = 200 if queue_id in self.hooks else 201
        self.hooks[queue_id] = target
        return _json(status, self._hook(queue_id))

    def create(self, queue_id: int, body: Any) -> Answer:
        self.creates += 1
        if self.on_create is not None:
            self.on_create(self.creates)
        if self.creates in self.fail_creates:
            return _html(500, SERVER_ERROR)
        data = body.get("data") if isinstance(body, dict) else None
        if not data:
            return _json(400, fixture("error_400_no_data.json"))
        if isinstance(data, list):
            return _html(500, SERVER_ERROR)
        values = {}
        blocks = self.blocks(queue_id)
        for block in blocks:
            key = str(block["id"])
            # The value is looked up by the block's id as stored: a number never matches a JSON key.
            value = data.get(block["id"]) if isinstance(data, dict) else None
            if value is not None and block["type"] == "text" and not isinstance(value, str):
                error = fixture("error_400_text.json")
                error["errors"][0]["message"] = f"Data item with id {key} must be a string"
                return _json(400, error)
            if value is not None and block["type"] == "image" and not URL.match(str(value)):
                error = fixture("error_400_url.json")
                error["errors"][0]["message"] = f"Invalid url value: {value}"
                return _json(400, error)
            if block["type"] == "named_entity_recognition" and isinstance(value, dict):
                for entity in value.get("entities") or []:
                    if not isinstance(entity, dict) or not {"start", "end", "category"} <= set(entity):
                        message = f"Entity {entity} missing one or more properties."
                        return _json(400, {"status_code": 400, "errors": [{"message": message}]})
            values[key] = value
        left_out = {b["type"] for b in blocks if values[str(b["id"])] is None}
        if any(b["type"] == "named_entity_recognition" and _textless(values[str(b["id"])]) for b in blocks):
            left_out.add("named_entity_recognition")  # it never sets the entities its answer reads
        if left_out & FAILS_UNSAVED:
            return _html(500, SERVER_ERROR)  # before the save
        task = {**fixture("task_created.json"), **self._task(queue_id, self.next_id, values, None, None)}
        task.update(id=str(self.next_id), queue_id=str(queue_id))
        self.next_id += 1
        self.n_tasks[queue_id] += 1
        self.created.append(task)
        if left_out & SAVED_THEN_FAILS or self.creates in self.fail_after_save:
            return _html(500, SERVER_ERROR)  # iterating over the missing value, after the save
        return _json(201, task)

    def completed(self, queue_id: int, query: dict[str, list[str]], headers: dict[str, str]) -> Answer:
        raw_limit = query.get("limit", [""])[0]
        raw_offset = query.get("offset", [""])[0]
        limit = int(raw_limit) if raw_limit.isdigit() and int(raw_limit) > 0 else 100
        limit = min(limit, 1000)
        offset = int(raw_offset) if raw_offset.isdigit() else 0
        everything = self.finished[queue_id]
        dated = {k: query[k][0] for k in ("start_date", "end_date") if k in query}
        untouched = queue_id == QUEUE and len(everything) == 3
        if untouched and not dated and limit == 2 and offset in (0, 2):  # the recorded answers
            return _json(200, fixture(f"completed_page{offset // 2 + 1}.json"))
        days = {}
        for name, value in dated.items():
            if re.fullmatch(r"\d{4}-\d\d-\d\d", value):
                days[name] = value
            elif re.search(r"T.*(Z|[+-]\d\d:?\d\d)$", value):
                return _html(500, SERVER_ERROR)  # an aware date-time meets code that needs a naive one
            # anything else is ignored
        everything = [
            t
            for t in everything
            if days.get("start_date", "") <= _utc_day(t["completed_at"]) <= days.get("end_date", "9999")
        ]
        everything.sort(key=lambda t: stamp(t["completed_at"]), reverse=True)  # completed_at only
        host = {k.lower(): v for k, v in headers.items()}["host"]
        base = f"http://{host}/orgs/{ORG}/workflows/{queue_id}/tasks/completed?"
        count = len(everything)
        following = (
            base + urlencode({"limit": limit, "offset": offset + limit}) if offset + limit < count else None
        )
        if offset == 0:
            preceding = None
        elif offset - limit <= 0:
            preceding = base + urlencode({"limit": limit})
        else:
            preceding = base + urlencode({"limit": limit, "offset": offset - limit})
        if any(_unservable(task) for task in everything[offset : offset + limit]):
            return _html(500, SERVER_ERROR)  # a list holding objects is stored, then never served
        page = {
            "next": following,
            "previous": preceding,
            "count": count,
            "tasks": everything[offset : offset + limit],
        }
        return _json(200, page)


def _unservable(task: dict[str, Any]) -> bool:
    return any(
        isinstance(value, list) and any(isinstance(item, dict | list) for item in value)
        for value in task["data"].values()
    )


def _textless(value: Any) -> bool:
    return isinstance(value, dict) and "text" not in value


def _utc_day(text: str) -> str:
    return stamp(text).astimezone(UTC).date().isoformat()


@pytest.fixture(scope="module")
def service() -> Iterator[OriginalService]:
    made = OriginalService()
    yield made
    made.stop()


@pytest.fixture
def original(service: OriginalService, monkeypatch) -> OriginalService:
    for name in ("QUEUEDESK_URL", "QUEUEDESK_TOKEN", "QUEUEDESK_ORG", "QUEUEDESK_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("QUEUEDESK_CONFIG", str(NO_CONFIG))
    with service.lock:
        service.reset()
    return service


def connect(original: OriginalService, token: str = TOKEN, org: int | None = ORG) -> QueueDeskClient:
    return QueueDeskClient(original.url, token, org)


def stamp(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def requests_to(original: OriginalService, pattern: str) -> list[Seen]:
    return [s for s in original.seen if re.search(pattern, s.path)]


# --- the fixtures and the stand-in are the original's ---------------------------------------------


def test_fixtures_have_the_originals_shapes() -> None:
    created = fixture("task_created.json")
    assert set(created) == TASK_KEYS | {"correct"}
    assert created["id"].isdigit() and created["status"] == "new" and created["completed_at"] is None
    for name in ("completed_page1.json", "completed_page2.json"):
        page = fixture(name)
        assert list(page) == ["next", "previous", "count", "tasks"]
        assert all(set(t) == TASK_KEYS | {"correct"} for t in page["tasks"])
    assert "offset" not in fixture("completed_page2.json")["previous"]
    assert set(fixture("webhook_set.json")) == {"target", "user", "event", "workflow", "id"}
    for name in sorted(FIXTURES.glob("error_*.json")):
        body = json.loads(name.read_text())
        assert all("code" not in item for item in body["errors"]), name  # DRF has no code
    stamps = [
        t[k]
        for p in (1, 2)
        for t in fixture(f"completed_page{p}.json")["tasks"]
        for k in ("created_at", "completed_at")
    ]
    forms = [re.search(r":\d\d(?:\.(\d+))?(Z|\+00:00)$", s) for s in stamps]
    assert {len(m[1] or "") for m in forms if m} == {0, 3, 6}  # 0, 3 and 6 fractional digits
    assert {s[-1] == "Z" for s in stamps} == {True, False}  # both Z and +00:00
    kinds = {b["type"] for b in fixture("queue_detail.json")["data"]}
    assert "freehand_drawing" in kinds  # a block type the contract does not list


def test_the_stand_in_answers_like_the_original(original: OriginalService) -> None:
    def raw(request: str) -> bytes:
        with socket.create_connection(("127.0.0.1", original.port), timeout=5) as sock:
            sock.sendall(request.encode())
            chunks = []
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        return b"".join(chunks)

    auth = f"Authorization: Token {TOKEN}\r\n"
    put = "PUT /orgs/1/workflows/7/webhook HTTP/1.1\r\nHost: x\r\n" + auth
    odd = raw(put + 'Content-Type: application/json\r\nContent-Length: 14\r\n\r\n{"target": ""}')
    head, _, rest = odd.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.0 204") or head.startswith(b"HTTP/1.1 204")
    assert b"Content-Length: 19" in head and b"Connection: close" in head
    assert rest == ODD_204  # the 19 bytes really go out after a 204

    flush = raw(f"PUT /orgs/1/workflows/7/flush HTTP/1.1\r\nHost: x\r\n{auth}Content-Length: 0\r\n\r\n")
    head, _, rest = flush.partition(b"\r\n\r\n")
    assert b" 200 " in head.split(b"\r\n")[0] and b"Content-Type" not in head and rest == b""

    me = raw(f"GET /me HTTP/1.1\r\nHost: x\r\n{auth}\r\n")
    assert b" 404 " in me.split(b"\r\n")[0] and b"text/html" in me
    detail = raw(f"GET /orgs/1/queues/7 HTTP/1.1\r\nHost: x\r\n{auth}\r\n")
    assert b" 500 " in detail.split(b"\r\n")[0] and b"<h1>Server Error (500)</h1>" in detail
    denied = raw(f"GET /orgs/1/queues/7 HTTP/1.1\r\nHost: x\r\nAuthorization: Token {'0' * 40}\r\n\r\n")
    assert b" 401 " in denied.split(b"\r\n")[0] and b"WWW-Authenticate: Token" in denied


# --- detection -------------------------------------------------------------------------------------


async def test_supports_extensions_is_false_and_asked_once(original: OriginalService) -> None:
    async with connect(original) as qd:
        assert await qd.supports_extensions() is False
        assert await qd.supports_extensions() is False
        await qd.queues()
        assert [s.path for s in original.seen] == ["/me", "/orgs/1/workflows"]  # detected once
        with pytest.raises(NotSupported) as caught:
            await qd.me()
    assert "Reading /me failed" in str(caught.value) and "QueueDesk server" in str(caught.value)


async def test_org_without_an_id_asks_for_QUEUEDESK_ORG(original: OriginalService) -> None:
    async with connect(original, org=None) as qd:
        with pytest.raises(NotConfigured) as caught:
            await qd.org()
        assert not isinstance(caught.value, NotSupported)
        for name in ("QUEUEDESK_ORG", "organization_id"):
            assert name in str(caught.value)
        assert "--org" not in str(caught.value)  # Python is told its own names
        with pytest.raises(QueueDeskError, match="QUEUEDESK_ORG"):
            await qd.queues()
    assert not requests_to(original, r"^/orgs/")  # nothing was guessed


async def test_org_from_the_environment(original: OriginalService, monkeypatch) -> None:
    monkeypatch.setenv("QUEUEDESK_URL", original.url)
    monkeypatch.setenv("QUEUEDESK_TOKEN", TOKEN)
    monkeypatch.setenv("QUEUEDESK_ORG", str(ORG))
    async with QueueDeskClient() as qd:
        assert await qd.org() == ORG
        assert [q.id for q in await qd.queues()] == [7, 8]


# --- Part A works and parses ------------------------------------------------------------------------


async def test_queues_on_the_workflows_spelling(original: OriginalService) -> None:
    async with connect(original) as qd:
        queues = await qd.queues()
    assert [(q.id, q.name, q.n_tasks, q.active_users) for q in queues] == [
        (7, "Categorization", 2, []),
        (8, "Transcription", 0, ["Ada"]),  # "8": a numeric string id
    ]
    assert queues[0].created_at == datetime(2026, 11, 21, 4, 30, tzinfo=UTC)
    assert queues[1].created_at == datetime(2026, 11, 21, 4, 31, 12, 345678, tzinfo=UTC)
    assert [s.path for s in requests_to(original, r"^/orgs/")] == ["/orgs/1/workflows"]


async def test_queue_detail_keeps_unknown_fields_and_block_types(original: OriginalService) -> None:
    async with connect(original) as qd:
        detail = await qd.queue(QUEUE)
    assert [s.path for s in requests_to(original, r"^/orgs/")] == [
        "/orgs/1/workflows",  # the queue is the organization's (this server finds any by id)
        "/orgs/1/workflows/7",
    ]  # /queues/7 is a 500
    assert (detail.id, detail.name, detail.description, detail.n_tasks) == (
        7,
        "Categorization",
        "Sort incoming reports",
        2,
    )
    assert detail.model_extra == {"org_id": 1}  # no webhook yet
    paragraph, category, photo, sketch = detail.data
    assert paragraph.model_extra == {
        "text": {"placeholder": "What is going on?", "read_only": True},
        "value": None,
    }
    assert paragraph.read_only is True and paragraph.is_required is False
    assert [o.id for o in category.options] == ["red", "blue"] and category.is_required is False
    assert photo.settings == {"placeholder": "https://example.com/p.png", "read_only": False}
    assert (sketch.id, sketch.type) == ("sketch", "freehand_drawing")  # unknown type, kept
    assert sketch.settings == {"stroke": 3, "palette": ["#000", "#f00"]}
    assert sketch.options == [] and sketch.is_required is False


async def test_create_task_accepts_201_and_the_originals_task(original: OriginalService) -> None:
    async with connect(original) as qd:
        task = await qd.create_task(QUEUE, {"paragraph": "Printer on fire", "category": "red"})
        detail = await qd.queue(QUEUE)
    assert isinstance(task, models.Task)
    assert (task.id, task.queue_id, task.queue, task.status, task.source) == (
        101,
        7,
        "Categorization",
        "new",
        "api",
    )
    assert task.created_at == datetime(2026, 11, 21, 4, 38, 42, 564772, tzinfo=UTC)
    assert task.completed_at is None and task.completed_by is None
    assert task.data == {"paragraph": "Printer on fire", "category": "red", "photo": None, "sketch": None}
    assert task.model_extra == {"correct": None}
    assert detail.n_tasks == 3
    (create,) = requests_to(original, r"/tasks/create$")
    assert (create.method, create.path, create.status) == ("POST", "/orgs/1/workflows/7/tasks/create", 201)
    assert create.body == {"data": {"paragraph": "Printer on fire", "category": "red"}}


async def test_completed_tasks_parse_every_timestamp_form(original: OriginalService) -> None:
    async with connect(original) as qd:
        first = await qd.completed_tasks(QUEUE, limit=2)
        second = await qd.completed_tasks(QUEUE, offset=2, limit=2)
    assert first.count == 3 and first.previous is None and first.next is not None
    newest, older = first.tasks
    assert (newest.id, newest.queue_id, newest.completed_by) == (12, 7, "wes@acme.test")
    assert newest.completed_at == datetime(2026, 11, 21, 4, 41, 49, 391000, tzinfo=UTC)  # 3 digits, Z
    assert newest.created_at == datetime(2026, 11, 21, 4, 40, tzinfo=UTC)  # 0 digits, Z
    assert older.completed_at == datetime(2026, 11, 21, 4, 41, 5, 648043, tzinfo=UTC)  # 6 digits, +00:00
    assert older.created_at == datetime(2026, 11, 21, 4, 39, 59, tzinfo=UTC)  # 3 digits, +00:00
    assert newest.model_extra == {"correct": True} and older.model_extra == {"correct": None}
    assert newest.data["sketch"] == {"strokes": []}  # an unknown block type's value, as it came
    assert second.next is None and second.previous is not None and "offset" not in second.previous
    (last,) = second.tasks
    assert (last.id, last.model_extra) == (10, {"correct": False})
    assert last.completed_at == datetime(2026, 11, 21, 4, 40, 30, tzinfo=UTC)  # 0 digits, +00:00
    assert last.created_at == datetime(2026, 11, 21, 4, 38, 0, 120000, tzinfo=UTC)
    for task in (newest, older, last):
        assert task.completed_at is not None and task.completed_at.utcoffset().total_seconds() == 0
    paths = {s.path for s in requests_to(original, r"/tasks/completed$")}
    assert paths == {"/orgs/1/workflows/7/tasks/completed"}


async def test_completed_tasks_past_the_end(original: OriginalService) -> None:
    async with connect(original) as qd:
        page = await qd.completed_tasks(QUEUE, offset=10, limit=2)
        everything = await qd.completed_tasks(QUEUE)
    assert (page.count, page.tasks, page.next) == (3, [], None)
    assert page.previous is not None and page.previous.endswith("limit=2&offset=8")
    assert [t.id for t in everything.tasks] == [12, 11, 10] and everything.next is None


async def test_iter_completed_pages_without_the_queuedesk_bound(original: OriginalService) -> None:
    async with connect(original) as qd:
        pages = [p async for p in qd.completed_pages(QUEUE, page_size=2)]
        ids = [t.id async for t in qd.iter_completed(QUEUE, page_size=2)]
    assert [[t.id for t in p.tasks] for p in pages] == [[12, 11], [10]]
    assert ids == [12, 11, 10]
    asked = requests_to(original, r"/tasks/completed$")
    assert [(s.query["offset"], s.query["limit"]) for s in asked] == [(["0"], ["2"]), (["2"], ["2"])] * 2
    assert all("end_date" not in s.query for s in asked)  # no QueueDesk-only filter is added


async def test_flush_on_the_workflows_spelling(original: OriginalService) -> None:
    async with connect(original) as qd:
        assert await qd.flush(QUEUE) is None
        assert (await qd.queue(QUEUE)).n_tasks == 0
    (flush,) = requests_to(original, r"/flush$")
    assert (flush.method, flush.path, flush.status) == ("PUT", "/orgs/1/workflows/7/flush", 200)


async def test_webhook_read_and_set_with_201_200_and_204(original: OriginalService) -> None:
    async with connect(original) as qd:
        assert (await qd.webhook(QUEUE)).target == ""
        await qd.set_webhook(QUEUE, "http://127.0.0.1:9000/hook")  # 201: created
        hook = await qd.webhook(QUEUE)
        assert hook.target == "http://127.0.0.1:9000/hook"
        assert hook.model_extra == {"user": 3, "event": "task.completed", "workflow": 7, "id": 5}
        assert (await qd.queue(QUEUE)).model_extra["webhook"] == {"target": "http://127.0.0.1:9000/hook"}
        await qd.set_webhook(QUEUE, "https://example.com/other")  # 200: changed
        assert (await qd.webhook(QUEUE)).target == "https://example.com/other"
        await qd.set_webhook(QUEUE, None)  # 204, empty
        assert (await qd.webhook(QUEUE)).target == ""
        await qd.set_webhook(QUEUE, "")  # 204 with the odd 19-byte body
        assert (await qd.webhook(QUEUE)).target == ""
    writes = [s for s in requests_to(original, r"/webhook$") if s.method != "GET"]
    assert [(s.method, s.status) for s in writes] == [("PUT", 201), ("PUT", 200), ("PUT", 204), ("PUT", 204)]
    assert [s.body for s in writes][2:] == [{"target": ""}, {"target": ""}]
    assert {s.path for s in requests_to(original, r"/webhook$")} == {"/orgs/1/workflows/7/webhook"}


async def test_remove_webhook_falls_back_to_an_empty_target(original: OriginalService) -> None:
    async with connect(original) as qd:
        await qd.set_webhook(QUEUE, "http://localhost:8080/hook")
        assert await qd.remove_webhook(QUEUE) is None
        assert (await qd.webhook(QUEUE)).target == ""
        assert await qd.remove_webhook(QUEUE) is None  # none set: 204 with a body, still fine
        assert [q.id for q in await qd.queues()] == [7, 8]  # and the client goes on working
    writes = [s for s in requests_to(original, r"/webhook$") if s.method != "GET"]
    assert [(s.method, s.body, s.status) for s in writes[1:]] == [
        ("PUT", {"target": ""}, 204),
        ("PUT", {"target": ""}, 204),
    ]
    assert not [s for s in original.seen if s.method == "DELETE"]


# --- Part B is refused before anything is sent -----------------------------------------------------

PART_B = [
    ("pending_tasks", (QUEUE,), "Listing pending tasks of queue 7"),
    ("task", (QUEUE, 11), "Reading task 11"),
    ("claim_next", (QUEUE,), "Claiming work in queue 7"),
    ("heartbeat", (QUEUE, 11), "Extending the lease on task 11"),
    ("release", (QUEUE, 11, {"paragraph": "draft"}), "Releasing task 11"),
    ("complete", (QUEUE, 11, {"category": "red"}), "Completing task 11"),
    ("import_tasks", (QUEUE, [{"paragraph": "a"}]), "Importing 1 task into queue 7"),
    ("webhook_secret", (QUEUE,), "Reading the webhook secret of queue 7"),
    ("rotate_webhook_secret", (QUEUE,), "Rotating the webhook secret of queue 7"),
    ("deliveries", (QUEUE,), "Listing webhook deliveries of queue 7"),
    ("delivery", (QUEUE, 5), "Reading webhook delivery 5"),
    ("redeliver", (QUEUE, 5), "Redelivering webhook delivery 5"),
    ("create_queue", ("New", [{"id": "t", "name": "T", "type": "text"}]), "Creating queue 'New'"),
    ("update_queue", (QUEUE,), "Changing queue 7"),
]


@pytest.mark.parametrize(("method", "args", "what"), PART_B, ids=[m for m, _, _ in PART_B])
async def test_extensions_raise_not_supported(original: OriginalService, method, args, what) -> None:
    async with connect(original) as qd:
        with pytest.raises(NotSupported) as caught:
            await getattr(qd, method)(*args)
    text = str(caught.value)
    assert text.startswith(what), text
    assert "QueueDesk extension" in text and "only the basic Task Queue API" in text
    assert caught.value.status is None
    assert [s.path for s in original.seen] == ["/me"]  # nothing but the detection was sent


async def test_iter_pending_raises_not_supported(original: OriginalService) -> None:
    async with connect(original) as qd:
        with pytest.raises(NotSupported, match="pending tasks"):
            [t async for t in qd.iter_pending(QUEUE)]
    assert [s.path for s in original.seen] == ["/me"]


# --- errors without `code` -----------------------------------------------------------------------------


async def test_bad_or_missing_token_is_an_authentication_error(original: OriginalService) -> None:
    async with connect(original, token="0" * 40) as qd:
        with pytest.raises(AuthenticationError) as caught:
            await qd.queues()
    assert (caught.value.status, caught.value.code) == (401, None)
    assert "Listing queues failed: Invalid token." in str(caught.value) and "QUEUEDESK_TOKEN" in str(
        caught.value
    )
    async with connect(original, token="") as anonymous:
        with pytest.raises(AuthenticationError, match=r"Authentication credentials were not provided\."):
            await anonymous.completed_tasks(QUEUE)


async def test_another_org_is_forbidden_and_nothing_queue_scoped_is_sent(original: OriginalService) -> None:
    """The original answers a flush of another organization 404 (#20); the client never sends it: the
    organization's list, asked first, is refused (403)."""
    async with connect(original, org=OTHER_ORG) as qd:
        with pytest.raises(Forbidden) as caught:
            await qd.queues()
        assert (caught.value.status, caught.value.code) == (403, None)
        assert "Listing queues failed: You do not have permission to perform this action." in str(
            caught.value
        )
        assert "Check the organization id (2; organization_id, QUEUEDESK_ORG" in str(caught.value)
        assert "--org" not in str(caught.value)  # no flag of the command line in Python
        assert "If the id is right, your role does not allow this; ask an admin." in str(caught.value)
        with pytest.raises(Forbidden):
            await qd.create_task(QUEUE, {"paragraph": "x"})
        with pytest.raises(Forbidden):
            await qd.webhook(QUEUE)
        with pytest.raises(Forbidden) as caught:
            await qd.flush(QUEUE)
    assert "Flushing queue 7 failed: You do not have permission" in str(caught.value)
    assert {s.path for s in requests_to(original, r"^/orgs/")} == {"/orgs/2/workflows"}


async def test_unknown_queue_is_not_found(original: OriginalService) -> None:
    async with connect(original) as qd:
        with pytest.raises(NotFound) as caught:
            await qd.create_task(99, {"paragraph": "x"})
        assert "Creating a task in queue 99 failed: queue 99 is not a queue of organization 1" in str(
            caught.value
        )
        with pytest.raises(NotFound, match=r"Reading queue 99 failed: queue 99 is not a queue of organiz"):
            await qd.queue(99)
        with pytest.raises(NotFound):
            await qd.completed_tasks(99)


async def test_validation_errors_keep_the_servers_message_and_field(original: OriginalService) -> None:
    """What the original refuses (400 "No data", "must be a string", "Invalid url value") the client
    refuses first, with nothing sent; what it does not check keeps the server's message and field."""
    async with connect(original) as qd:
        with pytest.raises(ValidationError) as caught:
            await qd.create_task(QUEUE, {})
        assert (caught.value.status, caught.value.fields) == (None, {"data": caught.value.fields["data"]})
        assert "Creating a task in queue 7: nothing was sent: data: must be a non-empty" in str(caught.value)

        with pytest.raises(ValidationError) as caught:
            await qd.create_task(QUEUE, {"paragraph": 5})
        assert caught.value.fields == {"data.paragraph": "block 'paragraph' (text): must be a string"}

        with pytest.raises(ValidationError) as caught:
            await qd.create_task(QUEUE, {"photo": "not a url"})
        assert set(caught.value.fields) == {"data.photo"} and "not an http(s) URL" in str(caught.value)
        assert not requests_to(original, r"/tasks/create$")

        with pytest.raises(ValidationError) as caught:
            await qd.set_webhook(QUEUE, "http://127.0.0.1:9/x")  # a one-digit port is not a URL to Django
        assert caught.value.fields == {"target": "Enter a valid URL."}
        assert "Setting the webhook of queue 7 failed: target: Enter a valid URL." in str(caught.value)
    assert original.next_id == 101  # nothing was created


# --- issue 11: the further answers of the original, and what the client makes of them --------------

INTAKE = 9  # integer block ids
TAGGING = 10  # a list block and a named-entity block: left out, saved and then 500
RECEIPTS = 11  # multiple_selection and text_sequence: left out, 201
BOXES = 12  # bounding boxes: left out, 500 before the save
ELSEWHERE = 20  # a queue of the other organization
INTAKE_BLOCKS = [
    {"id": 7, "name": "Note", "type": "text", "text": {"placeholder": ""}, "value": None},
    {
        "id": "kind",
        "name": "Kind",
        "type": "single_selection",
        "single_selection": {"options": [{"id": "bug", "name": "Bug"}, {"id": "idea", "name": "Idea"}]},
    },
]
TAGGING_BLOCKS = [
    {"id": "text", "name": "Text", "type": "text", "text": {}, "value": None},
    {"id": "tags", "name": "Tags", "type": "list", "list": {"subtype": "text"}},
    {"id": "ner", "name": "Entities", "type": "named_entity_recognition", "named_entity_recognition": {}},
]
RECEIPTS_BLOCKS = [
    {"id": "receipt", "name": "Receipt", "type": "text", "text": {}, "value": None},
    {
        "id": "labels",
        "name": "Labels",
        "type": "multiple_selection",
        "multiple_selection": {"options": [{"id": "a", "name": "A"}, {"id": "b", "name": "B"}]},
    },
    {"id": "lines", "name": "Lines", "type": "text_sequence", "text_sequence": {}},
]
BOXES_BLOCKS = [
    {"id": "photo", "name": "Photo", "type": "image", "image": {}},
    {"id": "boxes", "name": "Boxes", "type": "bounding_boxes", "bounding_boxes": {}},
]


@pytest.fixture
def further(original: OriginalService) -> OriginalService:
    """The stand-in with the queues the further answers need."""
    original.add_queue(INTAKE, "Intake", INTAKE_BLOCKS)
    original.add_queue(TAGGING, "Tagging", TAGGING_BLOCKS)
    original.add_queue(RECEIPTS, "Receipt checks", RECEIPTS_BLOCKS)
    original.add_queue(BOXES, "Boxes", BOXES_BLOCKS)
    original.add_queue(ELSEWHERE, "Billing", RECEIPTS_BLOCKS, org=OTHER_ORG)
    return original


def fill(original: OriginalService, queue_id: int, n: int) -> list[int]:
    """`n` tasks completed one after the other; their ids, newest first."""
    ids = [original.complete_now(queue_id, {"7": f"note {i}", "kind": "bug"}) for i in range(n)]
    return ids[::-1]


def test_the_stand_in_gives_the_further_answers(further: OriginalService) -> None:
    auth = {"Authorization": f"Token {TOKEN}"}
    with httpx.Client(base_url=further.url, headers=auth) as http:
        detail = http.get(f"/orgs/{ORG}/workflows/{INTAKE}").json()
        assert [b["id"] for b in detail["data"]] == [7, "kind"]  # a JSON number
        fill(further, INTAKE, 1)
        (task,) = http.get(f"/orgs/{ORG}/workflows/{INTAKE}/tasks/completed").json()["tasks"]
        assert list(task["data"]) == ["7", "kind"]  # a string key in data

        completed = f"/orgs/{ORG}/workflows/{QUEUE}/tasks/completed"
        aware = http.get(completed, params={"start_date": "2030-01-01T00:00:00.000000Z"})
        assert aware.status_code == 500 and b"Server Error (500)" in aware.content
        assert http.get(completed, params={"end_date": "2026-11-21T04:41:00+00:00"}).status_code == 500
        assert http.get(completed, params={"start_date": "2026-11-21"}).json()["count"] == 3
        assert http.get(completed, params={"start_date": "2026-11-22"}).json()["count"] == 0
        assert http.get(completed, params={"end_date": "2026-11-20"}).json()["count"] == 0
        assert http.get(completed, params={"end_date": "2026-11-21"}).json()["count"] == 3  # inclusive
        assert http.get(completed, params={"end_date": "last tuesday"}).json()["count"] == 3  # ignored

        anybody = http.get(completed, params={"completed_by": "nobody@acme.test"}).json()
        assert anybody["count"] == 3 and {t["completed_by"] for t in anybody["tasks"]} == {
            "wes@acme.test",
            "ada@acme.test",
        }

        def create(queue_id: int, data: dict[str, Any]) -> httpx.Response:
            return http.post(f"/orgs/{ORG}/workflows/{queue_id}/tasks/create", json={"data": data})

        no_text = {"text": "x", "tags": [], "ner": {}}  # a named-entity value without text: as missing
        for left_out in ({"text": "x", "ner": NO_ENTITIES}, {"text": "x", "tags": []}, no_text):
            saved_then_failed = create(TAGGING, left_out)
            assert saved_then_failed.status_code == 500 and b"Server Error" in saved_then_failed.content
            assert further.created[-1]["data"]["text"] == "x"
        assert further.n_tasks[TAGGING] == 3
        assert create(TAGGING, {"text": "x", "tags": [], "ner": NO_ENTITIES}).status_code == 201
        assert create(RECEIPTS, {"receipt": "x"}).status_code == 201  # list-valued, left out: fine
        assert further.n_tasks[RECEIPTS] == 1
        unsaved = create(BOXES, {"photo": "https://example.com/r.png"})
        assert unsaved.status_code == 500 and further.n_tasks[BOXES] == 0
        number = create(INTAKE, {"7": "a note", "kind": "bug"})
        assert number.status_code == 201 and number.json()["data"] == {"7": None, "kind": "bug"}
        elsewhere = http.post(
            f"/orgs/{ORG}/workflows/{ELSEWHERE}/tasks/create", json={"data": {"receipt": "x"}}
        )
        assert elsewhere.status_code == 201 and further.n_tasks[ELSEWHERE] == 1  # by id alone
        assert ELSEWHERE not in [q["id"] for q in http.get(f"/orgs/{ORG}/workflows").json()]

        unchecked = http.post(
            f"/orgs/{ORG}/workflows/{QUEUE}/tasks/create", json={"data": {"category": "zzz"}}
        )
        assert unchecked.status_code == 201 and unchecked.json()["data"]["category"] == "zzz"
        assert unchecked.json()["source"] == "api"
        bulk = http.post(f"/orgs/{ORG}/workflows/{QUEUE}/tasks/import", json={"source": "x.csv", "tasks": []})
        assert bulk.status_code == 404 and bulk.headers["content-type"].startswith("text/html")

        fill(further, INTAKE, 3)
        further.between_pages = lambda: further.complete_now(INTAKE, {"7": "late"})
        path = f"/orgs/{ORG}/workflows/{INTAKE}/tasks/completed"
        first = http.get(path, params={"limit": 2}).json()["tasks"]
        second = http.get(path, params={"limit": 2, "offset": 2}).json()["tasks"]
        assert second[0]["id"] == first[1]["id"]  # shifted by the completion in between


async def test_integer_block_ids_are_read_as_strings(further: OriginalService) -> None:
    fill(further, INTAKE, 2)
    async with connect(further) as qd:
        detail = await qd.queue(INTAKE)
        assert [(b.id, b.type) for b in detail.data] == [("7", "text"), ("kind", "single_selection")]
        tasks = [t async for t in qd.iter_completed(INTAKE)]
    assert [t.data["7"] for t in tasks] == ["note 1", "note 0"]


async def test_date_time_filters_send_plain_dates_and_are_applied_here(original: OriginalService) -> None:
    since = datetime(2026, 11, 21, 4, 41, tzinfo=UTC)
    async with connect(original) as qd:
        after = await qd.completed_tasks(QUEUE, start_date=since)
        assert (after.count, [t.id for t in after.tasks]) == (2, [12, 11])
        before = await qd.completed_tasks(QUEUE, end_date="2026-11-21T04:41:00Z")
        assert (before.count, [t.id for t in before.tasks]) == (1, [10])
        naive = await qd.completed_tasks(QUEUE, start_date=datetime(2026, 11, 21, 4, 41, 10))  # read as UTC
        assert [t.id for t in naive.tasks] == [12]
        next_day = await qd.completed_tasks(QUEUE, start_date=date(2026, 11, 22))
        assert (next_day.count, next_day.tasks) == (0, [])
        that_day = await qd.completed_tasks(QUEUE, start_date="2026-11-21", end_date=date(2026, 11, 21))
        assert that_day.count == 3
        walked = [t.id async for t in qd.iter_completed(QUEUE, page_size=1, start_date=since)]
        assert walked == [12, 11]
        with pytest.raises(ValueError, match="start_date: 'yesterday' is not an ISO 8601 date"):
            await qd.completed_tasks(QUEUE, start_date="yesterday")
    sent = [s.query for s in requests_to(original, r"/tasks/completed$")]
    assert sent and all(s.status == 200 for s in requests_to(original, r"/tasks/completed$"))
    dates = [v for q in sent for k in ("start_date", "end_date") for v in q.get(k, [])]
    assert dates and all(re.fullmatch(r"\d{4}-\d\d-\d\d", v) for v in dates), dates
    assert sent[0]["start_date"] == ["2026-11-20"]  # a day wider, in case its days are not UTC's


async def test_completed_by_is_applied_here(original: OriginalService) -> None:
    async with connect(original) as qd:
        wes = await qd.completed_tasks(QUEUE, completed_by="wes@acme.test")
        assert (wes.count, [t.id for t in wes.tasks]) == (2, [12, 10])
        second = await qd.completed_tasks(QUEUE, completed_by="WES@acme.test", offset=1, limit=1)
        assert (second.count, [t.id for t in second.tasks]) == (2, [10])
        assert second.next is None and second.previous is not None and "offset=0" in second.previous
        first = await qd.completed_tasks(QUEUE, completed_by="wes@acme.test", limit=1)
        assert first.next is not None and "completed_by=wes%40acme.test" in first.next
        ada = [t.id async for t in qd.iter_completed(QUEUE, page_size=2, completed_by="ada@acme.test")]
        assert ada == [11]
        nobody = await qd.completed_tasks(QUEUE, completed_by="nobody@acme.test")
        assert (nobody.count, nobody.tasks) == (0, [])
        before = len(original.seen)
        with pytest.raises(NotSupported, match="completed_by='me' needs a QueueDesk server"):
            await qd.completed_tasks(QUEUE, completed_by="me")
        with pytest.raises(NotSupported):
            [t async for t in qd.iter_completed(QUEUE, completed_by="me")]
        assert len(original.seen) == before  # refused before asking


async def test_a_walk_gives_each_task_once_while_tasks_complete(further: OriginalService) -> None:
    expected = fill(further, INTAKE, 25)
    late: list[int] = []
    further.between_pages = lambda: late.append(further.complete_now(INTAKE, {"7": "late"}))
    async with connect(further) as qd:
        seen = [t.id async for t in qd.iter_completed(INTAKE, page_size=5)]
    assert seen == expected
    assert late and not set(late) & set(seen)
    pages = requests_to(further, r"/tasks/completed$")
    assert len(pages) > 5  # the completions pushed tasks onto a sixth page: repeats were dropped


async def test_health_on_the_original_is_not_supported(original: OriginalService) -> None:
    async with connect(original) as qd:
        with pytest.raises(NotSupported) as caught:
            await qd.health()
    assert "the server has no /healthz" in str(caught.value)
    assert "Check the organization" not in str(caught.value)


async def test_the_client_refuses_what_the_original_fails_on_and_nothing_else(
    further: OriginalService,
) -> None:
    async with connect(further) as qd:
        with pytest.raises(ValidationError) as caught:
            await qd.create_task(TAGGING, {"text": "no tags"})
        assert set(caught.value.fields) == {"data.tags", "data.ner"}
        assert "nothing was sent" in str(caught.value) and "saves the task and then fails" in str(
            caught.value
        )
        with pytest.raises(ValidationError) as caught:
            await qd.create_task(BOXES, {"photo": "https://example.com/r.png"})
        assert set(caught.value.fields) == {"data.boxes"} and "{} for none" in str(caught.value)
        with pytest.raises(ValidationError) as caught:
            await qd.create_task(INTAKE, {"7": "a note", "kind": "bug"})
        assert set(caught.value.fields) == {"data.7"} and "as a number" in str(caught.value)
        assert further.creates == 0  # nothing was sent
        receipt = await qd.create_task(RECEIPTS, {"receipt": "x"})  # the original answers 201
        tagged = await qd.create_task(TAGGING, {"text": "x", "tags": [], "ner": NO_ENTITIES})
        with pytest.raises(ValidationError) as caught:
            await qd.create_task(TAGGING, {"text": "x", "tags": [], "ner": {}})
        assert set(caught.value.fields) == {"data.ner"} and "needs 'text'" in str(caught.value)
        kind_only = await qd.create_task(INTAKE, {"kind": "bug"})
    assert [receipt.data["receipt"], tagged.data["tags"], kind_only.data["kind"]] == ["x", [], "bug"]
    assert further.creates == 3


async def test_the_client_refuses_another_organizations_queue(further: OriginalService) -> None:
    async with connect(further) as qd:
        with pytest.raises(NotFound) as caught:
            await qd.create_task(ELSEWHERE, {"receipt": "x"})
    assert "queue 20 is not a queue of organization 1" in str(caught.value)
    assert further.creates == 0 and further.n_tasks[ELSEWHERE] == 0


@pytest.mark.parametrize("saved", [True, False], ids=["saved", "not-saved"])
async def test_a_failed_create_says_whether_the_task_was_probably_saved(
    further: OriginalService, saved: bool
) -> None:
    if saved:
        further.fail_after_save = {1}
    else:
        further.fail_creates = {1}
    async with connect(further) as qd:
        with pytest.raises(ServerError) as caught:
            await qd.create_task(RECEIPTS, {"receipt": "x"})
    assert caught.value.probably_saved is saved
    said = str(caught.value)
    assert ("probably saved anyway" in said) is saved and ("probably not saved" in said) is not saved
    assert len(requests_to(further, r"/tasks/create$")) == 1  # never retried


# --- issue 11: the command line against the original ---------------------------------------------


@dataclass(frozen=True)
class Ran:
    code: int
    out: str
    err: str

    def __repr__(self) -> str:
        return f"exit {self.code}\nstdout: {self.out[-2000:]}\nstderr: {self.err[-2000:]}"


def cli(original: OriginalService, *args: str, **env: str | None) -> Ran:
    """`queuedesk ARGS` in a process of its own, connected to the stand-in through the environment."""
    done = subprocess.run(
        [*queuedesk_command(), *args],
        capture_output=True,
        text=True,
        env=cli_environment(original, **env),
        timeout=60,
    )
    return Ran(done.returncode, done.stdout, done.stderr)


def cli_environment(original: OriginalService, **env: str | None) -> dict[str, str]:
    """The environment of a `queuedesk` process that talks to the stand-in."""
    settings = {"QUEUEDESK_URL": original.url, "QUEUEDESK_TOKEN": TOKEN, "QUEUEDESK_ORG": str(ORG)}
    settings.update(env)
    environ = {k: v for k, v in os.environ.items() if not k.startswith("QUEUEDESK_")}
    environ.update({k: v for k, v in settings.items() if v is not None})
    environ["QUEUEDESK_CONFIG"] = str(NO_CONFIG)
    return environ


def write_rows(path: Path, header: list[str], rows: list[list[str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def test_cli_import_refuses_a_left_out_list_block_before_sending(further: OriginalService, tmp_path) -> None:
    header = ["text", "tags", "ner"]
    ner = json.dumps(NO_ENTITIES)
    path = write_rows(
        tmp_path / "tags.csv", header, [["one", "a", ner], ["two", "", ner], ["three", "[]", ner]]
    )
    result = cli(further, "import", "Tagging", str(path))
    assert result.code == 2, result
    assert "nothing was imported" in result.err and "row 2 (line 3): tags:" in result.err
    assert "[] for none" in result.err and "row 1 " not in result.err and "row 3 " not in result.err
    no_ner = write_rows(tmp_path / "no-ner.csv", ["text", "tags"], [["one", "[]"]])
    missing = cli(further, "import", "Tagging", str(no_ner))
    assert missing.code == 2 and "row 1 (line 2): ner:" in missing.err, missing
    single = cli(
        further, "tasks", "create", "Tagging", "--data", json.dumps({"text": "no tags", "ner": NO_ENTITIES})
    )
    assert single.code == 2 and "nothing was sent" in single.err and "tags" in single.err, single
    assert further.creates == 0 and further.n_tasks[TAGGING] == 0


def test_cli_creates_what_the_original_takes_with_list_blocks_left_out(further: OriginalService) -> None:
    result = cli(further, "tasks", "create", "Receipt checks", "--data", '{"receipt": "x"}')
    assert result.code == 0, result
    assert result.out.strip() == "Created task 101 in queue 11 'Receipt checks'."


def test_cli_tasks_create_checks_the_blocks_as_import_does(further: OriginalService) -> None:
    unknown = cli(further, "tasks", "create", "Receipt checks", "--data", '{"receipt": "x", "recipt": "y"}')
    assert (
        unknown.code == 2 and "nothing was sent" in unknown.err and "'recipt' is not a block" in unknown.err
    )
    option = cli(further, "tasks", "create", str(QUEUE), "--data", '{"category": "zzz"}')
    assert option.code == 2 and "category" in option.err and "zzz" in option.err, option
    number = cli(further, "tasks", "create", "Intake", "--data", '{"7": "a note", "kind": "bug"}')
    assert number.code == 2 and "7: this server keeps the block's id as a number" in number.err, number
    assert further.creates == 0


def test_cli_import_stops_names_the_rows_created_and_resumes(further: OriginalService, tmp_path) -> None:
    rows = [[f"note {n}", '["a"]' if n % 2 else '["b"]'] for n in range(1, 7)]
    path = write_rows(tmp_path / "receipts.csv", ["receipt", "labels"], rows)
    further.fail_creates = {4}  # the fourth create fails, unforeseeably
    result = cli(further, "import", str(RECEIPTS), str(path))
    assert result.code == 8, result
    assert "stopped at row 4 (line 5)" in result.err
    assert "created before it: 3 tasks: rows 1-3 → ids 101-103" in result.err
    assert "not created: row 4 and every row after it" in result.err
    assert "row 4 was probably not created (the queue's count did not change)" in result.err
    assert "--start-row 4" in result.err
    assert [t["data"]["receipt"] for t in further.created] == ["note 1", "note 2", "note 3"]

    resumed = cli(further, "import", str(RECEIPTS), str(path), "--start-row", "4", "--json")
    assert resumed.code == 0, resumed
    assert json.loads(resumed.out) == {
        "queue_id": RECEIPTS,
        "created": 3,
        "ids": [104, 105, 106],
        "source": "api",
    }
    assert [t["data"]["receipt"] for t in further.created] == [f"note {n}" for n in range(1, 7)]
    assert [t["data"]["labels"] for t in further.created] == [json.loads(r[1]) for r in rows]


def test_cli_import_reports_a_stop_as_json_too(further: OriginalService, tmp_path) -> None:
    path = write_rows(tmp_path / "receipts.csv", ["receipt"], [["a"], ["b"], ["c"]])
    further.fail_creates = {3}
    result = cli(further, "import", "Receipt checks", str(path), "--json")
    assert result.code == 8, result
    assert json.loads(result.out) == {
        "created": 2,
        "rows": [1, 2],
        "ids": [101, 102],
        "failed_row": 3,
        "failed_line": 4,
        "error": json.loads(result.out)["error"],
        "maybe_created": False,  # the queue's count did not change
        "start_row": 3,
    }
    assert "Server Error (500)" in json.loads(result.out)["error"]
    first = cli(further, "import", "Receipt checks", str(path), "--start-row", "9")
    assert first.code == 2 and "no rows to import from row 9 on (it has 3)" in first.err, first


def test_cli_import_says_the_tasks_get_source_api(further: OriginalService, tmp_path) -> None:
    path = write_rows(tmp_path / "receipts.csv", ["receipt", "labels"], [["x", "a"], ["y", ""]])
    result = cli(further, "import", "Receipt checks", str(path))
    assert result.code == 0, result
    assert "has no bulk import" in result.err and "source 'api' (not 'receipts.csv')" in result.err
    assert result.out.strip() == "Imported 2 tasks into queue 11 'Receipt checks' (ids 101-102)."
    assert {t["source"] for t in further.created} == {"api"}


def test_cli_export_reads_integer_block_ids_and_writes_the_contracts_timestamps(
    further: OriginalService, tmp_path
) -> None:
    fill(further, INTAKE, 3)
    as_csv = cli(further, "export", "Intake")
    assert as_csv.code == 0, as_csv
    header, *rows = list(csv.reader(as_csv.out.splitlines()))
    assert header == ["id", "status", "created_at", "completed_at", "completed_by", "source", "7", "kind"]
    assert [r[6] for r in rows] == ["note 2", "note 1", "note 0"]
    recorded = cli(further, "export", str(QUEUE), "--page-size", "2")
    assert recorded.code == 0, recorded
    stamps = [cell for row in list(csv.reader(recorded.out.splitlines()))[1:] for cell in row[2:4]]
    lines = cli(further, "export", str(QUEUE), "--format", "jsonl")
    assert lines.code == 0, lines
    stamps += [t[k] for t in map(json.loads, lines.out.splitlines()) for k in ("created_at", "completed_at")]
    assert len(stamps) == 12
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", s) for s in stamps), stamps
    assert "2026-11-21T04:41:49.391000Z" in stamps  # the original's 3 digits, in the contract's form


def test_cli_export_gives_each_task_once_and_says_how_many(further: OriginalService) -> None:
    fill(further, INTAKE, 22)
    further.between_pages = lambda: further.complete_now(INTAKE, {"7": "late"})
    result = cli(further, "export", "Intake", "--format", "jsonl", "--page-size", "5")
    assert result.code == 0, result
    ids = [json.loads(line)["id"] for line in result.out.splitlines()]
    assert len(ids) == len(set(ids)) == 22
    assert result.err.strip() == "Exported 22 completed tasks of queue 9 'Intake'."


def test_cli_export_filters_by_date_time_and_worker(original: OriginalService) -> None:
    result = cli(
        original, "export", "Categorization", "--format", "jsonl", "--completed-by", "wes@acme.test",
        "--start-date", "2026-11-21T04:40:00Z",
    )  # fmt: skip
    assert result.code == 0, result
    assert [json.loads(line)["id"] for line in result.out.splitlines()] == [12, 10]
    assert all(s.status == 200 for s in requests_to(original, r"/tasks/completed$"))
    mine = cli(original, "export", "Categorization", "--completed-by", "me")
    assert mine.code == 7 and "give the email address" in mine.err, mine


def test_cli_wrong_organization_says_to_check_the_organization_id(original: OriginalService) -> None:
    result = cli(original, "queues", QUEUEDESK_ORG=str(OTHER_ORG))
    assert result.code == 3, result
    assert "Check the organization id (2; --org, QUEUEDESK_ORG" in result.err


@pytest.mark.parametrize("org", [None, ""], ids=["unset", "empty"])
def test_cli_without_an_organization_names_the_option_and_the_variable(
    original: OriginalService, org
) -> None:
    result = cli(original, "queues", QUEUEDESK_ORG=org)
    assert result.code == 2, result
    assert "--org" in result.err and "QUEUEDESK_ORG" in result.err
    assert "organization_id" not in result.err.split("(")[0]
    assert not requests_to(original, r"^/orgs/")


def test_cli_without_a_url_names_the_option_and_the_variable(original: OriginalService) -> None:
    result = cli(original, "queues", QUEUEDESK_URL="")
    assert result.code == 2, result
    assert "--url" in result.err and "QUEUEDESK_URL" in result.err and "base_url" not in result.err


# --- issue 30: errors from the original said as a person reads them --------------------------------


async def test_an_html_answer_is_said_by_its_title(further: OriginalService) -> None:
    further.fail_creates = {1}
    async with connect(further) as qd:
        with pytest.raises(ServerError) as caught:
            await qd.create_task(RECEIPTS, {"receipt": "x"})
    said = str(caught.value)
    assert "the server answered 500 with a web page (Server Error (500))" in said
    assert "<" not in said and "doctype" not in said


async def test_a_wrong_address_is_named_as_one(original: OriginalService) -> None:
    async with QueueDeskClient(original.url + "/api", TOKEN, ORG) as qd:
        with pytest.raises(NotFound) as caught:
            await qd.queues()
    assert type(caught.value).__name__ == "WrongAddress"  # the app advises on it apart
    said = str(caught.value)
    assert "Check the server URL" in said and "without /api" in said
    assert "organization, queue and task ids" not in said and "<" not in said
    result = cli(original, "queues", QUEUEDESK_URL=original.url + "/api")
    assert result.code == 4 and "Check the server URL" in result.err and "ids" not in result.err, result


async def test_https_to_a_plain_http_port_names_the_cause(original: OriginalService) -> None:
    async with QueueDeskClient(original.url.replace("http://", "https://"), TOKEN, ORG) as qd:
        with pytest.raises(ConnectionFailed) as caught:
            await qd.queues()
    said = str(caught.value)
    assert f"127.0.0.1:{original.port}" in said and "plain HTTP" in said and "http://, not https://" in said
    assert "timeout" not in said


async def test_https_to_a_plain_port_that_waits_for_the_request_line_is_named_quickly() -> None:
    """Like gunicorn's workers: the ClientHello is read as the start of a request line and waited on."""
    held: list[asyncio.StreamWriter] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        first = await reader.read(1)
        if first == b"\x16":  # a TLS record: wait for the rest of a line that never comes
            held.append(writer)
            return
        writer.write(b"HTTP/1.0 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        async with QueueDeskClient(f"https://127.0.0.1:{port}", TOKEN, ORG, timeout=120) as qd:
            with pytest.raises(ConnectionFailed) as caught:
                await qd.queues()
    finally:
        for writer in held:
            writer.close()
        server.close()
    assert f"127.0.0.1:{port} speaks plain HTTP" in str(caught.value)


def test_cli_queue_show_from_the_original_is_read_back_by_queue_create(
    original: OriginalService, tmp_path
) -> None:
    blocks = [
        {
            "id": "note",
            "name": "Note",
            "type": "text",
            "text": {"placeholder": "", "value": None},
            "value": None,
        },
        {"id": "photo", "name": "Photo", "type": "image", "image": {"placeholder": "", "read_only": True}},
    ]
    original.add_queue(13, "Photos", blocks, description="Check each photo")
    for kind in ("json", "toml"):
        path = tmp_path / f"photos.{kind}"
        shown = cli(original, "queue", "show", "Photos", "--format", kind, "-o", str(path))
        assert shown.code == 0, shown
        assert (
            "left out what a QueueDesk queue does not have: blocks[1] ('photo').image.read_only" in shown.err
        )
        read = load_queue_file(path, for_create=True)  # what `queue create` reads; raises when it cannot
        assert (read.name, read.description) == ("Photos", "Check each photo")
        assert [b.id for b in read.blocks or []] == ["note", "photo"]


# --- issue 30: the small ones --------------------------------------------------------------------


@pytest.mark.parametrize(("offset", "limit"), [(0, 0), (0, 5000), (-1, 10)])
async def test_the_client_refuses_a_page_no_server_gives_as_asked(
    original: OriginalService, offset: int, limit: int
) -> None:
    async with connect(original) as qd:
        with pytest.raises(ValueError, match=r"limit must be 1-1000|offset must be 0 or more"):
            await qd.completed_tasks(QUEUE, offset=offset, limit=limit)
    assert not requests_to(original, r"/tasks/completed$")


def test_cli_webhook_refuses_what_the_app_refuses(original: OriginalService) -> None:
    result = cli(original, "webhook", "set", str(QUEUE), "ftp://files.example.com/in")
    assert result.code == 2 and "only http:// and https:// targets" in result.err, result
    assert not requests_to(original, r"/webhook$")


def test_cli_export_refused_writes_nothing_not_even_the_header(original: OriginalService) -> None:
    original.forbid_completed = True
    result = cli(original, "export", str(QUEUE))
    assert result.code == 3, result
    assert result.out == ""


def test_cli_export_refuses_a_start_after_the_end(original: OriginalService) -> None:
    result = cli(original, "export", str(QUEUE), "--start-date", "2026-11-22", "--end-date", "2026-11-21")
    assert result.code == 2 and "--start-date (2026-11-22) is after --end-date (2026-11-21)" in result.err
    assert not requests_to(original, r"/tasks/completed$")
    same_day = cli(original, "export", str(QUEUE), "--start-date", "2026-11-21", "--end-date", "2026-11-21")
    assert same_day.code == 0, same_day


def test_cli_import_help_says_what_the_source_is_on_each_server(original: OriginalService) -> None:
    result = cli(original, "import", "--help")
    assert result.code == 0
    said = " ".join(result.out.split())
    assert "its name becomes the tasks' source" in said and "records 'api'" in said
