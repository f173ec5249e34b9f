"""Each organization's queue listing (A3), kept as the bytes answered while nothing it reads has changed.

Supervisors' and workers' apps list their organization's queues every few seconds, mostly to find
that nothing moved. On SQLite the database says cheaply whether anything was written since a
listing was made (`Database.change_stamp`): this process's writes on the loop's connection, and
every other connection's commits (the long writer, another process, a SQL shell). The listing also
changes with time alone, when the last live claim of an active user lapses, so it is kept until
then at the latest. PostgreSQL has no such stamp: there every listing is read afresh.
"""

from dataclasses import dataclass

DEFAULT_LIMIT = 1_000  # organizations kept; past that the memory starts over


@dataclass(frozen=True)
class _Kept:
    stamp: tuple[int, int]
    made_at: int  # micros: a clock set back (tests' clocks) is not served a listing made later
    lapses_at: int | None  # micros: when the first active user drops out with no write
    body: bytes


class QueueListings:
    def __init__(self, limit: int = DEFAULT_LIMIT) -> None:
        self.limit = limit
        self._kept: dict[int, _Kept] = {}

    def get(self, organization_id: int, stamp: tuple[int, int] | None, now: int) -> bytes | None:
        """The listing's bytes, if one was made at `stamp` and is still true at `now` (micros)."""
        kept = self._kept.get(organization_id)
        if kept is None or stamp is None or kept.stamp != stamp or now < kept.made_at:
            return None
        if kept.lapses_at is not None and now >= kept.lapses_at:
            return None
        return kept.body

    def keep(
        self,
        organization_id: int,
        stamp: tuple[int, int] | None,
        now: int,
        lapses_at: int | None,
        body: bytes,
    ) -> None:
        """Keep a listing read at `stamp` (taken before the read began) and `now`."""
        if stamp is None:
            return
        if len(self._kept) >= self.limit:
            self._kept.clear()
        self._kept[organization_id] = _Kept(stamp, now, lapses_at, body)
