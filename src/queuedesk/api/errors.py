"""What can go wrong when talking to a QueueDesk (or Task Queue Service) server.

Every failure of the client is one of these, built from the server's error envelope when there is
one, with a message a person can act on. Never a bare httpx exception or a KeyError.
"""

import html
import re
from typing import Any

from queuedesk.api.models import ErrorItem


class QueueDeskError(Exception):
    """Base of every client error. `status` is the HTTP status when the server answered."""

    hint = ""
    # A create that failed on a server that may have saved it anyway: True/False from the queue's
    # count before and after, None when unknown (see QueueDeskClient.create_task).
    probably_saved: bool | None = None

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        errors: list[ErrorItem] | None = None,
        code: str | None = None,
        hint: str | None = None,
    ) -> None:
        self.message = message
        if hint is not None:
            self.hint = hint
        self.status = status
        self.errors = errors or []
        self.code = code or (self.errors[0].code if self.errors else None)
        super().__init__(message)

    def __str__(self) -> str:
        return f"{self.message} {self.hint}".strip()


class ConnectionFailed(QueueDeskError):
    hint = "Check the server URL and that the server is running."


class PlainHTTPPort(ConnectionFailed):
    """An https:// address whose port speaks plain HTTP: the message names the port and the fix."""

    hint = ""


class Timeout(ConnectionFailed):
    hint = "The server did not answer in time; try again, or raise the timeout."


class AuthenticationError(QueueDeskError):
    hint = "Check the API key; it may be mistyped or revoked."


class Forbidden(QueueDeskError):
    hint = "Your role does not allow this; ask an admin."


class NotFound(QueueDeskError):
    hint = "Check the organization, queue and task ids."


class WrongAddress(NotFound):
    """A 404 page instead of the API's answer: the server has no such path, so the URL is wrong."""

    hint = (
        "Check the server URL: the API's paths start at "
        "the server's root, e.g. http://host:8000, without /api or another path."
    )


class WrongOrganization(Forbidden):
    """The organization id is not the key's: QueueDesk answers 404 there, the original service 403."""

    hint = "Check the organization id."


class NotConfigured(QueueDeskError):
    """Something the client needs was not given and the server cannot tell it (e.g. the organization)."""


class Conflict(QueueDeskError):
    """The state forbids the action; `code` is `already_completed`, `not_assignee`, `claim_limit`, ..."""


class ValidationError(QueueDeskError):
    """The input was refused; `fields` maps each field at fault to its message."""

    @property
    def fields(self) -> dict[str, str]:
        return {e.field or "": e.message for e in self.errors}


class PayloadTooLarge(QueueDeskError):
    hint = "Send less at once (the limit is 1 MiB per request)."


class RateLimited(QueueDeskError):
    hint = "The server asks to slow down; try again shortly."


class ServerError(QueueDeskError):
    hint = "The server failed; its log has details. Try again later."


class UnexpectedResponse(QueueDeskError):
    """An answer the contract does not describe (e.g. a 405, or a body that is not what it should be)."""


class NotSupported(QueueDeskError):
    """The server speaks only the documented Task Queue Service interface, without QueueDesk's extensions."""

    hint = (
        "This needs a QueueDesk server; the server you are connected to offers only the basic Task Queue API."
    )


class NoReview(NotSupported):
    """The server has no review (B19): a QueueDesk server older than review, or the original service."""

    hint = "Review needs a QueueDesk server that reviews work; upgrade the server to review work."


# What each Part B section a server lists in `GET /me`'s `features` gives, in a person's words.
FEATURE_WORDS = {
    "B21": "consensus (several workers answer each task, blind, until they agree)",
    "B22": "gold tasks (tasks with a known answer, mixed into the work to measure each worker)",
}


class FeatureMissing(NotSupported):
    """The server does not list the Part B section this needs in `GET /me`'s `features`: a QueueDesk
    server older than it, or one that speaks only the documented interface. `feature` names it."""

    feature = ""

    def __init__(self, feature: str, what: str, server: str) -> None:
        self.feature = feature
        said = FEATURE_WORDS.get(feature, feature)
        super().__init__(
            f"{what} failed: {server} has no {said}: it does not list {feature} among its features.",
            code="not_supported",
            hint=f"This needs a QueueDesk server with {feature}; upgrade the server.",
        )


class NoConsensus(FeatureMissing):
    """The server has no consensus (B21)."""

    def __init__(self, what: str, server: str) -> None:
        super().__init__("B21", what, server)


class NoGold(FeatureMissing):
    """The server has no gold tasks (B22)."""

    def __init__(self, what: str, server: str) -> None:
        super().__init__("B22", what, server)


def feature_missing(feature: str, what: str, server: str) -> FeatureMissing:
    """The one error for a call of Part B section `feature` on a server without it: the section's
    own class where it has one (`NoConsensus`, `NoGold`), else `FeatureMissing`."""
    own: dict[str, type[NoConsensus] | type[NoGold]] = {"B21": NoConsensus, "B22": NoGold}
    kind = own.get(feature)
    return kind(what, server) if kind is not None else FeatureMissing(feature, what, server)


BY_STATUS: dict[int, type[QueueDeskError]] = {
    400: ValidationError,
    401: AuthenticationError,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    413: PayloadTooLarge,
    429: RateLimited,
}


def _error_items(body: Any) -> list[ErrorItem]:
    if not isinstance(body, dict) or not isinstance(body.get("errors"), list):
        return []
    items = []
    for raw in body["errors"]:
        if isinstance(raw, dict) and isinstance(raw.get("message"), str):
            items.append(ErrorItem.model_validate(raw))
        elif isinstance(raw, str):
            items.append(ErrorItem(message=raw))
    return items


_TITLE = re.compile(r"<title[^>]*>(.*?)</title>|<h1[^>]*>(.*?)</h1>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]+>")


_CLOSING_TAG = re.compile(r"</[A-Za-z][A-Za-z0-9]*\s*>")


def html_title(text: str) -> str | None:
    """The title of an HTML page or fragment ("" when it has none); None when the text is not HTML.

    The original service (Django, DEBUG off) answers a bare `<h1>Server Error (500)</h1>`."""
    if not text.lstrip().startswith("<") or _CLOSING_TAG.search(text[:4096]) is None:
        return None
    found = _TITLE.search(text)
    if found is None:
        return ""
    words = _TAG.sub(" ", found.group(1) or found.group(2) or "")
    return " ".join(html.unescape(words).split())[:120]


def error_for(status: int, body: Any, text: str, what: str) -> QueueDeskError:
    """The error for an answer with this status; `body` is the parsed JSON or None."""
    items = _error_items(body)
    if items:
        detail = "; ".join(f"{i.field}: {i.message}" if i.field else i.message for i in items)
    elif (title := html_title(text)) is not None:
        detail = (
            f"the server answered {status} with a web page ({title})"
            if title
            else f"the server answered {status}"
        )
    elif text.strip():
        snippet = " ".join(text.split())[:200]
        detail = f"the server answered {status}: {snippet}"
    else:
        detail = f"the server answered {status}"
    message = f"{what} failed: {detail}"
    if status == 404 and not items and html_title(text) is not None:
        return WrongAddress(message, status=status)
    kind = BY_STATUS.get(status)
    if kind is None:
        kind = ServerError if status >= 500 else UnexpectedResponse
    return kind(message, status=status, errors=items)
