"""`QueueDeskClient` against a real `queuedesk serve`: every public method, configuration, errors.

Every error class is raised from a real answer: the QueueDesk server for the envelope errors, and
small loopback stand-ins (a closed port, a listener that never answers, an HTML 500, a server
without `/me`) for what a QueueDesk server never does.
"""

import asyncio
import socket
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from queuedesk import __version__
from queuedesk.api import models
from queuedesk.api.client import Claim, QueueDeskClient, RetryPolicy
from queuedesk.api.config import ConfigError, Profile, save_profile
from queuedesk.api.errors import (
    AuthenticationError,
    Conflict,
    ConnectionFailed,
    Forbidden,
    NotFound,
    NotSupported,
    PayloadTooLarge,
    QueueDeskError,
    ServerError,
    Timeout,
    ValidationError,
    WrongOrganization,
)
from tests.conftest import make_queue
from tests.receiver import Receiver
from tests.support import CORE_BLOCKS, KEYS, ServerProcess, free_port

ONE_TRY = RetryPolicy(attempts=1)


@pytest.fixture(autouse=True)
def own_settings(monkeypatch, tmp_path) -> Path:
    """No QUEUEDESK_* variable from outside, and a configuration file of the test's own."""
    for name in ("URL", "TOKEN", "ORG", "PROFILE"):
        monkeypatch.delenv(f"QUEUEDESK_{name}", raising=False)
    path = tmp_path / "config.toml"
    monkeypatch.setenv("QUEUEDESK_CONFIG", str(path))
    return path


def connect(server: ServerProcess, role: str = "admin", **kwargs: Any) -> QueueDeskClient:
    return QueueDeskClient(server.url, KEYS[role], **kwargs)


def assert_clean(exc: BaseException, *parts: str) -> str:
    """A client error (never an httpx one, not even in its chain) whose message names what failed."""
    assert isinstance(exc, QueueDeskError), type(exc)
    text = str(exc)
    for part in parts:
        assert part in text, text
    assert exc.hint in text, text
    assert "httpx" not in text and "httpcore" not in text, text
    seen: BaseException | None = exc
    while seen is not None:
        assert not type(seen).__module__.startswith(("httpx", "httpcore")), repr(seen)
        seen = seen.__cause__ or seen.__context__
    return text


async def finish(admin: QueueDeskClient, worker: QueueDeskClient, queue_id: int, n: int) -> list[models.Task]:
    """`n` new tasks, each claimed and completed by `worker`, in completion order."""
    result = await admin.import_tasks(queue_id, [{"paragraph": f"done {i}"} for i in range(n)])
    done = []
    for _ in result.ids:
        claim = await worker.claim_next(queue_id)
        assert claim.task is not None
        done.append(await worker.complete(queue_id, claim.task.id, {"category": "red"}))
    return done


# --- stand-ins on loopback --------------------------------------------------------------------


