"""A NUL in a queue's name or description is a 400 on both databases (PostgreSQL text cannot hold
one: it was a 500 there, found by test_bad_input's random queue definitions)."""

import pytest

from tests.support import CORE_BLOCKS, assert_envelope


@pytest.mark.parametrize(("field", "value"), [("name", "a\x00b"), ("description", "\x00")])
def test_a_nul_in_a_queue_field_is_invalid(admin, org_id, qpath, field, value):
    body = {"name": "NUL queue", "data": CORE_BLOCKS, field: value}
    assert_envelope(admin.post(f"/orgs/{org_id}/queues", json=body), 400, "invalid_value", field)
    assert_envelope(admin.patch(qpath, json={field: value}), 400, "invalid_value", field)
