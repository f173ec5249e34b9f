"""A page's items are capped in bytes (`queuedesk.server.http.plumbing.capped_items`)."""

import orjson

from queuedesk.server.http.plumbing import capped_items


def test_a_page_keeps_what_fits_in_its_bytes_and_always_its_first_item() -> None:
    items = [{"n": n, "text": "x" * 100} for n in range(10)]
    one = len(orjson.dumps(items[0])) + 1
    kept, shown = capped_items(items, cap=3 * one)
    assert shown == 3 and orjson.loads(orjson.dumps(kept)) == items[:3]
    assert capped_items(items, cap=10 * one)[1] is None  # all fit: a page as before
    kept, shown = capped_items(items, cap=1)
    assert shown == 1 and orjson.loads(orjson.dumps(kept)) == items[:1]  # the first always
    assert capped_items([])[0] == [] and capped_items([])[1] is None
