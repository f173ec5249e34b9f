"""An answer's bytes are capped (issue 43, finding 2): a page of large tasks holds fewer than `limit`
items, at most 4 MiB of them, and its `next` starts after its last item, so following `next` reads
every task once, in order."""

import httpx

from tests.conftest import make_queue
from tests.support.contract import body_of

BIG = 400 * 1024
CAP = 4 * 1024 * 1024


def test_a_page_of_large_tasks_ends_early_and_next_follows_its_last_item(
    admin: httpx.Client, org_id: int
) -> None:
    blocks = [{"id": "text", "name": "Text", "type": "text", "text": {}}]
    qpath = f"/orgs/{org_id}/queues/{make_queue(admin, org_id, blocks)['id']}"
    created = [
        body_of(admin.post(f"{qpath}/tasks/create", json={"data": {"text": f"{n:04d}" + "x" * BIG}}))["id"]
        for n in range(24)
    ]
    seen: list[int] = []
    sizes: list[int] = []
    url: str | None = f"{qpath}/tasks?limit=1000"
    while url is not None:
        answer = admin.get(url)
        page = body_of(answer)
        assert page["count"] == 24
        sizes.append(len(answer.content))
        seen += [task["id"] for task in page["tasks"]]
        url = page["next"]
    assert seen == created  # each once, oldest first
    assert len(sizes) >= 3 and max(sizes) <= CAP + 64 * 1024, sizes
    small = body_of(admin.get(f"{qpath}/tasks", params={"limit": 5}))
    assert len(small["tasks"]) == 5 and "offset=5" in small["next"]  # under the cap: pages as before
