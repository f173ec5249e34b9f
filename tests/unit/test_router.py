"""The router (`queuedesk.server.http.asgi.Router`): a path's shape names its route, ids become parameters,
a known path with another method is a 405 naming the allowed ones, anything else a 404.

Built here with endpoints of its own: the router never calls them, it only hands them back.
"""

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from queuedesk.server.http.asgi import MAX_ID_DIGITS, Route, Router
from queuedesk.server.http.http_errors import ServiceError
from tests.unit.strategies import PROPERTY


def endpoint(name: str) -> Callable[..., Any]:
    async def handle(_request: Any) -> Any:
        raise AssertionError("the router only matches")

    handle.__name__ = name
    return handle


ME = endpoint("me")
LIST_QUEUES = endpoint("list_queues")
CREATE_QUEUE = endpoint("create_queue")
GET_QUEUE = endpoint("get_queue")
PATCH_QUEUE = endpoint("patch_queue")
GET_TASK = endpoint("get_task")
COMPLETE = endpoint("complete")
CLAIM = endpoint("claim")

ROUTER = Router(
    [
        Route("/me", ME, ("GET",)),
        Route("/orgs/{org}/queues", LIST_QUEUES, ("GET",)),
        Route("/orgs/{org}/queues", CREATE_QUEUE, ("POST",)),
        Route("/orgs/{org}/queues/{queue}", GET_QUEUE, ("GET",)),
        Route("/orgs/{org}/queues/{queue}", PATCH_QUEUE, ("PATCH", "PUT")),
        Route("/orgs/{org}/queues/{queue}/tasks/next", CLAIM, ("POST",)),
        Route("/orgs/{org}/queues/{queue}/tasks/{task}", GET_TASK, ("GET",)),
        Route("/orgs/{org}/queues/{queue}/tasks/{task}/complete", COMPLETE, ("POST",)),
    ]
)

ids = st.integers(min_value=1, max_value=10**MAX_ID_DIGITS - 1)


def refusal(method: str, path: str, router: Router = ROUTER) -> ServiceError:
    with pytest.raises(ServiceError) as raised:
        router.match(method, path)
    return raised.value


def codes(exc: ServiceError) -> list[str]:
    return [p.code for p in exc.problems]


# --- matches ------------------------------------------------------------------------------------


def test_a_literal_path_matches_without_parameters():
    assert ROUTER.match("GET", "/me") == (ME, {}, "/me")


@PROPERTY
@given(ids, ids, ids)
def test_ids_become_integer_parameters_by_name(org, queue, task):
    found, params, _ = ROUTER.match("POST", f"/orgs/{org}/queues/{queue}/tasks/{task}/complete")
    assert found is COMPLETE
    assert params == {"org": org, "queue": queue, "task": task}
    assert all(type(v) is int for v in params.values())


@PROPERTY
@given(ids, ids)
def test_a_literal_segment_beats_an_id_in_the_same_place(org, queue):
    """`tasks/next` is the claim; `tasks/{task}` only ever takes a number."""
    assert ROUTER.match("POST", f"/orgs/{org}/queues/{queue}/tasks/next") == (
        CLAIM,
        {"org": org, "queue": queue},
        "/orgs/{org}/queues/{queue}/tasks/next",
    )
    assert refusal("POST", f"/orgs/{org}/queues/{queue}/tasks/{queue}").status == 405


def test_the_method_chooses_between_routes_of_one_path():
    assert ROUTER.match("GET", "/orgs/1/queues")[0] is LIST_QUEUES
    assert ROUTER.match("POST", "/orgs/1/queues")[0] is CREATE_QUEUE
    assert ROUTER.match("PATCH", "/orgs/1/queues/2")[0] is PATCH_QUEUE
    assert ROUTER.match("PUT", "/orgs/1/queues/2")[0] is PATCH_QUEUE


def test_head_goes_with_get_and_only_with_get():
    assert ROUTER.match("HEAD", "/orgs/1/queues/2") == (
        GET_QUEUE,
        {"org": 1, "queue": 2},
        "/orgs/{org}/queues/{queue}",
    )
    assert refusal("HEAD", "/orgs/1/queues/2/tasks/next").status == 405


