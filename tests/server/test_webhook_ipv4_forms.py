"""The SSRF guard over HTTP, for IPv6 forms that carry an internal IPv4 address and for site-local
addresses: refused with the envelope when set (A7), blocked when sent (B16's test ping goes through
the delivery's own checks) on a server without --allow-private-webhooks."""

import json

import pytest

from tests.support import ROLES_SEED, ServerProcess, assert_envelope

# Each of these reached the network before: the standard library calls them global.
CARRIERS = [
    "http://[::7f00:1]:9000/hook",  # IPv4-compatible 127.0.0.1
    "http://[::127.0.0.1]/hook",
    "http://[::ffff:0:a9fe:a9fe]/latest/meta-data",  # IPv4-translated 169.254.169.254
    "http://[64:ff9b::a9fe:a9fe]/latest/meta-data",  # NAT64 169.254.169.254
    "http://[64:ff9b:1::a00:1]/hook",  # local-use NAT64
    "http://[fec0::1]/hook",  # site-local
]


@pytest.fixture(scope="module")
def guarded(tmp_path_factory, backend):
    """A server refusing private targets; its seed (trusted as written) gives queues 2.. these targets."""
    seed = json.loads(json.dumps(ROLES_SEED))
    queues = seed["organizations"][0]["queues"]
    template = {key: value for key, value in queues[0].items() if key != "tasks"}
    queues.extend({**template, "name": f"carrier {i}", "webhook": t} for i, t in enumerate(CARRIERS))
    server = ServerProcess(
        tmp_path_factory.mktemp("carriers") / "guard.db", seed=seed, backend=backend
    ).start()
    yield server
    server.stop()


@pytest.mark.parametrize("target", CARRIERS)
def test_such_a_target_is_refused_when_set_with_the_envelope(guarded, target):
    with guarded.client("admin") as admin:
        before = admin.get("/orgs/1/queues/1/webhook").json()
        body = assert_envelope(
            admin.put("/orgs/1/queues/1/webhook", json={"target": target}), 400, "invalid_value", "target"
        )
        assert "not a public address" in body["errors"][0]["message"]
        assert admin.get("/orgs/1/queues/1/webhook").json() == before


@pytest.mark.parametrize("index", range(len(CARRIERS)), ids=CARRIERS)
def test_such_a_target_is_blocked_at_send_time(guarded, index):
    qpath = f"/orgs/1/queues/{index + 2}"
    with guarded.client("admin") as admin:
        assert admin.get(f"{qpath}/webhook").json() == {"target": CARRIERS[index]}
        answer = admin.post(f"{qpath}/webhook/test")
    assert answer.status_code == 200, answer.text
    assert answer.json()["status_code"] is None
    assert answer.json()["error"].startswith("blocked:"), answer.json()