class StandIn:
    """A loopback HTTP server whose answer to every request comes from `answer(method, path)`."""

    def __init__(self, answer: Callable[[str, str], tuple[int, str, bytes]]) -> None:
        self.paths: list[str] = []
        self.authorizations: list[str | None] = []
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def _any(self) -> None:
                stand_in.paths.append(self.path)
                stand_in.authorizations.append(self.headers.get("Authorization"))
                status, content_type, body = answer(self.command, self.path)
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(body)
                self.close_connection = True

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _any

            def log_message(self, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


HTML_500 = b"<h1>Server Error (500)</h1>"
HTML_404 = b"<!doctype html><html><body><h1>Not Found</h1></body></html>"


@pytest.fixture
def html_500() -> Iterator[StandIn]:
    made = StandIn(lambda _m, _p: (500, "text/html", HTML_500))
    yield made
    made.stop()


@pytest.fixture
def without_me() -> Iterator[StandIn]:
    """A server that has no `/me` (HTML 404) and answers nothing else either."""
    made = StandIn(lambda _m, _p: (404, "text/html; charset=utf-8", HTML_404))
    yield made
    made.stop()


@pytest.fixture
def silent_listener() -> Iterator[str]:
    """A port whose connections the kernel accepts and nobody ever answers."""
    sock = socket.create_server(("127.0.0.1", 0), backlog=16)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    sock.close()


# --- configuration --------------------------------------------------------------------------------


async def test_configuration_from_arguments(server: ServerProcess, org_id: int, monkeypatch) -> None:
    monkeypatch.setenv("QUEUEDESK_TOKEN", KEYS["worker"])
    monkeypatch.setenv("QUEUEDESK_ORG", "999")
    async with QueueDeskClient(server.url + "/", KEYS["admin"], org_id) as qd:
        assert qd.base_url == server.url
        assert qd.token == SecretStr(KEYS["admin"])  # arguments win over the environment
        assert qd.organization_id == org_id
        assert (await qd.me()).role == "admin"
        assert await qd.org() == org_id


async def test_configuration_from_environment(server: ServerProcess, org_id: int, queue, monkeypatch) -> None:
    monkeypatch.setenv("QUEUEDESK_URL", server.url)
    monkeypatch.setenv("QUEUEDESK_TOKEN", KEYS["worker"])
    monkeypatch.setenv("QUEUEDESK_ORG", str(org_id))
    async with QueueDeskClient() as qd:
        assert qd.base_url == server.url
        assert qd.token == SecretStr(KEYS["worker"])
        assert qd.organization_id == org_id
        assert (await qd.me()).email == "wes@acme.test"
        assert queue["id"] in [q.id for q in await qd.queues()]


async def test_configuration_from_the_default_profile(
    server: ServerProcess, org_id: int, own_settings: Path
) -> None:
    save_profile("demo", Profile(url=server.url, token=KEYS["supervisor"], org=org_id), path=own_settings)
    async with QueueDeskClient() as qd:  # the README's example: no arguments, no variables
        assert (qd.base_url, qd.token, qd.organization_id) == (
            server.url,
            SecretStr(KEYS["supervisor"]),
            org_id,
        )
        assert qd.connection.source == "profile 'demo'" and qd.connection.profile == "demo"
        assert (await qd.me()).email == "sue@acme.test"


async def test_the_environment_wins_over_the_profile(
    server: ServerProcess, org_id: int, own_settings: Path, monkeypatch
) -> None:
    save_profile("demo", Profile(url="http://127.0.0.1:1", token=KEYS["supervisor"]), path=own_settings)
    monkeypatch.setenv("QUEUEDESK_URL", server.url)
    monkeypatch.setenv("QUEUEDESK_TOKEN", KEYS["worker"])
    async with QueueDeskClient() as qd:
        assert (await qd.me()).email == "wes@acme.test"
    async with QueueDeskClient(profile="demo") as named:  # a named profile is still below the variables
        assert named.base_url == server.url
    monkeypatch.delenv("QUEUEDESK_URL")
    with pytest.raises(ConfigError, match="QUEUEDESK_TOKEN holds a key without a server URL"):
        QueueDeskClient()  # the variable's key never goes to the profile's server
    monkeypatch.delenv("QUEUEDESK_TOKEN")
    async with QueueDeskClient() as profiled:
        assert (profiled.base_url, profiled.token) == ("http://127.0.0.1:1", SecretStr(KEYS["supervisor"]))


async def test_a_key_is_never_sent_to_a_url_it_was_not_given_for(
    server: ServerProcess, without_me: "StandIn", monkeypatch
) -> None:
    monkeypatch.setenv("QUEUEDESK_URL", server.url)
    monkeypatch.setenv("QUEUEDESK_TOKEN", KEYS["admin"])
    async with QueueDeskClient(without_me.url) as qd:
        assert qd.token is None and "Authorization" not in qd._http.headers
        assert await qd.supports_extensions() is False
    assert without_me.authorizations == [None]


async def test_an_unknown_profile_is_a_value_error_listing_the_profiles(own_settings: Path) -> None:
    save_profile("work", Profile(url="http://127.0.0.1:1", token="k"), path=own_settings)
    with pytest.raises(ConfigError, match=r"no profile 'home' .*the profiles: work"):
        QueueDeskClient(profile="home")


async def test_an_empty_QUEUEDESK_ORG_is_unset(server: ServerProcess, org_id: int, monkeypatch) -> None:
    monkeypatch.setenv("QUEUEDESK_URL", server.url)
    monkeypatch.setenv("QUEUEDESK_TOKEN", KEYS["admin"])
    monkeypatch.setenv("QUEUEDESK_ORG", "")
    async with QueueDeskClient() as qd:
        assert qd.organization_id is None
        assert await qd.org() == org_id  # asked from /me


async def test_no_url_is_a_clear_value_error() -> None:
    with pytest.raises(ValueError, match="QUEUEDESK_URL") as caught:
        QueueDeskClient(token="x")
    assert "base_url" in str(caught.value) and "profile" in str(caught.value)
    with pytest.raises(ValueError, match="QUEUEDESK_URL"):
        QueueDeskClient("", token="x")


async def test_organization_from_environment_must_be_a_number(server: ServerProcess, monkeypatch) -> None:
    monkeypatch.setenv("QUEUEDESK_ORG", "acme")
    with pytest.raises(ValueError, match="QUEUEDESK_ORG") as caught:
        QueueDeskClient(server.url, KEYS["admin"])
    assert "'acme'" in str(caught.value)


# --- who and where --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("role", "email", "name"),
    [
        ("admin", "ada@acme.test", "Ada"),
        ("supervisor", "sue@acme.test", "Sue"),
        ("worker", "wes@acme.test", "Wes"),
    ],
)
async def test_me_and_supports_extensions(server: ServerProcess, org_id: int, role, email, name) -> None:
    async with connect(server, role) as qd:
        me = await qd.me()
        assert (me.email, me.name, me.role) == (email, name, role)
        assert (me.organization_id, me.organization) == (org_id, "Acme")
        assert (me.server, me.version) == ("queuedesk", __version__)
        assert await qd.supports_extensions() is True
        assert await qd.org() == org_id  # learned from /me
        assert qd.organization_id == org_id


