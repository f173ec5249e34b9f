"""HTTP plumbing shared by the handlers: JSON in and out, query parameters, paging links."""

import itertools
import re
from collections.abc import Mapping
from datetime import UTC, date, datetime, time
from typing import Any, TypeGuard
from urllib.parse import urlencode

import orjson
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response

from queuedesk.api.blocks import Problem, first_problems
from queuedesk.server.http.http_errors import error, invalid
from queuedesk.server.settings import MAX_BODY_BYTES, Settings

MAX_PAGE = 1000
DEFAULT_PAGE = 100
WHOLE_NUMBER = re.compile(r"[0-9]+")
MAX_NUMBER_DIGITS = 18  # more can only be out of range; never handed to int()
MAX_MOMENT_LENGTH = 64  # longer than any ISO 8601 date-time with an offset
# Deeper bodies are refused before anything is written: orjson writes at most 255 levels, so a value
# stored deeper than that could never be answered.
MAX_JSON_DEPTH = 64


class JSONResponse(Response):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)

    def init_headers(self, headers: Mapping[str, str] | None = None) -> None:
        if headers:
            super().init_headers(headers)
        else:  # the usual case, without the general path's bookkeeping
            self.raw_headers = [
                (b"content-length", str(len(self.body)).encode()),
                (b"content-type", b"application/json"),
            ]


class EncodedJSONResponse(JSONResponse):
    """An answer whose JSON was encoded before (and may be answered again as it is)."""

    def render(self, content: Any) -> bytes:
        assert isinstance(content, bytes)
        return content


def header(request: Request, name: bytes) -> str | None:
    """One request header by its lower-case name, straight from the ASGI scope (hot paths)."""
    for key, value in request.scope["headers"]:
        if key == name:
            return value.decode("latin-1")
    return None


def empty() -> Response:
    """200 with an empty body (flush, webhook writes), as the contract says."""
    return Response(status_code=200)


def too_large() -> Any:
    return error(413, "payload_too_large", f"The request body is over {MAX_BODY_BYTES} bytes.")


def is_json_media_type(declared: str) -> bool:
    """`application/json` or `application/<anything>+json`, in any case, in UTF-8 if a charset is named."""
    media_type, *parameters = (part.strip().lower() for part in declared.split(";"))
    kind, _, subtype = media_type.partition("/")
    if kind != "application" or not (subtype == "json" or (subtype.endswith("+json") and subtype != "+json")):
        return False
    charsets = [
        p.partition("=")[2].strip('"') for p in parameters if p.partition("=")[0].strip() == "charset"
    ]
    return all(charset in ("utf-8", "utf8") for charset in charsets)


def unsupported_media_type(declared: str) -> Exception:
    shown = declared if len(declared) <= 60 else declared[:57] + "..."
    return error(
        415,
        "unsupported_media_type",
        f"The body must be JSON (Content-Type: application/json), not {shown!r}.",
    )


async def read_body(request: Request) -> bytes:
    """The whole body, at most MAX_BODY_BYTES; a body declared as anything but JSON is a 415 (no
    Content-Type at all is read as JSON, as old clients send it)."""
    declared = header(request, b"content-length")
    if _is_whole_number(declared) and (len(declared) > MAX_NUMBER_DIGITS or int(declared) > MAX_BODY_BYTES):
        raise too_large()
    media_type = header(request, b"content-type")
    body = await _read_all(request)
    if body and media_type is not None and not is_json_media_type(media_type):
        raise unsupported_media_type(media_type)
    return body


async def _read_all(request: Request) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            raise ClientDisconnect()
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise too_large()
        chunks.append(chunk)
        if not message.get("more_body", False):
            return chunks[0] if len(chunks) == 1 else b"".join(chunks)


async def read_json(request: Request, *, required: bool = True) -> Any:
    """The parsed body; `None` for an empty body when it is optional."""
    raw = await read_body(request)
    if not raw.strip():
        if required:
            raise error(400, "no_data", "The request needs a JSON body.")
        return None
    try:
        parsed = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise error(400, "malformed_json", f"The body is not valid JSON: {exc}") from None
    if nesting_depth(parsed) > MAX_JSON_DEPTH:
        raise error(
            400, "malformed_json", f"The body nests arrays and objects more than {MAX_JSON_DEPTH} deep."
        )
    return parsed


def nesting_depth(value: Any) -> int:
    """How deep arrays and objects nest in a parsed JSON value (a scalar: 0), without recursion."""
    deepest = 0
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        depth += 1
        if depth > deepest:
            deepest = depth
            if deepest > MAX_JSON_DEPTH:  # deep enough to refuse: no need to walk the rest
                return deepest
        pending.extend((child, depth) for child in children)
    return deepest


def json_object(body: Any, *, allowed: tuple[str, ...], required: tuple[str, ...] = ()) -> dict[str, Any]:
    """The body as an object with only `allowed` keys and every `required` one."""
    if not isinstance(body, dict):
        raise error(400, "invalid_value", "The body must be a JSON object.")
    allowed_list = ", ".join(allowed)
    problems = first_problems(
        itertools.chain(
            (
                Problem("unknown_field", key, f"unknown field {_shown(key)} (allowed: {allowed_list})")
                for key in body
                if key not in allowed
            ),
            (Problem("missing_required", key, f"'{key}' is required") for key in required if key not in body),
        )
    )
    if problems:
        raise invalid(problems)
    return body


def bad_parameter(name: str, message: str) -> Exception:
    return error(400, "invalid_parameter", message, field=name)


