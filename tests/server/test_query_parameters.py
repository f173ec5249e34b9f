# ruff: noqa: RUF001 - other scripts' digits are what this file sends
"""Query and path values never make a 500: a number is ASCII digits only, a date a real ISO 8601
moment; anything else is a 4xx with the envelope.

The known cases first; then hypothesis over every parameter of every operation the server's own
OpenAPI document lists: text (with other scripts' digits, superscripts, circled numbers), huge and
negative numbers, dates with any offset and dates that do not exist. Each parameter gets a fixed
list of awkward values and a few generated ones (tests/unit's QUEUEDESK_EXAMPLES sets how many).
"""

from datetime import datetime, timedelta, timezone
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import make_queue
from tests.support import ServerProcess, assert_envelope
from tests.unit.strategies import EXAMPLES

LISTS = ("/tasks/completed", "/tasks", "/webhook/deliveries")


@pytest.mark.parametrize("suffix", LISTS)
@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("limit", "²"),  # str.isdigit says yes, int() says no: was a 500
        ("offset", "①"),
        ("limit", "١"),  # Arabic-Indic 1: was read as 1
        ("limit", "５"),  # fullwidth 5
        ("offset", "١٠"),
        ("limit", "9" * 5000),  # beyond int()'s digit limit: was a 500
        ("offset", "1" * 19),
        ("limit", "-1"),
        ("limit", "+5"),
        ("limit", " 5"),
        ("limit", "5\n"),
        ("limit", "1e2"),
        ("limit", ""),
    ],
)
def test_a_paging_value_that_is_not_ascii_digits_is_invalid(admin, qpath, suffix, name, value):
    response = admin.get(qpath + suffix, params={name: value})
    body = assert_envelope(response, 400, "invalid_parameter", name)
    assert len(response.content) < 1000, body


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("start_date", "9999-12-31T23:59:59-14:00"),  # past year 9999 once in UTC
        ("end_date", "9999-12-31T23:59:59-14:00"),
        ("start_date", "0001-01-01T00:00:00+14:00"),  # before year 1 once in UTC
        ("start_date", "٢٠٢٦-٠١-٠١"),
        ("end_date", "２０２６-01-01"),
        ("start_date", "2026-02-30"),
        ("end_date", "2026-01-01T24:00:00"),
        ("start_date", "2026-01-01T00:00:00+24:00"),
        ("start_date", "2" * 5000),
    ],
)
def test_a_moment_that_does_not_exist_is_invalid(admin, qpath, name, value):
    assert_envelope(
        admin.get(f"{qpath}/tasks/completed", params={name: value}), 400, "invalid_parameter", name
    )


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("bucket_minutes", "²"),
        ("bucket_minutes", "１５"),
        ("since", "２０２６-01-01"),
        ("since", "9999-12-31T23:59:59-14:00"),
    ],
)
def test_a_stats_value_that_is_not_ascii_is_invalid(admin, qpath, name, value):
    assert_envelope(admin.get(f"{qpath}/stats", params={name: value}), 400, "invalid_parameter", name)


def test_ascii_values_still_page(admin, qpath):
    assert admin.get(f"{qpath}/tasks", params={"limit": "5", "offset": "0"}).status_code == 200
    page = admin.get(f"{qpath}/tasks/completed", params={"limit": "1000", "start_date": "2026-01-01"})
    assert page.status_code == 200, page.text


# --- every parameter of every operation ---------------------------------------------------------

