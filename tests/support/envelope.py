"""The contract's error envelope, checked on a response."""

import httpx


def assert_envelope(
    response: httpx.Response, status: int, code: str | None = None, field: str | None = None
) -> dict:
    """The response is the contract's error envelope with this status (and code, and field)."""
    assert response.status_code == status, (response.status_code, response.text)
    assert response.headers["content-type"].startswith("application/json"), response.headers
    body = response.json()
    assert set(body) <= {"status_code", "errors", "truncated"} and "errors" in body, body
    if "truncated" in body:  # how many errors were found beyond those listed
        assert isinstance(body["truncated"], int) and body["truncated"] > 0, body
    assert body["status_code"] == status
    assert body["errors"], body
    for item in body["errors"]:
        assert isinstance(item["message"], str) and item["message"]
        assert set(item) <= {"code", "field", "message"}
    if code is not None:
        assert code in [e.get("code") for e in body["errors"]], body
    if field is not None:
        assert field in [e.get("field") for e in body["errors"]], body
    return body
