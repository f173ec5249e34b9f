"""What the server keeps between requests: a queue listing while its stamp and clock hold, and an
access version for one turn of the event loop."""

import asyncio

from queuedesk.server.access_cache import AccessCache
from queuedesk.server.queue_listings import QueueListings


def test_a_kept_listing_is_served_only_at_its_stamp_before_it_lapses() -> None:
    listings = QueueListings()
    listings.keep(1, (10, 1), now=1_000, lapses_at=5_000, body=b"[]")
    assert listings.get(1, (10, 1), 4_999) == b"[]"
    assert listings.get(1, (11, 1), 2_000) is None  # this process wrote since
    assert listings.get(1, (10, 2), 2_000) is None  # another connection committed since
    assert listings.get(1, (10, 1), 5_000) is None  # a user's last lease lapsed
    assert listings.get(1, (10, 1), 999) is None  # a clock set back before it was made
    assert listings.get(2, (10, 1), 2_000) is None  # another organization's


def test_nothing_is_kept_without_a_stamp() -> None:
    listings = QueueListings()
    listings.keep(1, None, now=1_000, lapses_at=None, body=b"[]")
    assert listings.get(1, None, 1_000) is None


def test_the_memory_starts_over_at_its_limit() -> None:
    listings = QueueListings(limit=2)
    for organization in (1, 2, 3):
        listings.keep(organization, (1, 1), now=0, lapses_at=None, body=b"[]")
    assert [listings.get(o, (1, 1), 0) for o in (1, 2, 3)] == [None, None, b"[]"]


def test_an_access_version_is_kept_for_the_rest_of_its_turn_only() -> None:
    async def turns() -> list[int | None]:
        cache = AccessCache()
        cache.keep_for_this_turn(41)
        seen = [cache.version_this_turn]
        await asyncio.sleep(0)  # the next turn of the loop
        seen.append(cache.version_this_turn)
        return seen

    assert asyncio.run(turns()) == [41, None]
