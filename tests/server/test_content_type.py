"""The body's declared type: JSON (`application/json`, any `application/*+json`, UTF-8) is read;
anything else declared is 415 with the envelope; no Content-Type at all is read as JSON, for old
clients."""

import json

import httpx
import pytest

from tests.support import assert_envelope

TASK = json.dumps({"data": {"paragraph": "hello"}}).encode()


def _create(client: httpx.Client, qpath: str, content_type: str | None) -> httpx.Response:
    headers = {} if content_type is None else {"Content-Type": content_type}
    return client.post(f"{qpath}/tasks/create", content=TASK, headers=headers)


@pytest.mark.parametrize(
    "content_type",
    [
        "text/plain",
        "text/plain; charset=utf-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "text/json",
        "application/xml",
        "application/jsonp",
        "application/json; charset=iso-8859-1",
        "",
    ],
)
def test_a_body_declared_as_something_else_is_415_and_creates_nothing(admin, qpath, content_type):
    body = assert_envelope(_create(admin, qpath, content_type), 415, "unsupported_media_type")
    assert "application/json" in body["errors"][0]["message"]
    assert admin.get(f"{qpath}/tasks").json()["count"] == 0


@pytest.mark.parametrize(
    "content_type",
    [
        None,
        "application/json",
        "application/json; charset=utf-8",
        "Application/JSON; Charset=UTF-8",
        'application/json;charset="utf-8"',
        "application/vnd.queuedesk+json",
        "application/merge-patch+json",
    ],
)
def test_json_or_no_declared_type_is_read(admin, qpath, content_type):
    response = _create(admin, qpath, content_type)
    assert response.status_code == 200, response.text
    assert response.json()["data"]["paragraph"] == "hello"


@pytest.mark.parametrize(
    ("method", "suffix", "body"),
    [
        ("POST", "/tasks/import", {"source": "manual", "tasks": [{"data": {"paragraph": "x"}}]}),
        ("PUT", "/webhook", {"target": ""}),
        ("PATCH", "", {"description": "x"}),
        ("POST", "/tasks/next", {"exclude": []}),
    ],
)
def test_every_endpoint_reading_a_body_refuses_other_types(admin, qpath, method, suffix, body):
    response = admin.request(
        method, qpath + suffix, content=json.dumps(body).encode(), headers={"Content-Type": "text/plain"}
    )
    assert_envelope(response, 415, "unsupported_media_type")


def test_an_empty_body_with_another_type_is_no_body(worker, qpath):
    """A claim without a body, from a client that labels every request."""
    response = worker.post(f"{qpath}/tasks/next", content=b"", headers={"Content-Type": "text/plain"})
    assert response.status_code == 204, response.text


def test_authentication_comes_before_the_body_type(clients, qpath):
    response = clients["anonymous"].post(
        f"{qpath}/tasks/create", content=TASK, headers={"Content-Type": "text/plain"}
    )
    assert_envelope(response, 401)
