"""The client and the command line against the original service, round 3: never across
organizations, never a value the original stores and then cannot serve.

The stand-in is `test_original_service.OriginalService`, answering as version 1.0.51 was seen to on
2026-12-07 (../shared/reference/original-service.md, "Observed again"): the webhook routes find a
queue by its id alone, a list holding objects is stored and then breaks every completed page holding
it, an entity is `{"start", "end", "category"}` (`label` is a 400), a named-entity value may be a
plain string.
"""

import asyncio
import gc
import json
import re
import signal
import socket
import subprocess
import threading
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest

from queuedesk.api import entities, plain_port, setting_names
from queuedesk.api.client import QueueDeskClient
from queuedesk.api.errors import ConnectionFailed, NotConfigured, NotFound, QueueDeskError, ValidationError
from tests.api.test_original_service import (
    ELSEWHERE,
    ORG,
    OTHER_ORG,
    PART_B,
    QUEUE,
    RECEIPTS,
    TAGGING,
    TOKEN,
    OriginalService,
    cli,
    cli_environment,
    connect,
    requests_to,
    write_rows,
)
from tests.support import queuedesk_command

NER = {"text": "Ada Lovelace wrote it", "entities": [{"start": 0, "end": 12, "category": "PER"}]}
OBJECTS = [{"a": 1}]
THEIR_HOOK = "https://org2.example/hook"

Call = Callable[[QueueDeskClient], Awaitable[Any]]


async def _walk(qd: QueueDeskClient) -> None:
    async for _page in qd.completed_pages(ELSEWHERE):
        pass


QUEUE_SCOPED: dict[str, Call] = {
    "webhook": lambda qd: qd.webhook(ELSEWHERE),
    "set_webhook": lambda qd: qd.set_webhook(ELSEWHERE, "https://mine.example/hook"),
    "set_webhook-empty": lambda qd: qd.set_webhook(ELSEWHERE, ""),
    "remove_webhook": lambda qd: qd.remove_webhook(ELSEWHERE),
    "create_task": lambda qd: qd.create_task(ELSEWHERE, {"receipt": "x"}),
    "completed_tasks": lambda qd: qd.completed_tasks(ELSEWHERE),
    "completed_pages": _walk,
    "flush": lambda qd: qd.flush(ELSEWHERE),
    "queue": lambda qd: qd.queue(ELSEWHERE),
}


def test_the_stand_in_answers_as_observed_in_round_3(further: OriginalService) -> None:
    further.hooks[ELSEWHERE] = THEIR_HOOK
    auth = {"Authorization": f"Token {TOKEN}"}
    with httpx.Client(base_url=further.url, headers=auth) as http:
        hook = f"/orgs/{ORG}/workflows/{ELSEWHERE}/webhook"
        assert http.get(hook).json()["target"] == THEIR_HOOK  # organization 2's, read with 1's key
        assert http.put(hook, json={"target": "https://mine.example/x"}).status_code == 200
        assert further.hooks[ELSEWHERE] == "https://mine.example/x"

        def create(data: dict[str, Any]) -> httpx.Response:
            return http.post(f"/orgs/{ORG}/workflows/{TAGGING}/tasks/create", json={"data": data})

        labelled = {"text": "Ada", "entities": [{"start": 0, "end": 3, "label": "PER"}]}
        refused = create({"text": "x", "tags": [], "ner": labelled})
        assert refused.status_code == 400
        assert "missing one or more properties" in refused.json()["errors"][0]["message"]
        assert create({"text": "x", "tags": [], "ner": NER}).status_code == 201
        assert create({"text": "x", "tags": [], "ner": "Ada"}).status_code == 201
        stored = create({"text": "x", "tags": OBJECTS, "ner": NER})
        assert stored.status_code == 201
        further.complete_now(TAGGING, stored.json()["data"])
        completed = http.get(f"/orgs/{ORG}/workflows/{TAGGING}/tasks/completed")
        assert completed.status_code == 500  # and stays so while the task is on the page


@pytest.mark.parametrize("call", list(QUEUE_SCOPED.values()), ids=list(QUEUE_SCOPED))
async def test_every_queue_scoped_call_refuses_another_organizations_queue(
    further: OriginalService, call: Call
) -> None:
    further.hooks[ELSEWHERE] = THEIR_HOOK
    async with connect(further) as qd:
        with pytest.raises(NotFound) as caught:
            await call(qd)
    assert f"queue {ELSEWHERE} is not a queue of organization {ORG}" in str(caught.value)
    assert "nothing was sent" in str(caught.value)
    assert not requests_to(further, rf"/{ELSEWHERE}(/|$)")  # nothing reached the other queue
    assert further.hooks[ELSEWHERE] == THEIR_HOOK and further.n_tasks[ELSEWHERE] == 0


