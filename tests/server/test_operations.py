"""Part C's operations paragraph over real HTTP, against real `queuedesk serve` processes on SQLite and
PostgreSQL: /readyz, the SIGTERM drain, /metrics behind its token, the logs and the request id."""

import json
import re
import signal
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.receiver import Receiver
from tests.support import KEYS, ROLES_SEED, ServerProcess, query_value
from tests.support.contract import body_of, claim, create

TOKEN = "metrics-0123456789abcdef"
BEARER = {"Authorization": f"Bearer {TOKEN}"}
SECRET_VALUE = "the-printer-is-on-fire-7f3a"  # a task value no log line may hold


@pytest.fixture(scope="module")
def ops_server(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db_path = tmp_path_factory.mktemp(f"ops-{backend}") / "ops.db"
    args = ["--allow-private-webhooks", "--metrics-token", TOKEN, "--log-format", "json"]
    process = ServerProcess(db_path, args, seed=ROLES_SEED, backend=backend).start()
    yield process
    process.stop()


@pytest.fixture(scope="module")
def admin_of(ops_server: ServerProcess) -> Iterator[httpx.Client]:
    with ops_server.client("admin") as client:
        yield client


@pytest.fixture(scope="module")
def org(admin_of: httpx.Client) -> int:
    return admin_of.get("/me").json()["organization_id"]


def new_queue(admin: httpx.Client, org: int, **extra) -> tuple[int, str]:
    blocks = [{"id": "paragraph", "name": "Paragraph", "type": "text", "text": {}}]
    made = body_of(
        admin.post(
            f"/orgs/{org}/queues", json={"name": f"ops {time.monotonic_ns()}", "data": blocks, **extra}
        )
    )
    return made["id"], f"/orgs/{org}/queues/{made['id']}"


def json_lines(server: ServerProcess) -> list[dict]:
    return [json.loads(line) for line in server.log().splitlines() if line.startswith("{")]


def samples(text: str) -> dict[str, float]:
    """`name{labels}` -> value, for every sample of a Prometheus text answer."""
    found = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            found[name] = float(value)
    return found


def scrape(server: ServerProcess) -> dict[str, float]:
    with server.client("") as anonymous:
        answer = anonymous.get("/metrics", headers=BEARER)
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/plain; version=0.0.4")
    return samples(answer.text)


def labels(org: int, queue: int) -> str:
    return f'{{organization_id="{org}",queue_id="{queue}"}}'


# --- /readyz ---------------------------------------------------------------------------------------


def test_readyz_answers_ready_without_a_key(ops_server: ServerProcess) -> None:
    with ops_server.client("") as anonymous:
        answer = anonymous.get("/readyz")
    assert answer.status_code == 200
    assert answer.json() == {"status": "ready"}


def test_readyz_says_starting_while_the_database_is_away_and_ready_once_back(
    backend: str, tmp_path: Path
) -> None:
    """The readiness asks the database: a database that restarts makes the server not ready (503),
    and ready again once it is back, without a restart of the server."""
    if backend != "postgresql":
        pytest.skip("PostgreSQL only: a SQLite file cannot go away under its server")
    from tests.support import POSTGRES_URL, postgres_database
    from tests.tcp_proxy import TcpProxy

    database = postgres_database(str(tmp_path / "away.db")).rsplit("/", 1)[1]
    proxy = TcpProxy(int(POSTGRES_URL.rsplit(":", 1)[1].split("/")[0])).start()
    through_proxy = f"postgresql://postgres@127.0.0.1:{proxy.port}/{database}"
    server = ServerProcess(tmp_path / "away.db", seed=ROLES_SEED, database_url=through_proxy)
    try:
        with server.running(), server.client("") as anonymous:
            assert anonymous.get("/readyz").json() == {"status": "ready"}
            proxy.stop()
            away = anonymous.get("/readyz")
            assert away.status_code == 503 and away.json() == {"status": "starting"}
            proxy.start()
            deadline = time.monotonic() + 20
            while anonymous.get("/readyz").status_code != 200:
                assert time.monotonic() < deadline, "not ready again once the database came back"
                time.sleep(0.2)
        assert "not ready: the database does not answer" in server.log()
    finally:
        proxy.stop()


# --- the drain -------------------------------------------------------------------------------------


def _refused(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return False
    except OSError:
        return True


def test_sigterm_answers_the_requests_in_flight_finishes_the_delivery_and_exits_0(
    backend: str, tmp_path: Path
) -> None:
    """SIGTERM with four requests in flight (webhook pings held 3 s by a slow receiver) and a
    delivery attempt in flight: the listener closes at once, each request is answered 200 with
    `Connection: close`, the attempt is finished and recorded, and the process exits 0 within 35 s."""
    slow = Receiver(answer=lambda _n: (200, 3.0)).start()
    server = ServerProcess(
        tmp_path / "drain.db", ["--allow-private-webhooks"], seed=ROLES_SEED, backend=backend
    )
    server.start()
    try:
        with server.client("admin") as admin, server.client("worker") as worker:
            org = admin.get("/me").json()["organization_id"]
            _queue_id, qpath = new_queue(admin, org)
            assert admin.put(f"{qpath}/webhook", json={"target": slow.url}).status_code == 200
            create(admin, qpath, paragraph="one")
            task = claim(worker, qpath)
            body_of(worker.post(f"{qpath}/tasks/{task['id']}/complete", json={"data": {"paragraph": "done"}}))
            slow.wait_for(1)  # the delivery's attempt is in flight now, held 3 s by the receiver

            answers: list[httpx.Response | Exception] = []

            def ping() -> None:
                with server.client("admin") as own:
                    try:
                        answers.append(own.post(f"{qpath}/webhook/test"))
                    except Exception as exc:
                        answers.append(exc)

            pings = [threading.Thread(target=ping) for _ in range(4)]
            for thread in pings:
                thread.start()
            slow.wait_for(5)  # the four pings wait on the receiver: in flight at the server
            assert server.process is not None
            sent = time.monotonic()
            server.process.send_signal(signal.SIGTERM)
            deadline = time.monotonic() + 2
            while not _refused(server.port):
                assert time.monotonic() < deadline, "the listener was still open 2 s after SIGTERM"
                time.sleep(0.05)
            for thread in pings:
                thread.join(timeout=35)
            exit_code = server.process.wait(timeout=35)
            took = time.monotonic() - sent
        assert exit_code == 0, server.log()
        assert took < 35
        assert len(answers) == 4
        for answer in answers:
            assert isinstance(answer, httpx.Response), answer
            assert answer.status_code == 200, answer.text
            assert answer.json()["status_code"] == 200
            assert answer.headers["connection"] == "close"
        delivered = query_value(server.db_url, "SELECT count(*) FROM deliveries WHERE status = 'delivered'")
        assert delivered == 1, "the attempt in flight at SIGTERM was not finished and recorded"
        log = server.log()
        assert "draining on SIGTERM" in log and "stopped after a drain of" in log
    finally:
        server.stop()
        slow.stop()


# --- /metrics --------------------------------------------------------------------------------------


def test_metrics_is_404_without_a_token_set(server: ServerProcess) -> None:
    with server.client("") as anonymous:
        answer = anonymous.get("/metrics", headers=BEARER)
    assert answer.status_code == 404


@pytest.mark.parametrize(
    "authorization",
    [None, "Bearer wrong-token", f"Token {TOKEN}", f"bearer {TOKEN}x", f"Token {KEYS['admin']}"],
)
def test_metrics_answers_only_its_bearer_token(ops_server: ServerProcess, authorization: str | None) -> None:
    headers = {} if authorization is None else {"Authorization": authorization}
    with ops_server.client("") as anonymous:
        answer = anonymous.get("/metrics", headers=headers)
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"] == "Bearer"
    assert answer.json()["errors"][0]["code"] == "not_authenticated"


def test_metrics_count_claims_completions_and_the_backlogs_by_ids(
    ops_server: ServerProcess, admin_of: httpx.Client, org: int
) -> None:
    queue_id, qpath = new_queue(admin_of, org, review_percent=100)
    for n in range(3):
        create(admin_of, qpath, paragraph=f"{SECRET_VALUE} {n}")
    assert admin_of.put(f"{qpath}/webhook", json={"target": "http://127.0.0.1:9/never"}).status_code == 200
    before = scrape(ops_server)
    with ops_server.client("worker") as worker:
        task = claim(worker, qpath)
        body_of(worker.post(f"{qpath}/tasks/{task['id']}/complete", json={"data": {"paragraph": "x"}}))
        claim(worker, qpath)
    after = scrape(ops_server)
    queue = labels(org, queue_id)
    assert after[f"queuedesk_claims_total{queue}"] - before.get(f"queuedesk_claims_total{queue}", 0) == 2
    assert (
        after[f"queuedesk_completions_total{queue}"] - before.get(f"queuedesk_completions_total{queue}", 0)
        == 1
    )
    assert after[f"queuedesk_tasks_pending{queue}"] == 2
    assert after[f"queuedesk_tasks_overdue{queue}"] == 0
    assert after[f"queuedesk_oldest_pending_age_seconds{queue}"] > 0
    assert after[f"queuedesk_reviews_pending{queue}"] == 1  # every completion is drawn at 100 %
    assert after[f"queuedesk_webhook_pending{queue}"] == 1  # its receiver never answers
    assert after[f"queuedesk_webhook_oldest_pending_age_seconds{queue}"] >= 0
    assert (
        after[
            'queuedesk_http_requests_total{method="POST",route="/orgs/{org}/queues/{queue}/tasks/next",status="200"}'
        ]
        >= 2
    )
    assert (
        'queuedesk_http_request_duration_seconds_bucket{le="+Inf",route="/orgs/{org}/queues/{queue}/tasks/next"}'
        in after
    )
    for status in ("delivered", "failed", "retried"):
        assert f'queuedesk_webhook_deliveries_total{{status="{status}"}}' in after
    with ops_server.client("") as anonymous:
        text = anonymous.get("/metrics", headers=BEARER).text
    for never in ("ops ", "Acme", "@acme.test", SECRET_VALUE, KEYS["admin"]):
        assert never not in text, f"{never!r} in the metrics: labels carry ids only"


def test_the_gauges_match_the_database_after_the_review_and_the_delivery_move_on(
    ops_server: ServerProcess, admin_of: httpx.Client, org: int, receiver: Receiver
) -> None:
    """The counters kept by triggers go down again: a verdict leaves the review backlog, a delivery
    delivered leaves the webhook backlog (and is counted as delivered by this process)."""
    queue_id, qpath = new_queue(admin_of, org, review_percent=100)
    assert admin_of.put(f"{qpath}/webhook", json={"target": receiver.url}).status_code == 200
    create(admin_of, qpath, paragraph="one")
    before = scrape(ops_server)
    with ops_server.client("worker") as worker:
        task = claim(worker, qpath)
        body_of(worker.post(f"{qpath}/tasks/{task['id']}/complete", json={"data": {"paragraph": "x"}}))
    receiver.wait_for(1)
    queue = labels(org, queue_id)
    deadline = time.monotonic() + 10
    while (after := scrape(ops_server))[f"queuedesk_webhook_pending{queue}"] != 0:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    delivered = 'queuedesk_webhook_deliveries_total{status="delivered"}'
    assert after[delivered] - before[delivered] >= 1
    assert after[f"queuedesk_webhook_oldest_pending_age_seconds{queue}"] == 0
    assert after[f"queuedesk_reviews_pending{queue}"] == 1
    review = body_of(admin_of.post(f"{qpath}/reviews/next"))
    body_of(admin_of.post(f"{qpath}/tasks/{review['id']}/review", json={"verdict": "accept"}))
    assert scrape(ops_server)[f"queuedesk_reviews_pending{queue}"] == 0
    assert scrape(ops_server)[f"queuedesk_tasks_pending{queue}"] == 0


def test_each_process_is_its_own_target_and_the_gauges_agree(backend: str, tmp_path: Path) -> None:
    """Two processes on one PostgreSQL database: the counters are each process's own, the gauges
    (read from the database) the same in both."""
    if backend != "postgresql":
        pytest.skip("PostgreSQL only: several processes share a PostgreSQL database")
    args = ["--metrics-token", TOKEN]
    first = ServerProcess(tmp_path / "shared.db", args, seed=ROLES_SEED, backend=backend).start()
    second = ServerProcess(tmp_path / "shared.db", args, backend=backend).start()
    try:
        with first.client("admin") as admin, first.client("worker") as worker:
            org = admin.get("/me").json()["organization_id"]
            queue_id, qpath = new_queue(admin, org)
            for n in range(3):
                create(admin, qpath, paragraph=str(n))
            claim(worker, qpath)
        one, two = scrape(first), scrape(second)
        queue = labels(org, queue_id)
        assert one[f"queuedesk_claims_total{queue}"] == 1
        assert f"queuedesk_claims_total{queue}" not in two
        assert one[f"queuedesk_tasks_pending{queue}"] == two[f"queuedesk_tasks_pending{queue}"] == 3
    finally:
        first.stop()
        second.stop()


# --- logs ------------------------------------------------------------------------------------------


def test_every_request_has_an_access_line_with_its_request_id_and_no_key_body_or_values(
    ops_server: ServerProcess, admin_of: httpx.Client, org: int
) -> None:
    queue_id, qpath = new_queue(admin_of, org)
    given = admin_of.post(
        f"{qpath}/tasks/create",
        json={"data": {"paragraph": SECRET_VALUE}},
        headers={"X-Request-Id": "trace-42.a"},
    )
    assert given.status_code == 200 and given.headers["x-request-id"] == "trace-42.a"
    made = admin_of.get(f"{qpath}/tasks")
    made_id = made.headers["x-request-id"]
    assert re.fullmatch(r"[0-9a-f]{16}", made_id)
    insane = admin_of.get(qpath, headers={"X-Request-Id": "no spaces <script>"})
    assert insane.headers["x-request-id"] != "no spaces <script>"
    refused = admin_of.get("/orgs/999999/queues", headers={"X-Request-Id": "refused-1"})
    assert refused.status_code == 404 and refused.headers["x-request-id"] == "refused-1"
    # Access lines are written in batches: wait for the last request's (the ones before are in by then).
    deadline = time.monotonic() + 20
    while not any(line.get("request_id") == "refused-1" for line in json_lines(ops_server)):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    access = {
        line["request_id"]: line for line in json_lines(ops_server) if line["logger"] == "queuedesk.access"
    }
    line = access["trace-42.a"]
    assert line["method"] == "POST" and line["route"] == "/orgs/{org}/queues/{queue}/tasks/create"
    assert line["status"] == 200 and line["organization_id"] == org and line["duration_ms"] > 0
    assert access[made_id]["route"] == "/orgs/{org}/queues/{queue}/tasks"
    assert access["refused-1"]["status"] == 404
    log = ops_server.log()
    for never in (SECRET_VALUE, KEYS["admin"], TOKEN):
        assert never not in log, f"{never!r} in the log"
    assert str(queue_id) not in json.dumps(line["route"])


def test_the_start_line_says_version_database_address_and_schema(
    ops_server: ServerProcess, backend: str
) -> None:
    from queuedesk import __version__
    from queuedesk.server.store.schema import LATEST

    started = next(line for line in json_lines(ops_server) if "serving" in line["message"])
    assert started["version"] == __version__
    assert started["database"] == backend
    assert started["address"] == f"127.0.0.1:{ops_server.port}"
    assert started["schema_version"] == LATEST
    created = [line for line in json_lines(ops_server) if line["logger"] == "queuedesk.schema"]
    assert created and created[0]["schema_version"] == LATEST


def test_log_level_warning_writes_no_access_lines(backend: str, tmp_path: Path) -> None:
    server = ServerProcess(
        tmp_path / "quiet.db", ["--log-level", "warning"], seed=ROLES_SEED, backend=backend
    )
    with server.running(), server.client("admin") as admin:
        for _ in range(3):
            assert admin.get("/me").status_code == 200
    assert "queuedesk.access" not in server.log()
    assert "serving" not in server.log()


def test_failing_deliveries_are_logged_at_most_once_a_minute(
    ops_server: ServerProcess, admin_of: httpx.Client, org: int
) -> None:
    """Twenty deliveries to a receiver that answers 500: each attempt fails and is retried, and the
    log says so once (with a count of the rest later), not twenty times."""
    failing = Receiver(answer=lambda _n: (500, 0.0)).start()
    try:
        _queue_id, qpath = new_queue(admin_of, org)
        assert admin_of.put(f"{qpath}/webhook", json={"target": failing.url}).status_code == 200
        with ops_server.client("worker") as worker:
            for n in range(20):
                create(admin_of, qpath, paragraph=str(n))
                task = claim(worker, qpath)
                body_of(
                    worker.post(f"{qpath}/tasks/{task['id']}/complete", json={"data": {"paragraph": "x"}})
                )
        failing.wait_for(20)
        time.sleep(0.5)
        failures = [
            line
            for line in json_lines(ops_server)
            if line["logger"] == "queuedesk.webhooks" and "retried later" in line["message"]
        ]
        assert failures, "no line says that deliveries fail"
        # One line a minute at most (this module's other tests may have had theirs logged first).
        assert len([line for line in failures if failing.url.split("/hook")[0] in line["message"]]) <= 1
        assert len(failures) <= 2, failures
    finally:
        failing.stop()


def test_doctor_finds_and_fixes_a_backlog_count_that_drifted(
    ops_server: ServerProcess, admin_of: httpx.Client, org: int
) -> None:
    """The counts the gauges read are checked against their rows like every other counter, and a
    missing trigger is reported and made again."""
    from tests.support import execute_sql, run_cli

    queue_id, _qpath = new_queue(admin_of, org)
    execute_sql(
        ops_server.db_url,
        f"INSERT INTO queue_backlogs (queue_id, reviews_pending, webhook_pending) VALUES ({queue_id}, 7, 3)",
    )
    found = run_cli(["doctor", "--db", ops_server.db_url])
    assert found.returncode == 1
    assert (
        f"queue {queue_id} counts 7 review(s) and 3 delivery(ies) waiting; its rows say 0 and 0"
        in found.stderr
    )
    assert run_cli(["doctor", "--db", ops_server.db_url, "--fix"]).returncode == 1
    assert run_cli(["doctor", "--db", ops_server.db_url]).returncode == 0
    assert scrape(ops_server)[f"queuedesk_reviews_pending{labels(org, queue_id)}"] == 0
