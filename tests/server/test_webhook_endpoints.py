"""A queue's webhook target (A6, A7).

Each endpoint's success answer, field by field, against /work/shared/API.md, over real HTTP.
Every test talks to a real `queuedesk serve` process (the session `server` fixture)
and works in a fresh queue, so tests never see each other's tasks.
"""

from tests.support.contract import (
    assert_empty_200,
    body_of,
)

# --- A6 / A7 webhook ----------------------------------------------------------------------------


def test_webhook_get_set_patch_and_remove(clients, admin, queue, qpath):
    supervisor = clients["supervisor"]
    hook = f"{qpath}/webhook"
    assert body_of(admin.get(hook)) == {"target": ""}

    assert_empty_200(admin.put(hook, json={"target": "http://127.0.0.1:9/hook"}))
    assert body_of(admin.get(hook)) == {"target": "http://127.0.0.1:9/hook"}
    assert body_of(supervisor.get(hook)) == {"target": "http://127.0.0.1:9/hook"}

    assert_empty_200(admin.patch(hook, json={"target": "https://localhost:8443/other?x=1"}))
    assert body_of(admin.get(hook)) == {"target": "https://localhost:8443/other?x=1"}

    assert_empty_200(admin.put(hook, json={"target": ""}))
    assert body_of(admin.get(hook)) == {"target": ""}

    assert_empty_200(admin.put(hook, json={"target": "http://127.0.0.1:9/again"}))
    assert body_of(admin.get(hook)) == {"target": "http://127.0.0.1:9/again"}
    assert_empty_200(admin.put(hook, json={"target": None}))
    assert body_of(admin.get(hook)) == {"target": ""}

    assert_empty_200(admin.patch(hook, json={"target": "http://10.0.0.1/patched"}))
    assert body_of(admin.get(hook)) == {"target": "http://10.0.0.1/patched"}
    assert_empty_200(admin.patch(hook, json={"target": None}))
    assert body_of(admin.get(hook)) == {"target": ""}

    assert_empty_200(admin.put(hook, json={"target": "http://127.0.0.1:9/delete-me"}))
    assert_empty_200(admin.delete(hook))
    assert body_of(supervisor.get(hook)) == {"target": ""}

    long_target = "http://127.0.0.1:9/" + "a" * (2048 - len("http://127.0.0.1:9/"))
    assert len(long_target) == 2048
    assert_empty_200(admin.put(hook, json={"target": long_target}))
    assert body_of(admin.get(hook)) == {"target": long_target}
