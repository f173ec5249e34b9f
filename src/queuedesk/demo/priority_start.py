"""The demo's priorities, due dates (B24) and reservations (B25) on its first run: `Receipt checks`
gets tasks due at moments around the demo's start (two overdue already, two that fall due in the
first minutes, while you watch, the rest later) and one of high priority; `Support triage` gets a
few tasks reserved for the demo's worker, one of them due soon, which reach them (`--role worker`)
before any other work and nobody else.

Over HTTP like any client, before the colleagues start; on a server without B24 (or B25) that part
is left out. Due dates are relative to the moment the demo starts."""

import random
from datetime import date, datetime, timedelta

from queuedesk.api import errors
from queuedesk.api.client import QueueDeskClient
from queuedesk.api.timestamps import utcnow
from queuedesk.demo.content import RECEIPTS, TRIAGE, new_task

ADMIN_KEY = "demo-admin-key-0000000000000001"
DEMO_WORKER = "wren@demo.test"
# (minutes from the start, priority) of the receipts with a due date
DUE_RECEIPTS: tuple[tuple[int, int], ...] = ((-120, 0), (-20, 0), (2, 0), (5, 0), (90, 5), (8 * 60, 0))
# (due in minutes or None, priority) of wren's tasks
RESERVED: tuple[tuple[int | None, int], ...] = ((15, 0), (None, 0), (None, -1))


def _due(now: datetime, minutes: int | None) -> datetime | None:
    return None if minutes is None else now + timedelta(minutes=minutes)


async def start_priorities(url: str) -> int:
    """Make the demo's tasks with due dates and reservations; how many were made. What fails is
    left undone: the demo runs on without it."""
    made = 0
    try:
        async with QueueDeskClient(url, ADMIN_KEY, 1, timeout=10.0) as admin:
            ids = {q.name: q.id for q in await admin.queues()}
            rng, now = random.Random(24), utcnow()
            if await admin.supports_priority() and RECEIPTS in ids:
                for minutes, priority in DUE_RECEIPTS:
                    data = new_task(RECEIPTS, rng, date.today(), "")
                    await admin.create_task(ids[RECEIPTS], data, priority=priority, due_at=_due(now, minutes))
                    made += 1
            if await admin.supports_assignment() and TRIAGE in ids:
                dated = await admin.supports_priority()
                for due_in, rank in RESERVED:
                    data = new_task(TRIAGE, rng, date.today(), "")
                    await admin.create_task(
                        ids[TRIAGE],
                        data,
                        reserved_for=DEMO_WORKER,
                        priority=rank if dated and rank else None,
                        due_at=_due(now, due_in) if dated else None,
                    )
                    made += 1
    except errors.QueueDeskError:
        pass
    return made
