"""Answers written straight to a connection, before any request reaches the application: each one the
contract's error envelope, and each one closes the connection."""

import json

REASONS = {
    400: "Bad Request",
    414: "URI Too Long",
    431: "Request Header Fields Too Large",
    503: "Service Unavailable",
}


def envelope_answer(status: int, code: str, message: str, *, retry_after: int | None = None) -> bytes:
    """A whole HTTP/1.1 answer carrying the error envelope, with `connection: close`."""
    body = json.dumps({"status_code": status, "errors": [{"code": code, "message": message}]}).encode()
    head = [
        f"HTTP/1.1 {status} {REASONS[status]}",
        "content-type: application/json",
        f"content-length: {len(body)}",
    ]
    if retry_after is not None:
        head.append(f"retry-after: {retry_after}")
    head.append("connection: close")
    return ("\r\n".join(head) + "\r\n\r\n").encode("ascii") + body