async def test_health_needs_no_key(server: ServerProcess) -> None:
    async with QueueDeskClient(server.url, token="") as qd:
        assert "Authorization" not in qd._http.headers
        health = await qd.health()
    assert isinstance(health, models.Health) and health.status == "ok"


# --- Part A -----------------------------------------------------------------------------------------


async def test_queues_and_queue(server: ServerProcess, queue) -> None:
    async with connect(server) as admin, connect(server, "worker") as worker:
        await admin.import_tasks(queue["id"], [{"paragraph": "a"}, {"paragraph": "b"}])
        claim = await worker.claim_next(queue["id"])
        assert claim.task is not None
        listed = {q.id: q for q in await admin.queues()}
        mine = listed[queue["id"]]
        assert isinstance(mine, models.Queue) and not isinstance(mine, models.QueueDetail)
        assert (mine.name, mine.n_tasks, mine.active_users) == (queue["name"], 2, ["Wes"])
        assert mine.created_at.tzinfo is not None
        assert abs(mine.created_at - datetime.now(UTC)) < timedelta(minutes=5)
        assert "Categorization" in [q.name for q in listed.values()]
        assert list(listed) == sorted(listed)  # ordered by id

        detail = await admin.queue(queue["id"])
        assert (detail.id, detail.name, detail.description) == (queue["id"], queue["name"], "")
        assert (detail.n_tasks, detail.active_users) == (2, ["Wes"])
        assert [(b.id, b.type) for b in detail.data] == [(b["id"], b["type"]) for b in CORE_BLOCKS]
        category = detail.data[1]
        assert [(o.id, o.name) for o in category.options] == [
            ("red", "Red"),
            ("blue", "Blue"),
            ("green", "Green"),
        ]
        assert category.is_required is True
        assert detail.data[0].settings == {"placeholder": "What is going on?"}
        assert detail.data[0].is_required is False


async def test_create_task(server: ServerProcess, queue) -> None:
    async with connect(server) as qd:
        before = datetime.now(UTC)
        task = await qd.create_task(queue["id"], {"paragraph": "The printer is on fire", "category": "blue"})
    assert isinstance(task, models.Task)
    assert task.id > 0 and task.status == "new" and task.source == "api"
    assert (task.queue, task.queue_id) == (queue["name"], queue["id"])
    assert task.data == {"paragraph": "The printer is on fire", "category": "blue", "photo": None}
    assert task.completed_at is None and task.completed_by is None
    assert before - timedelta(seconds=5) <= task.created_at <= datetime.now(UTC) + timedelta(seconds=5)


async def test_completed_tasks_pages_and_filters(server: ServerProcess, queue) -> None:
    async with connect(server) as admin, connect(server, "worker") as worker:
        done = await finish(admin, worker, queue["id"], 3)
        newest_first = [t.id for t in reversed(done)]

        first = await admin.completed_tasks(queue["id"], limit=2)
        assert isinstance(first, models.TaskPage)
        assert first.count == 3 and [t.id for t in first.tasks] == newest_first[:2]
        assert first.previous is None
        assert first.next is not None and "offset=2" in first.next and "limit=2" in first.next
        assert all(t.status == "completed" and t.completed_by == "wes@acme.test" for t in first.tasks)
        assert first.tasks[0].data == {"paragraph": "done 2", "category": "red", "photo": None}

        second = await admin.completed_tasks(queue["id"], offset=2, limit=2)
        assert [t.id for t in second.tasks] == newest_first[2:]
        assert second.next is None and second.previous is not None and "offset=0" in second.previous

        mine = await worker.completed_tasks(queue["id"], completed_by="me")
        assert mine.count == 3
        nobody = await admin.completed_tasks(queue["id"], completed_by="sue@acme.test")
        assert (nobody.count, nobody.tasks) == (0, [])

        stamps = [t.completed_at for t in done]
        assert all(s is not None for s in stamps)
        since = await admin.completed_tasks(queue["id"], start_date=stamps[1])
        assert [t.id for t in since.tasks] == newest_first[:2]
        until = await admin.completed_tasks(queue["id"], end_date=stamps[1])
        assert [t.id for t in until.tasks] == newest_first[1:]
        by_day = await admin.completed_tasks(queue["id"], start_date=stamps[0].date())
        assert by_day.count == 3
        later = await admin.completed_tasks(queue["id"], start_date=stamps[2] + timedelta(seconds=1))
        assert later.count == 0


async def test_completed_pages_and_iter_completed(server: ServerProcess, queue) -> None:
    async with connect(server) as admin, connect(server, "worker") as worker:
        done = await finish(admin, worker, queue["id"], 5)
        pages = [page async for page in admin.completed_pages(queue["id"], page_size=2)]
        assert [len(p.tasks) for p in pages] == [2, 2, 1]
        assert all(p.count == 5 for p in pages)
        assert pages[-1].next is None
        ids = [t.id async for t in admin.iter_completed(queue["id"], page_size=2)]
        assert ids == [t.id for t in reversed(done)]
        mine = [t.id async for t in worker.iter_completed(queue["id"], page_size=3, completed_by="me")]
        assert mine == ids


