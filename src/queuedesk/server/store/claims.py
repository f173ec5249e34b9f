"""The statements of a claim with a lease, for any table whose rows are claimed one at a time: tasks
(B4) and reviews (B19) share them, each naming its own table and columns.

Taking a row is a conditional update, so two callers can never be handed the same row, even on
PostgreSQL where `FOR UPDATE SKIP LOCKED` lets concurrent claims pass each other instead of waiting.
The rules that combine these statements (what a claim returns, the limit of claims ahead) are in
`server/rules/claiming.py`.
"""

from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from sqlalchemy import Connection

from queuedesk.server.store.sql import Sql, one, rows, run
from queuedesk.server.store.types import to_micros


@dataclass(frozen=True)
class ClaimTable:
    """Where a kind of claim lives: the table, its key, and the columns and states a claim moves."""

    table: str
    key: str  # the claimed row's id (a task id for both tables)
    state: str  # the state column
    fresh: str  # the state of rows never claimed, taken first
    returned: tuple[str, ...]  # states of rows given back (besides expired claims), taken next
    held: str  # the state of a claimed row
    holder: str  # the column naming the user who holds it
    since: str  # when it was taken
    lease: str  # until when the claim lives


class Claim(NamedTuple):
    task_id: int
    live: bool  # its lease has not expired


def _int4(value: int) -> int:
    """An id folded into PostgreSQL's signed 32 bits (two ids sharing a lock only wait on each other)."""
    folded = value & 0xFFFF_FFFF
    return folded - (1 << 32) if folded >= 1 << 31 else folded


# The two-key form: its locks never meet the one-key schema lock.
CLAIMS_LOCK = Sql("SELECT pg_advisory_xact_lock(:queue_key, :user_key)")


class Claims:
    """The claim statements of one table, written once and run as plain SQL (see `sql.py`)."""

    def __init__(self, spec: ClaimTable) -> None:
        t, key, state, holder, lease = spec.table, spec.key, spec.state, spec.holder, spec.lease
        held = f"{state} = '{spec.held}'"
        given_back = [f"{state} = '{s}'" for s in spec.returned]
        returned = " OR ".join([*given_back, f"({held} AND {lease} <= :now)"])
        # Claiming ahead: not the caller's own expired claim, which it still has on screen.
        returned_to_others = " OR ".join(
            [*given_back, f"({held} AND {lease} <= :now AND ({holder} IS NULL OR {holder} <> :user_id))"]
        )
        takeable = f"{state} IN ({', '.join(repr(s) for s in (spec.fresh, *spec.returned))})"
        mine = f"queue_id = :queue_id AND {held} AND {holder} = :user_id"
        pick = f"SELECT {key} FROM {t} WHERE queue_id = :queue_id AND"
        self.spec = spec
        self._own = Sql(f"SELECT {key} FROM {t} WHERE {mine} ORDER BY {key} LIMIT 1")
        self._own_claims = Sql(f"SELECT {key}, {lease} FROM {t} WHERE {mine} ORDER BY {key} LIMIT :limit")
        self._next_fresh = Sql(f"{pick} {state} = '{spec.fresh}' ORDER BY {key} LIMIT 1 {{skip_locked}}")
        self._next_returned = Sql(f"{pick} ({returned}) ORDER BY {key} LIMIT 1 {{skip_locked}}")
        self._next_returned_to_others = Sql(
            f"{pick} ({returned_to_others}) ORDER BY {key} LIMIT 1 {{skip_locked}}"
        )
        self._take = Sql(
            f"""UPDATE {t} SET {state} = '{spec.held}', {holder} = :user_id, {spec.since} = :now, {lease} = :lease
            WHERE {key} = :task_id AND ({takeable} OR ({held} AND {lease} <= :now))"""
        )
        self._renew = Sql(f"UPDATE {t} SET {lease} = :lease WHERE {key} = :task_id")
        # Renewing a claim found by a select: on PostgreSQL another caller may take it over in between
        # (once its lease has expired), so the update says whose it must still be.
        self._renew_own = Sql(
            f"UPDATE {t} SET {lease} = :lease WHERE {key} = :task_id AND {held} AND {holder} = :user_id"
        )
        self._held_by_others = Sql(
            f"SELECT count(*) FROM {t} WHERE queue_id = :queue_id AND {held} AND {lease} > :now "
            f"AND {holder} <> :user_id"
        )

    def own_claim(self, conn: Connection, queue_id: int, user_id: int) -> int | None:
        """The id of the caller's oldest claim in the queue, live or expired."""
        row = one(conn, self._own, queue_id=queue_id, user_id=user_id)
        return None if row is None else row[0]

    def own_claims(
        self, conn: Connection, queue_id: int, user_id: int, now: datetime, limit: int
    ) -> list[Claim]:
        """The caller's first `limit` claims in the queue, live or expired, oldest first."""
        now_us = to_micros(now)
        found = rows(conn, self._own_claims, queue_id=queue_id, user_id=user_id, limit=limit)
        return [Claim(task_id, expires is not None and expires > now_us) for task_id, expires in found]

    def renew_own(self, conn: Connection, task_id: int, user_id: int, lease_until: datetime) -> bool:
        """Extend the lease if the row is still the caller's claim."""
        return run(conn, self._renew_own, lease=to_micros(lease_until), task_id=task_id, user_id=user_id) == 1

    def renew(self, conn: Connection, task_id: int, lease_until: datetime) -> None:
        run(conn, self._renew, lease=to_micros(lease_until), task_id=task_id)

    def next_claimable(
        self, conn: Connection, queue_id: int, user_id: int, now: datetime, *, others_only: bool
    ) -> int | None:
        """The oldest fresh row, else the oldest returned one (given back, or its lease expired);
        with `others_only`, not one whose expired claim is the caller's own."""
        found = one(conn, self._next_fresh, queue_id=queue_id) or one(
            conn,
            self._next_returned_to_others if others_only else self._next_returned,
            queue_id=queue_id,
            now=to_micros(now),
            user_id=user_id,
        )
        return None if found is None else found[0]

    def take(
        self, conn: Connection, task_id: int, user_id: int, now: datetime, lease_until: datetime
    ) -> bool:
        """Claim the row for the caller, unless someone took it since it was found."""
        changed = run(
            conn,
            self._take,
            user_id=user_id,
            now=to_micros(now),
            lease=to_micros(lease_until),
            task_id=task_id,
        )
        return changed == 1

    def held_by_others(self, conn: Connection, queue_id: int, user_id: int, now: datetime) -> int:
        """Rows of the queue under others' live claims."""
        row = one(conn, self._held_by_others, queue_id=queue_id, now=to_micros(now), user_id=user_id)
        return row[0] if row else 0

    def lock_claims_of(self, conn: Connection, queue_id: int, user_id: int) -> None:
        """PostgreSQL: until the transaction ends, the caller's claims in the queue change in this one
        only. (SQLite's write transactions are serial anyway.)"""
        if conn.dialect.name == "postgresql":
            one(conn, CLAIMS_LOCK, queue_key=_int4(queue_id), user_key=_int4(user_id))