async def test_the_organizations_own_queue_is_listed_once_then_trusted(further: OriginalService) -> None:
    async with connect(further) as qd:
        await qd.webhook(QUEUE)
        await qd.set_webhook(QUEUE, "https://hooks.example/in")
        await qd.completed_tasks(QUEUE)
    assert len(requests_to(further, rf"^/orgs/{ORG}/workflows$")) == 1


def test_cli_webhook_of_another_organizations_queue_is_refused(further: OriginalService) -> None:
    further.hooks[ELSEWHERE] = THEIR_HOOK
    result = cli(further, "webhook", "set", str(ELSEWHERE), "https://mine.example/hook")
    assert result.code == 4, result
    assert further.hooks[ELSEWHERE] == THEIR_HOOK


async def test_a_list_of_objects_is_refused_before_it_breaks_the_history(further: OriginalService) -> None:
    async with connect(further) as qd:
        with pytest.raises(ValidationError) as caught:
            await qd.create_task(TAGGING, {"text": "x", "tags": OBJECTS, "ner": NER})
        assert set(caught.value.fields) == {"data.tags"}
        assert "only strings and numbers in a list" in str(caught.value)
        assert "every page of completed tasks holding it fails" in str(caught.value)
        kept = await qd.create_task(TAGGING, {"text": "x", "tags": ["a", 2], "ner": NER})
    assert kept.data["tags"] == ["a", 2]
    assert further.creates == 1
    single = cli(further, "tasks", "create", "Tagging", "--data", '{"text": "x", "tags": [{"a": 1}]}')
    assert single.code == 2 and "only strings and numbers in a list" in single.err, single
    assert further.creates == 1


def test_cli_import_refuses_a_list_of_objects(further: OriginalService, tmp_path) -> None:
    path = write_rows(
        tmp_path / "tags.csv",
        ["text", "tags", "ner"],
        [["one", '["a"]', json.dumps(NER)], ["two", '[{"a": 1}]', json.dumps(NER)]],
    )
    result = cli(further, "import", "Tagging", str(path))
    assert result.code == 2, result
    assert "row 2 (line 3): tags: this server takes only strings and numbers" in result.err
    assert further.creates == 0


async def test_entities_as_the_original_takes_them_are_sent(further: OriginalService) -> None:
    async with connect(further) as qd:
        marked = await qd.create_task(TAGGING, {"text": "x", "tags": [], "ner": NER})
        plain = await qd.create_task(TAGGING, {"text": "x", "tags": [], "ner": "Ada Lovelace"})
        labelled = {"text": "Ada", "entities": [{"start": 0, "end": 3, "label": "PER"}]}
        renamed = await qd.create_task(TAGGING, {"text": "x", "tags": [], "ner": labelled})
        unlabelled = {"text": "Ada", "entities": [{"start": 0, "end": 3}]}
        with pytest.raises(ValidationError) as caught:
            await qd.create_task(TAGGING, {"text": "x", "tags": [], "ner": unlabelled})
    assert marked.data["ner"] == NER and plain.data["ner"] == "Ada Lovelace"
    assert renamed.data["ner"]["entities"] == [{"start": 0, "end": 3, "category": "PER"}]  # as it takes it
    said = str(caught.value)
    assert "entity 1 needs 'category'" in said and "None" not in said
    assert further.creates == 3
    by_cli = cli(further, "tasks", "create", "Tagging", "--data", f'{{"tags": [], "ner": {_json(NER)}}}')
    assert by_cli.code == 0, by_cli
    assert further.creates == 4


def _json(value: Any) -> str:
    return json.dumps(value)


async def test_the_python_client_checks_as_the_command_line_does(further: OriginalService) -> None:
    async with connect(further) as qd:
        with pytest.raises(ValidationError) as option:
            await qd.create_task(QUEUE, {"category": "zzz"})
        with pytest.raises(ValidationError) as unknown:
            await qd.create_task(11, {"receipt": "x", "recipt": "y"})
        with pytest.raises(ValidationError) as ftp:
            await qd.set_webhook(QUEUE, "ftp://files.example.com/in")
    assert "'zzz' is not an option" in str(option.value)
    assert "'recipt' is not a block" in str(unknown.value)
    assert "only http:// and https:// targets" in str(ftp.value) and ftp.value.fields == {
        "target": ftp.value.fields["target"]
    }
    assert further.creates == 0 and not requests_to(further, r"/webhook$")