async def _iterate_while_completing(
    server: ServerProcess, queue: dict, **filters: Any
) -> tuple[list[int], list[int], list[int]]:
    """Iterate completed tasks two per page while three more tasks get completed after the first."""
    async with connect(server) as admin, connect(server, "worker") as worker:
        done = await finish(admin, worker, queue["id"], 5)
        later = await admin.import_tasks(queue["id"], [{"paragraph": f"late {i}"} for i in range(3)])
        seen: list[int] = []
        async for task in admin.iter_completed(queue["id"], page_size=2, **filters):
            seen.append(task.id)
            if len(seen) == 1:
                for _ in range(3):
                    claim = await worker.claim_next(queue["id"])
                    assert claim.task is not None
                    await worker.complete(queue["id"], claim.task.id, {"category": "green"})
        return seen, [t.id for t in reversed(done)], later.ids


async def test_iter_completed_neither_skips_nor_repeats_while_tasks_complete(
    server: ServerProcess, queue
) -> None:
    seen, expected, late = await _iterate_while_completing(server, queue)
    assert len(seen) == len(set(seen)), f"repeated: {seen}"
    assert seen == expected  # every task completed before the iteration began, once, newest first
    assert not set(seen) & set(late)


async def test_iter_completed_with_an_end_date_neither_skips_nor_repeats(
    server: ServerProcess, queue
) -> None:
    """An end date in the future must not switch off the bound on the pages after the first."""
    tomorrow = datetime.now(UTC) + timedelta(days=1)
    seen, expected, late = await _iterate_while_completing(server, queue, end_date=tomorrow)
    assert len(seen) == len(set(seen)), f"repeated: {seen}"
    assert seen == expected
    assert not set(seen) & set(late)


async def test_flush(server: ServerProcess, queue) -> None:
    async with connect(server) as admin, connect(server, "worker") as worker:
        done = await finish(admin, worker, queue["id"], 1)
        await admin.import_tasks(queue["id"], [{"paragraph": "x"}, {"paragraph": "y"}])
        assert (await admin.queue(queue["id"])).n_tasks == 2
        assert await admin.flush(queue["id"]) is None
        assert (await admin.queue(queue["id"])).n_tasks == 0
        assert (await admin.pending_tasks(queue["id"])).count == 0
        history = await admin.completed_tasks(queue["id"])
        assert [t.id for t in history.tasks] == [done[0].id]  # completed tasks stay


async def test_webhook_set_read_and_remove(server: ServerProcess, queue) -> None:
    target = "http://127.0.0.1:9999/hook"
    async with connect(server) as qd:
        none = await qd.webhook(queue["id"])
        assert isinstance(none, models.Webhook) and none.target == ""
        assert await qd.set_webhook(queue["id"], target) is None
        assert (await qd.webhook(queue["id"])).target == target
        await qd.set_webhook(queue["id"], None)
        assert (await qd.webhook(queue["id"])).target == ""
        await qd.set_webhook(queue["id"], target + "2")
        assert (await qd.webhook(queue["id"])).target == target + "2"
        assert await qd.remove_webhook(queue["id"]) is None
        assert (await qd.webhook(queue["id"])).target == ""
    async with connect(server, "supervisor") as supervisor:
        assert (await supervisor.webhook(queue["id"])).target == ""


# --- Part B -----------------------------------------------------------------------------------------


async def test_pending_tasks_and_iter_pending(server: ServerProcess, queue) -> None:
    async with connect(server) as admin, connect(server, "worker") as worker:
        ids = (await admin.import_tasks(queue["id"], [{"paragraph": f"p{i}"} for i in range(3)])).ids
        claim = await worker.claim_next(queue["id"])
        assert claim.task is not None and claim.task.id == ids[0]

        page = await admin.pending_tasks(queue["id"])
        assert isinstance(page, models.PendingPage)
        assert page.count == 3 and [t.id for t in page.tasks] == ids  # oldest first
        held, free = page.tasks[0], page.tasks[1]
        assert held.status == "in_progress"
        assert (held.assignment.assigned_to, held.assignment.assigned_to_name) == ("wes@acme.test", "Wes")
        assert held.assignment.assigned_at is not None and held.assignment.lease_expires_at is not None
        assert held.assignment.lease_expires_at > held.assignment.assigned_at
        assert free.status == "new" and free.assignment == models.Assignment()

        working = await admin.pending_tasks(queue["id"], status=["in_progress"])
        assert [t.id for t in working.tasks] == [ids[0]]
        waiting = await admin.pending_tasks(queue["id"], status=["new", "open"])
        assert [t.id for t in waiting.tasks] == ids[1:]
        first = await admin.pending_tasks(queue["id"], limit=2)
        assert len(first.tasks) == 2 and first.next is not None and first.previous is None
        rest = await admin.pending_tasks(queue["id"], offset=2, limit=2)
        assert [t.id for t in rest.tasks] == ids[2:] and rest.next is None

        assert [t.id async for t in admin.iter_pending(queue["id"], page_size=2)] == ids
        assert [t.id async for t in admin.iter_pending(queue["id"], status=["new"], page_size=1)] == ids[1:]