AWKWARD = [
    "",
    "0",
    "-1",
    "²",
    "①",
    "١",
    "５",
    "Ⅻ",
    "1\u200b",
    "9" * 19,
    "9" * 5000,
    "1e309",
    "NaN",
    "me",
    "\x00",
    "../..",
    "a/b?c#d",
    "9999-12-31T23:59:59-14:00",
    "0001-01-01T00:00:00+14:00",
    "0000-00-00",
    "2026-11-21T04:38:42.564772Z",
    "new,open,closed",
]
unicode_digits = st.text(st.characters(categories=("Nd", "No", "Nl")), min_size=1, max_size=6)
huge = st.integers(min_value=10**17, max_value=10**40) | st.integers(min_value=-(10**30), max_value=-1)
offsets = st.integers(min_value=-1439, max_value=1439).map(lambda m: timezone(timedelta(minutes=m)))
moments = st.builds(
    lambda moment, offset: moment.replace(tzinfo=offset).isoformat(),
    st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59)),
    offsets,
)
edge_moments = st.builds(
    lambda day, offset: day.replace(tzinfo=offset).isoformat(),
    st.sampled_from([datetime(1, 1, 1), datetime(9999, 12, 31, 23, 59, 59, 999999)]),
    offsets,
)
impossible_dates = st.builds(
    "{:04d}-{:02d}-{:02d}".format,
    st.integers(min_value=0, max_value=99999),
    st.integers(min_value=0, max_value=99),
    st.integers(min_value=0, max_value=99),
)
values = st.one_of(
    st.text(st.characters(exclude_categories=("Cs",)), max_size=30),
    unicode_digits,
    huge.map(str),
    moments,
    edge_moments,
    impossible_dates,
    st.sampled_from(AWKWARD),
)


def _is_id(value: str) -> bool:
    """What the router takes as an id: a real id reaches a handler, which is not this test's business
    for a path (and on DELETE or POST would change the data)."""
    return value.isascii() and value.isdigit() and value[0] != "0" and len(value) <= 18


def _parameters(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method.upper(), path, parameter)
        for path, operations in document["paths"].items()
        for method, operation in operations.items()
        for parameter in operation.get("parameters", [])
    ]


def _path_names(path: str) -> list[str]:
    return [part[1:-1] for part in path.split("/") if part.startswith("{")]


def _check(response: httpx.Response, what: str) -> None:
    assert response.status_code < 500, (what, response.status_code, response.text[:500])
    if response.status_code >= 400:
        assert_envelope(response, response.status_code)


@pytest.fixture(scope="module")
def real_ids(clients, org_id) -> dict[str, str]:
    """Ids that exist, for the parameters not under test: the values reach the handlers."""
    queue = make_queue(clients["admin"], org_id)
    task = clients["admin"].post(
        f"/orgs/{org_id}/queues/{queue['id']}/tasks/create", json={"data": {"paragraph": "p"}}
    )
    return {
        "org": str(org_id),
        "queue": str(queue["id"]),
        "task": str(task.json()["id"]),
        "delivery": "1",
        "user": "1",
        "key": "1",
    }


def test_no_value_of_any_parameter_is_a_server_error(server: ServerProcess, admin, real_ids):
    document = httpx.get(f"{server.url}/openapi.json", timeout=30).json()
    parameters = _parameters(document)
    assert any(p["in"] == "query" for _, _, p in parameters) and any(
        p["in"] == "path" for _, _, p in parameters
    )

    def send(method: str, path: str, parameter: dict[str, Any], value: str) -> None:
        name = parameter["name"]
        ids = {key: real_ids.get(key, "1") for key in _path_names(path)}
        if parameter["in"] == "path":
            if _is_id(value):
                return
            ids[name] = quote(value, safe="")
        url = path.format(**ids)
        params = {name: value} if parameter["in"] == "query" else None
        _check(admin.request(method, url, params=params), f"{method} {path} {name}={value!r}")

    for method, path, parameter in parameters:
        for value in AWKWARD:
            send(method, path, parameter, value)

        _generated(send, method, path, parameter)()


def _generated(send: Any, method: str, path: str, parameter: dict[str, Any]) -> Any:
    """Hypothesis over one parameter: more examples for a query value than for a path's id."""

    @settings(
        max_examples=max(3, EXAMPLES // (3 if parameter["in"] == "query" else 10)),
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(values)
    def generated(value: str) -> None:
        send(method, path, parameter, value)

    return generated