WRONG: dict[str, Callable[[OriginalService, setting_names.SettingNames], QueueDeskClient]] = {
    "key": lambda o, n: QueueDeskClient(o.url, "0" * 40, ORG, setting_names=n),
    "organization": lambda o, n: QueueDeskClient(o.url, TOKEN, OTHER_ORG, setting_names=n),
    "address": lambda o, n: QueueDeskClient(o.url + "/api", TOKEN, ORG, setting_names=n),
    "no organization": lambda o, n: QueueDeskClient(o.url, TOKEN, None, setting_names=n),
}
FLAGS = ("--url", "--token", "--org")


@pytest.mark.parametrize("wrong", list(WRONG))
@pytest.mark.parametrize("caller", ["PYTHON", "APP", "COMMAND_LINE"])
async def test_messages_name_the_settings_as_their_caller_does(
    original: OriginalService, wrong: str, caller: str
) -> None:
    names = getattr(setting_names, caller)
    async with WRONG[wrong](original, names) as qd:
        with pytest.raises(QueueDeskError) as caught:
            await qd.queues()
    said = str(caught.value)
    flags = [flag for flag in FLAGS if flag in said]
    if caller == "COMMAND_LINE":
        assert flags, said
    else:
        assert not flags, said
    if caller == "PYTHON" and isinstance(caught.value, NotConfigured):
        assert "organization_id" in said