async def test_task_in_any_status(server: ServerProcess, queue) -> None:
    async with connect(server) as admin, connect(server, "worker") as worker:
        created = await admin.create_task(queue["id"], {"paragraph": "look at me"})
        fresh = await worker.task(queue["id"], created.id)
        assert isinstance(fresh, models.AssignedTask)
        assert (fresh.id, fresh.status, fresh.data["paragraph"]) == (created.id, "new", "look at me")
        assert fresh.assignment.assigned_to is None
        await worker.claim_next(queue["id"])
        await worker.complete(queue["id"], created.id, {"category": "blue"})
        done = await admin.task(queue["id"], created.id)
        assert (done.status, done.completed_by, done.data["category"]) == (
            "completed",
            "wes@acme.test",
            "blue",
        )


async def test_claim_next_task_and_the_same_task_again(server: ServerProcess, queue) -> None:
    async with connect(server) as admin, connect(server, "worker") as worker:
        ids = (await admin.import_tasks(queue["id"], [{"paragraph": "one"}, {"paragraph": "two"}])).ids
        claim = await worker.claim_next(queue["id"])
        assert isinstance(claim, Claim) and claim.held_by_others == 0
        assert claim.task is not None and claim.task.id == ids[0]
        assert (claim.task.status, claim.task.assignment.assigned_to) == ("in_progress", "wes@acme.test")
        again = await worker.claim_next(queue["id"])
        assert again.task is not None and again.task.id == ids[0]  # its own live claim, not the next task


async def test_claim_next_204_tells_empty_from_held_by_others(server: ServerProcess, queue) -> None:
    async with connect(server) as admin, connect(server, "worker") as wes, connect(server, "worker2") as wyn:
        assert await wyn.claim_next(queue["id"]) == Claim(None, 0)  # empty queue
        await admin.create_task(queue["id"], {"paragraph": "only one"})
        assert (await wes.claim_next(queue["id"])).task is not None
        assert await wyn.claim_next(queue["id"]) == Claim(None, 1)  # one held by somebody else


async def _exclude_is_honoured(server: ServerProcess, org_id: int, queue_id: int) -> bool:
    """Whether the server claims ahead (B4 with a body): its answer decides, at run time."""
    async with connect(server, "worker2") as probe:
        held = await probe.claim_next(queue_id)
        assert held.task is not None
        ahead = await probe.claim_next(queue_id, exclude=[held.task.id])
    return ahead.task is not None and ahead.task.id != held.task.id


async def test_claim_ahead_with_exclude_up_to_the_claim_limit(server: ServerProcess, org_id: int) -> None:
    probe_queue = make_queue(server.client("admin"), org_id)
    async with connect(server) as admin:
        await admin.import_tasks(probe_queue["id"], [{"paragraph": "probe 1"}, {"paragraph": "probe 2"}])
    if not await _exclude_is_honoured(server, org_id, probe_queue["id"]):
        pytest.skip(
            "this server does not honour `exclude` yet (B4 'Claiming ahead'): it answered the excluded task"
        )
    queue = make_queue(server.client("admin"), org_id)
    async with connect(server) as admin, connect(server, "worker") as worker:
        ids = (await admin.import_tasks(queue["id"], [{"paragraph": f"t{i}"} for i in range(5)])).ids
        first = await worker.claim_next(queue["id"])
        assert first.task is not None and first.task.id == ids[0]
        second = await worker.claim_next(queue["id"], exclude=[ids[0]])
        assert second.task is not None and second.task.id == ids[1]
        again = await worker.claim_next(queue["id"], exclude=[ids[1]])  # its oldest live claim not listed
        assert again.task is not None and again.task.id == ids[0]
        third = await worker.claim_next(queue["id"], exclude=ids[:2])
        assert third.task is not None and third.task.id == ids[2]
        with pytest.raises(Conflict) as caught:
            await worker.claim_next(queue["id"], exclude=ids[:3])
        assert (caught.value.status, caught.value.code) == (409, "claim_limit")
        assert_clean(caught.value, f"Claiming work in queue {queue['id']} failed")
        plain = await worker.claim_next(queue["id"])  # no body: the held work first, as before
        assert plain.task is not None and plain.task.id == ids[0]


async def test_heartbeat_extends_the_lease(server: ServerProcess, queue) -> None:
    async with connect(server) as admin, connect(server, "worker") as worker:
        await admin.create_task(queue["id"], {"paragraph": "long job"})
        claim = await worker.claim_next(queue["id"])
        assert claim.task is not None and claim.task.assignment.lease_expires_at is not None
        await asyncio.sleep(0.01)
        lease = await worker.heartbeat(queue["id"], claim.task.id)
        assert isinstance(lease, models.Assignment)
        assert (lease.assigned_to, lease.assigned_to_name) == ("wes@acme.test", "Wes")
        assert lease.lease_expires_at is not None
        assert lease.lease_expires_at > claim.task.assignment.lease_expires_at
        assert lease.lease_expires_at > datetime.now(UTC) + timedelta(minutes=10)


