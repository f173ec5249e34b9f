"""The caller (B1 /me) and the health check (B14).

Each endpoint's success answer, field by field, against /work/shared/API.md, over real HTTP.
Every test talks to a real `queuedesk serve` process (the session `server` fixture)
and works in a fresh queue, so tests never see each other's tasks.
"""

import pytest

import queuedesk
from tests.support.contract import (
    body_of,
)

# --- B1 /me -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("role", "email", "name", "user_role", "organization"),
    [
        ("admin", "ada@acme.test", "Ada", "admin", "Acme"),
        ("supervisor", "sue@acme.test", "Sue", "supervisor", "Acme"),
        ("worker", "wes@acme.test", "Wes", "worker", "Acme"),
        ("worker2", "wyn@acme.test", "Wyn", "worker", "Acme"),
        ("other_admin", "gus@globex.test", "Gus", "admin", "Globex"),
    ],
)
def test_me_describes_the_caller(clients, org_id, other_org, role, email, name, user_role, organization):
    me = body_of(clients[role].get("/me"))
    assert list(me) == [
        "email",
        "name",
        "role",
        "organization_id",
        "organization",
        "server",
        "version",
        "features",
    ]
    assert me["email"] == email
    assert me["name"] == name
    assert me["role"] == user_role
    assert me["organization"] == organization
    assert me["organization_id"] == (other_org["org"] if organization == "Globex" else org_id)
    assert isinstance(me["organization_id"], int)
    assert me["server"] == "queuedesk"
    assert me["version"] == queuedesk.__version__
    assert org_id != other_org["org"]


# --- B14 health ---------------------------------------------------------------------------------


def test_healthz_answers_without_authentication(clients):
    response = clients["anonymous"].get("/healthz")
    assert "authorization" not in {k.lower() for k in response.request.headers}
    assert body_of(response) == {"status": "ok"}
