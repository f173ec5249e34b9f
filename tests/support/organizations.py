"""An organization of the test's own on the session server: one of the spare organizations seeded
there (tests.support.seeds), handed out once per server, so a test may add, change, disable or demote
its people and revoke their keys without touching Acme, whose keys every other test uses."""

import itertools
from dataclasses import dataclass, field

import httpx

from tests.support.loopback import loopback_client
from tests.support.processes import ServerProcess
from tests.support.seeds import SPARE_ORGANIZATIONS, spare_email, spare_key, spare_name

_handed_out: dict[str, "itertools.count[int]"] = {}


@dataclass
class Organization:
    """A spare organization: its id and name, its people's keys and emails, clients that act as them."""

    server: ServerProcess
    number: int
    id: int = 0
    _clients: list[httpx.Client] = field(default_factory=list)

    @property
    def name(self) -> str:
        return spare_name(self.number)

    @property
    def path(self) -> str:
        return f"/orgs/{self.id}"

    def key(self, role: str = "admin") -> str:
        return spare_key(self.number, role)

    def email(self, role: str = "admin") -> str:
        return spare_email(self.number, role)

    def client(self, role: str = "admin") -> httpx.Client:
        """A client signed in as this organization's `role`; closed when the test ends."""
        made = loopback_client(
            self.server.url, headers={"Authorization": f"Token {self.key(role)}"}, timeout=30
        )
        self._clients.append(made)
        return made

    def close(self) -> None:
        for client in self._clients:
            client.close()


def next_organization(server: ServerProcess) -> Organization:
    """The next spare organization of `server` that no test has had yet."""
    number = next(_handed_out.setdefault(f"{server.url} {server.db_path}", itertools.count(1)))
    if number > SPARE_ORGANIZATIONS:
        raise RuntimeError(
            f"every one of the {SPARE_ORGANIZATIONS} spare organizations of {server.url} is taken: "
            "raise SPARE_ORGANIZATIONS in tests/support/seeds.py"
        )
    organization = Organization(server, number)
    me = organization.client("admin").get("/me")
    assert me.status_code == 200, (me.status_code, me.text)
    organization.id = me.json()["organization_id"]
    return organization