async def test_release_with_and_without_a_draft(server: ServerProcess, queue) -> None:
    async with connect(server) as admin, connect(server, "worker") as worker:
        created = await admin.create_task(queue["id"], {"paragraph": "original"})
        await worker.claim_next(queue["id"])
        released = await worker.release(
            queue["id"], created.id, draft={"paragraph": "half done", "category": "green"}
        )
        assert isinstance(released, models.AssignedTask)
        assert released.status == "open"
        assert released.data == {"paragraph": "original", "category": None, "photo": None}
        assert released.draft == {"paragraph": "half done", "category": "green"}  # apart, the worker's
        assert released.assignment == models.Assignment()
        claimed = await worker.claim_next(queue["id"])
        assert claimed.task is not None and claimed.task.draft == released.draft  # to restore it
        plain = await worker.release(queue["id"], created.id)
        assert plain.status == "open" and plain.draft == released.draft  # the draft was kept


async def test_complete(server: ServerProcess, queue) -> None:
    async with connect(server) as admin, connect(server, "worker") as worker:
        created = await admin.create_task(queue["id"], {"paragraph": "finish me"})
        await worker.claim_next(queue["id"])
        done = await worker.complete(
            queue["id"], created.id, {"category": "green", "photo": "https://example.com/x.png"}
        )
    assert isinstance(done, models.Task)
    assert (done.id, done.status, done.completed_by) == (created.id, "completed", "wes@acme.test")
    assert done.data == {"paragraph": "finish me", "category": "green", "photo": "https://example.com/x.png"}
    assert done.completed_at is not None and done.completed_at >= done.created_at


async def test_import_tasks(server: ServerProcess, queue) -> None:
    async with connect(server) as qd:
        result = await qd.import_tasks(
            queue["id"], [{"paragraph": "a"}, {"category": "red"}], source="batch.csv"
        )
        assert isinstance(result, models.ImportResult)
        assert result.created == 2 and len(result.ids) == 2 and result.ids[0] < result.ids[1]
        first = await qd.task(queue["id"], result.ids[0])
        second = await qd.task(queue["id"], result.ids[1])
    assert (first.source, first.status, first.data["paragraph"]) == ("batch.csv", "new", "a")
    assert second.data == {"paragraph": None, "category": "red", "photo": None}


async def test_webhook_secret_and_rotation(server: ServerProcess, queue) -> None:
    async with connect(server) as qd:
        await qd.set_webhook(queue["id"], "http://127.0.0.1:9999/hook")
        secret = await qd.webhook_secret(queue["id"])
        assert secret.startswith("whsec_") and len(secret) > 20
        rotated = await qd.rotate_webhook_secret(queue["id"])
        assert rotated.startswith("whsec_") and rotated != secret
        assert await qd.webhook_secret(queue["id"]) == rotated


async def _wait_for(check: Callable[[], Any], timeout: float = 20) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        found = await check()
        if found or time.monotonic() > deadline:
            return found
        await asyncio.sleep(0.05)


async def test_deliveries_delivery_and_redeliver(server: ServerProcess, queue, receiver: Receiver) -> None:
    async with connect(server) as admin, connect(server, "worker") as worker:
        await admin.set_webhook(queue["id"], receiver.url)
        (task,) = await finish(admin, worker, queue["id"], 1)

        async def delivered() -> models.DeliveryPage | None:
            page = await admin.deliveries(queue["id"])
            return page if page.deliveries and page.deliveries[0].status == "delivered" else None

        page = await _wait_for(delivered)
        assert isinstance(page, models.DeliveryPage), "the delivery never succeeded"
        assert page.count == 1 and page.next is None and page.previous is None
        (item,) = page.deliveries
        assert (item.task_id, item.target, item.attempts, item.last_status_code) == (
            task.id,
            receiver.url,
            1,
            200,
        )
        assert item.event_id == receiver.received[0].headers["webhook-id"]
        assert item.delivered_at is not None and item.next_attempt_at is None

        detail = await admin.delivery(queue["id"], item.id)
        assert isinstance(detail, models.DeliveryDetail)
        assert (detail.id, detail.status, detail.event_id) == (item.id, "delivered", item.event_id)
        assert len(detail.attempt_log) == 1 and detail.attempt_log[0].status_code == 200
        assert detail.attempt_log[0].error is None and detail.attempt_log[0].duration_ms >= 0

        again = await admin.redeliver(queue["id"], item.id)
        assert isinstance(again, models.Delivery)
        assert (again.id, again.status, again.task_id) == (item.id, "pending", task.id)
        second = receiver.wait_for(2)[1]
        assert second.headers["webhook-id"] == item.event_id  # the same event, sent again

        async def delivered_twice() -> models.DeliveryDetail | None:
            found = await admin.delivery(queue["id"], item.id)
            return found if found.status == "delivered" and len(found.attempt_log) == 2 else None

        assert await _wait_for(delivered_twice) is not None
    async with connect(server, "supervisor") as supervisor:
        assert (await supervisor.deliveries(queue["id"], limit=1)).count == 1