@pytest.mark.parametrize("saved", [True, False], ids=["in-flight-saved", "in-flight-not-saved"])
def test_an_interrupted_import_says_where_to_resume_and_resuming_makes_each_row_once(
    further: OriginalService, tmp_path, saved: bool
) -> None:
    """Ctrl-C while row 4 is being created (held by the stand-in until the signal was sent)."""
    path = write_rows(tmp_path / "receipts.csv", ["receipt"], [[f"note {n}"] for n in range(1, 7)])
    arrived, release = threading.Event(), threading.Event()

    def hold(create: int) -> None:
        if create == 4:
            arrived.set()
            release.wait(60)

    further.on_create = hold
    if not saved:
        further.fail_creates = {4}
    running = subprocess.Popen(
        [*queuedesk_command(), "import", str(RECEIPTS), str(path)],
        env=cli_environment(further),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert arrived.wait(60), "the fourth create never came"
        running.send_signal(signal.SIGINT)
    finally:
        release.set()
    out, err = running.communicate(timeout=60)
    assert running.returncode == 130, (out, err)
    assert "Traceback" not in err and "never retrieved" not in err, err
    assert "interrupted (ctrl+c)" in err and "created before it: 3 tasks: rows 1-3 → ids 101-103" in err
    resume = int(re.search(r"to resume: run the same command with --start-row (\d+)", err)[1])
    assert resume == (5 if saved else 4), err
    further.on_create = None
    resumed = cli(further, "import", str(RECEIPTS), str(path), "--start-row", str(resume))
    assert resumed.code == 0, resumed
    assert [t["data"]["receipt"] for t in further.created] == [f"note {n}" for n in range(1, 7)]


class OneWorkerPort:
    """A plain HTTP port served one connection at a time, as `human-lambdas up`'s one gunicorn
    worker does: a TLS ClientHello holds the worker (it waits for a request line), so a second
    connection is answered only once the first has gone."""

    def __init__(self) -> None:
        self._socket = socket.create_server(("127.0.0.1", 0))
        self.port = self._socket.getsockname()[1]
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self._socket.accept()
            except OSError:
                return
            with connection:
                received = b""
                while b"\r\n\r\n" not in received:
                    try:
                        chunk = connection.recv(4096)
                    except OSError:
                        break
                    if not chunk:
                        break
                    received += chunk
                if b"\r\n\r\n" in received:
                    connection.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")

    def close(self) -> None:
        self._socket.close()


async def test_https_to_a_one_worker_plain_port_leaves_no_task_exception_behind(monkeypatch) -> None:
    """The probe is answered only once the request has timed out: the request's failure is taken
    too, not left for "Task exception was never retrieved"."""
    monkeypatch.setattr(plain_port, "TLS_STALL_SECONDS", 0.2)
    monkeypatch.setattr(plain_port, "PROBE_SECONDS", 30.0)
    unretrieved: list[dict[str, Any]] = []
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(lambda _loop, context: unretrieved.append(context))
    port = OneWorkerPort()
    try:
        timeout = httpx.Timeout(30.0, connect=1.0)
        async with QueueDeskClient(f"https://127.0.0.1:{port.port}", TOKEN, ORG, timeout=timeout) as qd:
            try:
                await qd.queues()
            except ConnectionFailed as exc:
                said = str(exc)  # the exception itself is let go: its frames hold the request
            else:
                said = "no ConnectionFailed"
        for _ in range(5):
            await asyncio.sleep(0)
        gc.collect()
    finally:
        loop.set_exception_handler(None)
        port.close()
    assert "speaks plain HTTP" in said or "never answered the TLS" in said, said
    assert [c.get("message") for c in unretrieved] == []


SECTION_ID = re.compile(r"\b[AB]\d{1,2}\b")  # API.md's section ids: for the contract, not for people
REVIEWS = [
    ("claim_review", (QUEUE,)),
    ("reviews", (QUEUE,)),
    ("review_heartbeat", (QUEUE, 1)),
    ("release_review", (QUEUE, 1)),
    ("give_verdict", (QUEUE, 1, "accept")),
]
EXTENSIONS = [(method, args) for method, args, _ in PART_B] + REVIEWS


@pytest.mark.parametrize(("method", "args"), EXTENSIONS, ids=[m for m, _ in EXTENSIONS])
async def test_what_the_original_lacks_is_said_without_section_ids(
    original: OriginalService, method: str, args: tuple[Any, ...]
) -> None:
    async with connect(original) as qd:
        with pytest.raises(QueueDeskError) as caught:
            await getattr(qd, method)(*args)
    assert not SECTION_ID.search(str(caught.value)), str(caught.value)


def test_cli_reviews_list_on_the_original_names_no_section(original: OriginalService) -> None:
    result = cli(original, "reviews", "list", str(QUEUE))
    assert result.code != 0 and "no review of work" in result.err, result
    assert not SECTION_ID.search(result.err), result


@pytest.mark.parametrize("org", [ORG, None], ids=["with-organization", "without-organization"])
async def test_a_wrong_address_is_named_with_or_without_an_organization(
    original: OriginalService, org: int | None
) -> None:
    async with QueueDeskClient(original.url + "/api", TOKEN, org) as qd:
        with pytest.raises(NotFound) as caught:
            await qd.queues()
    assert type(caught.value).__name__ == "WrongAddress"
    assert "Check the server URL" in str(caught.value) and "without /api" in str(caught.value)
    result = cli(original, "queues", QUEUEDESK_URL=original.url + "/api", QUEUEDESK_ORG=None)
    assert result.code == 4 and "Check the server URL (--url" in result.err, result


def test_queuedesk_rules_name_the_originals_category_and_read_it() -> None:
    """On a QueueDesk server an entity is `label`: one with the original's `category` is refused by
    name (not as "label None"), and the app reads a task from the original with its categories."""
    said = entities.check(NER, {})
    assert said is not None and "'category'" in said and "None" not in said, said
    assert [e.label for e in entities.entities_of(NER)] == ["PER"]


def test_python_is_told_of_its_arguments_not_of_the_command_lines_flags(
    original: OriginalService, monkeypatch
) -> None:
    monkeypatch.setenv("QUEUEDESK_URL", original.url)
    with pytest.raises(ValueError) as stray:
        QueueDeskClient(token=TOKEN)  # a key for no server named beside it
    with pytest.raises(ValueError) as bad_url:
        QueueDeskClient("ftp://queues.example", TOKEN, ORG)
    for said in (str(stray.value), str(bad_url.value)):
        assert not [flag for flag in FLAGS if flag in said], said
    assert "Pass base_url with token" in str(stray.value)
    assert str(bad_url.value).startswith("base_url: ")


def test_the_app_is_told_of_its_fields() -> None:
    with pytest.raises(ValueError) as bad_url:
        QueueDeskClient("ftp://queues.example", TOKEN, ORG, setting_names=setting_names.APP)
    assert str(bad_url.value).startswith("the address: "), str(bad_url.value)