def int_parameter(params: Mapping[str, str], name: str, default: int, low: int, high: int | None) -> int:
    """A whole number of ASCII digits within the bounds; anything else is 400 `invalid_parameter`.

    `str.isdigit` and `int()` take other scripts' digits (Arabic-Indic, fullwidth) and `isdigit`
    superscripts (which `int()` then refuses): none of them is a number on the wire."""
    raw = params.get(name)
    if raw is None:
        return default
    bound = f"from {low} to {high}" if high is not None else f"at least {low}"
    if not _is_whole_number(raw):
        raise bad_parameter(name, f"'{name}' must be a whole number {bound}, not {_shown(raw)}")
    if len(raw.lstrip("0")) > MAX_NUMBER_DIGITS:
        raise bad_parameter(name, f"'{name}' must be {bound}, not {_shown(raw)}")
    value = int(raw)
    if value < low or (high is not None and value > high):
        raise bad_parameter(name, f"'{name}' must be {bound}, not {value}")
    return value


def _is_whole_number(raw: str | None) -> TypeGuard[str]:
    return raw is not None and WHOLE_NUMBER.fullmatch(raw) is not None


def _shown(raw: str) -> str:
    """A value from the request quoted for a message, cut short when long."""
    return repr(raw) if len(raw) <= 40 else repr(raw[:37]) + "..."


def paging(params: Mapping[str, str]) -> tuple[int, int]:
    offset = int_parameter(params, "offset", 0, 0, 10**12)
    limit = int_parameter(params, "limit", DEFAULT_PAGE, 1, MAX_PAGE)
    return offset, limit


def moment_parameter(params: Mapping[str, str], name: str, *, end_of_day: bool) -> datetime | None:
    """An ISO 8601 date or date-time; a bare date covers the whole day."""
    raw = params.get(name)
    if raw is None:
        return None
    wrong = f"'{name}' must be an ISO 8601 date or date-time, not {_shown(raw)}"
    if not raw.isascii() or len(raw) > MAX_MOMENT_LENGTH:  # fromisoformat reads other scripts' digits
        raise bad_parameter(name, wrong)
    try:
        if len(raw) == 10:
            day = date.fromisoformat(raw)
            return datetime.combine(day, time.max if end_of_day else time.min, tzinfo=UTC)
        moment = datetime.fromisoformat(raw)
        return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    except (ValueError, OverflowError):  # overflow: a moment at the calendar's edge, moved to UTC
        raise bad_parameter(name, wrong) from None


MAX_SEARCH = 200  # characters of a search (`q`)


def order_parameter(params: Mapping[str, str], default: str) -> str:
    """`order`: `asc` or `desc` (the list's own order when absent), so any list pages from either end."""
    raw = params.get("order", default)
    if raw not in ("asc", "desc"):
        raise bad_parameter("order", f"'order' must be asc or desc, not {_shown(raw)}")
    return raw


def sort_parameter(params: Mapping[str, str], allowed: tuple[str, ...]) -> str:
    """`sort`: the column a list is ordered by (the first of `allowed` when absent); ties go by id."""
    raw = params.get("sort", allowed[0])
    if raw not in allowed:
        raise bad_parameter("sort", f"'sort' must be one of {', '.join(allowed)}, not {_shown(raw)}")
    return raw


def search_parameter(params: Mapping[str, str]) -> str | None:
    """`q`: text to find in task values, any case; absent or empty, no search."""
    raw = params.get("q")
    if not raw:
        return None
    if len(raw) > MAX_SEARCH or "\x00" in raw:
        raise bad_parameter("q", f"'q' must be at most {MAX_SEARCH} characters, without NUL")
    return raw


MAX_PAGE_BYTES = 4 * 1024 * 1024  # of a page's items as JSON; the first item is always sent


def page_links(
    request: Request, settings: Settings, offset: int, limit: int, count: int, shown: int | None = None
) -> tuple[str | None, str | None]:
    """Absolute `next` and `previous` URLs that keep every other query parameter; `next` follows the
    last item `shown` when the page holds fewer than `limit` (its bytes were capped)."""
    if settings.public_url:
        base = settings.public_url.rstrip("/") + request.url.path
    else:
        base = f"{request.url.scheme}://{request.url.netloc}{request.url.path}"
    kept = [(k, v) for k, v in request.query_params.multi_items() if k not in ("limit", "offset")]

    def link(at: int) -> str:
        return f"{base}?{urlencode([*kept, ('limit', limit), ('offset', at)])}"

    after = offset + (limit if shown is None else shown)
    following = link(after) if after < count else None
    preceding = link(max(offset - limit, 0)) if offset > 0 else None
    return following, preceding


def page_body(
    request: Request, settings: Settings, offset: int, limit: int, count: int, key: str, items: list[Any]
) -> dict[str, Any]:
    """A page of `items`, at most `MAX_PAGE_BYTES` of them as JSON (at least one): a page over it
    ends early, and its `next` starts after its last item. Each item is serialized once, here."""
    kept, shown = capped_items(items)
    following, preceding = page_links(request, settings, offset, limit, count, shown)
    return {"next": following, "previous": preceding, "count": count, key: kept}


def capped_items(items: list[Any], cap: int = MAX_PAGE_BYTES) -> tuple[list[orjson.Fragment], int | None]:
    """The items as JSON fragments, as many as fit in `cap` bytes (the first always), and how many
    when they did not all fit (None when they did)."""
    kept: list[orjson.Fragment] = []
    total = 0
    for item in items:
        encoded = orjson.dumps(item)
        total += len(encoded) + 1  # and its comma
        if kept and total > cap:
            return kept, len(kept)
        kept.append(orjson.Fragment(encoded))
    return kept, None