async def test_create_queue_and_update_queue(server: ServerProcess) -> None:
    name = f"Client queue {time.time_ns()}"
    async with connect(server) as qd:
        made = await qd.create_queue(name, CORE_BLOCKS[:2], description="Made by the client")
        assert isinstance(made, models.QueueDetail)
        assert (made.name, made.description, made.n_tasks, made.active_users) == (
            name,
            "Made by the client",
            0,
            [],
        )
        assert [b.id for b in made.data] == ["paragraph", "category"]

        renamed = await qd.update_queue(made.id, name=name + " (renamed)")
        assert (renamed.id, renamed.name, renamed.description) == (
            made.id,
            name + " (renamed)",
            "Made by the client",
        )
        assert [b.id for b in renamed.data] == ["paragraph", "category"]  # only what was given changed

        reblocked = await qd.update_queue(made.id, description="", blocks=CORE_BLOCKS)
        assert (reblocked.name, reblocked.description) == (name + " (renamed)", "")
        assert [b.id for b in reblocked.data] == ["paragraph", "category", "photo"]
        assert (await qd.queue(made.id)).data[2].type == "image"


# --- errors from real answers ---------------------------------------------------------------------


async def test_bad_key_is_an_authentication_error(server: ServerProcess, org_id: int) -> None:
    async with QueueDeskClient(server.url, "not-a-real-key", org_id) as qd:
        with pytest.raises(AuthenticationError) as caught:
            await qd.me()
        assert_clean(caught.value, "Reading /me failed", "Invalid token.", "QUEUEDESK_TOKEN")
        assert (caught.value.status, caught.value.code) == (401, "invalid_token")
        with pytest.raises(AuthenticationError):
            await qd.queues()
    async with QueueDeskClient(server.url, "", org_id) as anonymous:
        with pytest.raises(AuthenticationError) as caught:
            await anonymous.me()
        assert_clean(caught.value, "Authentication credentials were not provided.")
        assert caught.value.code == "not_authenticated"


async def test_worker_creating_a_task_is_forbidden(server: ServerProcess, queue) -> None:
    async with connect(server, "worker") as qd:
        with pytest.raises(Forbidden) as caught:
            await qd.create_task(queue["id"], {"paragraph": "not mine to add"})
    text = assert_clean(
        caught.value, f"Creating a task in queue {queue['id']} failed", "worker", "ask an admin"
    )
    assert "create" in text
    assert (caught.value.status, caught.value.code) == (403, "forbidden")


async def test_unknown_queue_is_not_found(server: ServerProcess) -> None:
    async with connect(server) as qd:
        with pytest.raises(NotFound) as caught:
            await qd.queue(987654)
        assert_clean(
            caught.value, "Reading queue 987654 failed", "Queue 987654 not found", "Check the organization"
        )
        assert (caught.value.status, caught.value.code) == (404, "not_found")
        with pytest.raises(NotFound):
            await qd.create_task(987654, {"paragraph": "x"})


async def test_another_orgs_queue_is_not_found(
    server: ServerProcess, org_id: int, other_org: dict[str, int]
) -> None:
    async with connect(server) as qd:
        with pytest.raises(NotFound) as caught:
            await qd.queue(other_org["queue"])
        assert_clean(caught.value, f"Reading queue {other_org['queue']} failed", "Check the organization")
        with pytest.raises(NotFound):
            await qd.completed_tasks(other_org["queue"])
    async with connect(server, organization_id=other_org["org"]) as wrong_org:
        with pytest.raises(WrongOrganization) as caught:
            await wrong_org.queues()
        text = assert_clean(caught.value, "Listing queues failed", "organization_id", "QUEUEDESK_ORG")
        assert "--org" not in text  # no flag of the command line in Python
        assert f"The key belongs to organization {org_id} ('Acme'), not {other_org['org']}." in text
        assert caught.value.status == 404 and isinstance(caught.value, Forbidden)


async def test_the_right_organization_keeps_the_not_found(server: ServerProcess, org_id: int) -> None:
    async with connect(server, organization_id=org_id) as qd:
        with pytest.raises(NotFound) as caught:
            await qd.queue(987654)
    assert not isinstance(caught.value, WrongOrganization)
    assert "organization" not in caught.value.message


async def test_completing_twice_is_a_conflict_already_completed(server: ServerProcess, queue) -> None:
    async with connect(server) as admin, connect(server, "worker") as worker:
        (task,) = await finish(admin, worker, queue["id"], 1)
        with pytest.raises(Conflict) as caught:
            await worker.complete(queue["id"], task.id, {"category": "blue"})
    assert_clean(caught.value, f"Completing task {task.id} failed", "already completed")
    assert (caught.value.status, caught.value.code) == (409, "already_completed")


