"""What a claim hands out, for tasks (B4) and reviews (B19) alike: the caller's own claim again, or
the next claimable row; when claiming ahead (`exclude`), at most `CLAIM_LIMIT` live claims."""

from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy import Connection

from queuedesk.server.rules.refusals import ClaimLimit
from queuedesk.server.store.claims import Claims

CLAIM_LIMIT = 3  # live claims one caller may hold in one queue by claiming ahead (B4, B19)
MAX_EXCLUDE = 10  # ids a claim ahead may exclude
TAKE_ATTEMPTS = 8  # candidates a claim tries when others keep taking them first

# Another order's way to claim a new row: (conn, queue id, user id, now, lease until, attempts) ->
# the row claimed, or None (see store/claim_order.py).
NextRow = Callable[[Connection, int, int, datetime, datetime, int], int | None]


def claim(
    conn: Connection,
    claims: Claims,
    queue_id: int,
    user_id: int,
    now: datetime,
    lease: timedelta,
    exclude: frozenset[int],
    limit_error: type[ClaimLimit],
    next_row: NextRow | None = None,
) -> tuple[int | None, int]:
    """The caller's oldest claim not in `exclude`, renewed, or the next claimable row: its id; else
    (None, rows held by others). With `exclude` (claiming ahead), a new row only while the caller
    holds fewer than CLAIM_LIMIT live claims in the queue (else `limit_error`), and never the
    caller's own expired claim. `next_row` claims in another order than the oldest first."""
    lease_until = now + lease
    if exclude:
        own = _own_claim_ahead(conn, claims, queue_id, user_id, now, lease_until, exclude, limit_error)
    else:
        own = claims.own_claim(conn, queue_id, user_id)
        if own is not None and not claims.renew_own(conn, own, user_id, lease_until):
            own = None
    if own is not None:
        return own, 0
    if next_row is not None:
        taken = next_row(conn, queue_id, user_id, now, lease_until, TAKE_ATTEMPTS)
        return (
            (taken, 0) if taken is not None else (None, claims.held_by_others(conn, queue_id, user_id, now))
        )
    for _attempt in range(TAKE_ATTEMPTS):
        candidate = claims.next_claimable(conn, queue_id, user_id, now, others_only=bool(exclude))
        if candidate is None:
            break
        if claims.take(conn, candidate, user_id, now, lease_until):
            return candidate, 0
    return None, claims.held_by_others(conn, queue_id, user_id, now)


def _own_claim_ahead(
    conn: Connection,
    claims: Claims,
    queue_id: int,
    user_id: int,
    now: datetime,
    lease_until: datetime,
    exclude: frozenset[int],
    limit_error: type[ClaimLimit],
) -> int | None:
    """The id of the caller's oldest claim not excluded, renewed; None when a new row may be
    claimed; `limit_error` when the caller already holds CLAIM_LIMIT live claims."""
    # Two claims ahead at once must not both count two claims and take a third and a fourth.
    claims.lock_claims_of(conn, queue_id, user_id)
    # At most MAX_EXCLUDE claims are excluded, so the first one that is not is among the first
    # MAX_EXCLUDE + 1; when none is, all were read.
    held = claims.own_claims(conn, queue_id, user_id, now, MAX_EXCLUDE + 1)
    for held_claim in held:
        if held_claim.task_id not in exclude and claims.renew_own(
            conn, held_claim.task_id, user_id, lease_until
        ):
            return held_claim.task_id
    live = [held_claim.task_id for held_claim in held if held_claim.live]
    if len(live) >= CLAIM_LIMIT:
        raise limit_error(live)
    return None