def test_the_same_path_gives_the_same_answer_again():
    """Matches are cached: a second look, and a look for another path, still answer right."""
    first = ROUTER.match("GET", "/orgs/5/queues/6/tasks/7")
    assert ROUTER.match("GET", "/orgs/5/queues/6/tasks/8")[1] == {"org": 5, "queue": 6, "task": 8}
    assert ROUTER.match("GET", "/orgs/5/queues/6/tasks/7") == first


# --- 404 and 405 --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "",
        "/you",
        "/me/",
        "//me",
        "/ME",
        "/orgs/1/queues/",
        "/orgs/1/queue",
        "/orgs/one/queues",
        "/orgs/0/queues",  # ids are positive
        "/orgs/007/queues",  # one way to write each id
        "/orgs/-1/queues",
        "/orgs/+1/queues",
        "/orgs/1.0/queues",
        "/orgs/ 1/queues",
        "/orgs/\u0661/queues",  # an Arabic-Indic digit: isdigit(), yet no id
        "/orgs/\u00b9/queues",  # superscript one
        "/orgs/" + "9" * (MAX_ID_DIGITS + 1) + "/queues",  # beyond a signed 64-bit column
        "/orgs/1/queues/2/tasks",
        "/orgs/{org}/queues",
    ],
)
def test_paths_of_no_route_are_404(path):
    exc = refusal("GET", path)
    assert exc.status == 404
    assert codes(exc) == ["not_found"]
    assert "Allow" not in exc.headers


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("DELETE", "/me", "GET, HEAD"),
        ("POST", "/me", "GET, HEAD"),
        ("DELETE", "/orgs/1/queues", "GET, HEAD, POST"),
        ("DELETE", "/orgs/1/queues/2", "GET, HEAD, PATCH, PUT"),
        ("GET", "/orgs/1/queues/2/tasks/next", "POST"),
        ("get", "/me", "GET, HEAD"),  # methods are matched as sent (servers pass them upper-case)
    ],
)
def test_a_known_path_with_another_method_is_405_naming_the_allowed(method, path, allowed):
    exc = refusal(method, path)
    assert exc.status == 405
    assert codes(exc) == ["method_not_allowed"]
    assert exc.headers == {"Allow": allowed}
    assert method in exc.problems[0].message


def test_each_405_has_headers_of_its_own():
    first = refusal("DELETE", "/me")
    first.headers["Allow"] = "changed"
    assert refusal("DELETE", "/me").headers == {"Allow": "GET, HEAD"}


@PROPERTY
@given(
    st.lists(st.text(alphabet="ab1/{}-", max_size=6), max_size=5), st.sampled_from(["GET", "POST", "TRACE"])
)
def test_any_path_is_a_match_a_404_or_a_405(segments, method):
    path = "/" + "/".join(segments)
    try:
        found, params, _ = ROUTER.match(method, path)
    except ServiceError as exc:
        assert exc.status in (404, 405)
        assert (exc.status == 405) == ("Allow" in exc.headers)
    else:
        assert callable(found)
        assert all(isinstance(v, int) and v > 0 for v in params.values())


# --- building -----------------------------------------------------------------------------------


def test_two_routes_for_one_method_and_shape_are_refused():
    """Parameter names do not make two shapes: `{org}` and `{other}` are the same place."""
    with pytest.raises(ValueError, match=r"two routes for POST /orgs/\{other\}/queues"):
        Router(
            [
                Route("/orgs/{org}/queues", CREATE_QUEUE, ("POST",)),
                Route("/orgs/{other}/queues", ME, ("POST",)),
            ]
        )


def test_a_get_route_claims_head_too():
    with pytest.raises(ValueError, match="two routes for HEAD"):
        Router([Route("/me", ME, ("GET",)), Route("/me", GET_TASK, ("HEAD",))])


def test_parameter_names_come_from_their_own_route():
    router = Router([Route("/a/{first}", ME, ("GET",)), Route("/a/{second}", GET_TASK, ("POST",))])
    assert router.match("GET", "/a/3") == (ME, {"first": 3}, "/a/{first}")
    assert router.match("POST", "/a/3") == (GET_TASK, {"second": 3}, "/a/{second}")