async def test_another_workers_task_is_a_conflict_not_assignee(server: ServerProcess, queue) -> None:
    async with connect(server) as admin, connect(server, "worker") as wes, connect(server, "worker2") as wyn:
        created = await admin.create_task(queue["id"], {"paragraph": "Wes's"})
        await wes.claim_next(queue["id"])
        with pytest.raises(Conflict) as caught:
            await wyn.complete(queue["id"], created.id, {"category": "red"})
        assert_clean(caught.value, f"Completing task {created.id} failed", "held by another worker")
        assert caught.value.code == "not_assignee"
        with pytest.raises(Conflict) as caught:
            await wyn.heartbeat(queue["id"], created.id)
        assert caught.value.code == "not_assignee"
        assert (await wes.task(queue["id"], created.id)).status == "in_progress"  # nothing changed


async def test_invalid_values_are_a_validation_error_with_fields(server: ServerProcess, queue) -> None:
    async with connect(server) as qd:
        with pytest.raises(ValidationError) as caught:
            await qd.create_task(queue["id"], {"paragraph": "ok", "category": "purple"})
        assert_clean(
            caught.value, f"Creating a task in queue {queue['id']} failed", "data.category", "purple"
        )
        assert (caught.value.status, caught.value.code) == (400, "invalid_value")
        assert list(caught.value.fields) == ["data.category"]
        assert "purple" in caught.value.fields["data.category"]

        with pytest.raises(ValidationError) as caught:
            await qd.create_task(queue["id"], {"colour": "red", "photo": "not a url"})
        assert set(caught.value.fields) == {"data.colour", "data.photo"}
        assert {e.code for e in caught.value.errors} == {"unknown_field", "invalid_value"}


async def test_a_body_over_one_mib_is_payload_too_large(server: ServerProcess, queue) -> None:
    async with connect(server) as qd:
        with pytest.raises(PayloadTooLarge) as caught:
            await qd.create_task(queue["id"], {"paragraph": "x" * (1024 * 1024 + 10)})
        assert_clean(caught.value, f"Creating a task in queue {queue['id']} failed", "1 MiB")
        assert (caught.value.status, caught.value.code) == (413, "payload_too_large")
        assert (await qd.queue(queue["id"])).n_tasks == 0


async def test_a_closed_port_is_connection_failed() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    async with QueueDeskClient(url, "k", 1, retry=RetryPolicy(attempts=2, base_delay=0.01)) as qd:
        with pytest.raises(ConnectionFailed) as caught:
            await qd.health()
    assert not isinstance(caught.value, Timeout)
    assert_clean(caught.value, "Checking health failed", f"cannot reach {url}", "Check the server URL")
    assert caught.value.status is None


async def test_a_server_that_never_answers_is_a_timeout(silent_listener: str) -> None:
    started = time.monotonic()
    async with QueueDeskClient(silent_listener, "k", 1, timeout=0.3, retry=ONE_TRY) as qd:
        with pytest.raises(Timeout) as caught:
            await qd.health()
    assert time.monotonic() - started < 5
    assert isinstance(caught.value, ConnectionFailed)  # a timeout is a kind of connection failure
    assert_clean(
        caught.value, "Checking health failed", f"no answer from {silent_listener}", "raise the timeout"
    )


async def test_a_500_html_page_is_a_server_error(html_500: StandIn) -> None:
    async with QueueDeskClient(html_500.url, "k", 1) as qd:
        with pytest.raises(ServerError) as caught:
            await qd.health()
    assert_clean(caught.value, "Checking health failed", "500", "Server Error (500)", "Try again later")
    assert (caught.value.status, caught.value.code, caught.value.errors) == (500, None, [])
    assert html_500.paths == ["/healthz"]  # a 500 is not retried


async def test_extensions_on_a_server_without_me_are_not_supported(without_me: StandIn) -> None:
    async with QueueDeskClient(without_me.url, "k", 1) as qd:
        assert await qd.supports_extensions() is False
        with pytest.raises(NotSupported) as caught:
            await qd.claim_next(3)
        assert_clean(caught.value, "Claiming work in queue 3", "QueueDesk")
        with pytest.raises(NotSupported):
            await qd.task(3, 4)
        assert without_me.paths == ["/me"]  # asked once, and no extension request was sent
        with pytest.raises(NotSupported) as caught:
            await qd.me()
        assert_clean(caught.value, "Reading /me failed", "/me")


async def test_health_on_a_server_without_healthz_is_not_supported(without_me: StandIn) -> None:
    async with QueueDeskClient(without_me.url, "k", 1) as qd:
        with pytest.raises(NotSupported) as caught:
            await qd.health()
    assert_clean(caught.value, "Checking health failed: the server has no /healthz.", "QueueDesk server")
    assert "check the" not in str(caught.value).lower()
    assert without_me.paths == ["/healthz"]


async def test_errors_are_never_httpx_exceptions() -> None:
    """The base class catches every failure mode that `_request` can meet."""
    assert not issubclass(QueueDeskError, httpx.HTTPError)
    async with QueueDeskClient("http://127.0.0.1:1", "k", 1, retry=ONE_TRY) as qd:
        with pytest.raises(QueueDeskError) as caught:
            await qd.queues()
    assert not isinstance(caught.value, httpx.HTTPError)
    assert_clean(caught.value, "cannot reach http://127.0.0.1:1")
