"""What the app tells a person when something fails: a title and what to do, for every client error."""

from dataclasses import dataclass

from queuedesk.api import errors
from queuedesk.tui import session


@dataclass(frozen=True)
class Explanation:
    title: str
    message: str
    severity: str = "error"  # textual notification severity: information, warning, error
    advice: str = ""  # what to do about it: the notification's last line


# Most specific first: a subclass must come before its base (Timeout before ConnectionFailed).
_Kind = type[BaseException] | tuple[type[BaseException], ...]
_KINDS: list[tuple[_Kind, str, str, str]] = [
    (
        errors.FeatureMissing,
        "Not on this server's version",
        "warning",
        "Ask an admin to upgrade the server; everything else works as before.",
    ),
    (
        errors.NoReview,
        "No review on this server",
        "warning",
        "Reviewing needs a QueueDesk server with review: ask an admin to upgrade the server.",
    ),
    (
        errors.NotSupported,
        "Not on this server",
        "warning",
        "This server offers only the basic Task Queue API; this needs a QueueDesk server.",
    ),
    (
        errors.Timeout,
        "The server is slow",
        "warning",
        "It did not answer in time: try again (r); if it stays slow, tell an admin.",
    ),
    (
        errors.PlainHTTPPort,
        "Not an https:// port",
        "error",
        "The server answers plain HTTP at that port: connect with the http:// address the message names.",
    ),
    (
        errors.ConnectionFailed,
        "Server unreachable",
        "error",
        "Is the server running at the address you connected to? The view updates when it answers again.",
    ),
    (
        errors.AuthenticationError,
        "Key refused",
        "error",
        "Check the API key: it may be mistyped or revoked. Connect again with a valid key.",
    ),
    (
        (errors.WrongOrganization, session.KeyNotInOrganization),  # the server's word, or /me's
        "Wrong organization",
        "error",
        "Check the organization id you connected with (the profile's org).",
    ),
    (
        errors.Forbidden,
        "Not allowed",
        "warning",
        "Your role does not allow this: ask an admin if you need it.",
    ),
    (
        errors.WrongAddress,
        "Wrong address",
        "error",
        "Check the server address you connected to: the API starts at the server's root (no /api).",
    ),
    (
        errors.NotFound,
        "Not found",
        "warning",
        "The queue or task may have been deleted meanwhile: go back (escape) and refresh (r).",
    ),
    (
        errors.Conflict,
        "Already changed",
        "warning",
        "Someone changed it meanwhile, or it was already done: refresh (r) to see it as it is now.",
    ),
    (
        errors.ValidationError,
        "Input refused",
        "warning",
        "Correct what is named above and try again.",
    ),
    (
        errors.PayloadTooLarge,
        "Too large",
        "warning",
        "Send less at once: the server takes at most 1 MiB per request.",
    ),
    (
        errors.RateLimited,
        "Slow down",
        "warning",
        "The server asks for fewer requests: wait a few seconds, then try again.",
    ),
    (
        errors.ServerError,
        "Server error",
        "error",
        "The server failed: try again (r); if it keeps failing, tell an admin (its log has details).",
    ),
    (
        errors.NotConfigured,
        "Setting missing",
        "warning",
        "Give the missing setting in the profile or on the command line, then connect again.",
    ),
    (
        errors.UnexpectedResponse,
        "Unexpected answer",
        "error",
        "Check that the URL in the header is a QueueDesk or Task Queue server; if it is, tell an admin.",
    ),
]
_OTHER_ADVICE = "Try again; if it keeps happening, tell an admin."
BUG_ADVICE = "This is a bug in QueueDesk; what you typed is kept."


def explain(exc: BaseException) -> Explanation:
    """The notification for a failure; anything that is not a client error is a bug, said plainly."""
    if isinstance(exc, errors.QueueDeskError):
        for kind, title, severity, advice in _KINDS:
            if isinstance(exc, kind):
                return Explanation(title, _said(exc, advice), severity, advice)
        return Explanation("Unexpected answer", _said(exc, _OTHER_ADVICE), "error", _OTHER_ADVICE)
    return Explanation(
        "Something went wrong", f"{type(exc).__name__}: {exc}.\n{BUG_ADVICE}", "error", BUG_ADVICE
    )


def _said(exc: errors.QueueDeskError, advice: str) -> str:
    """What failed, a hint given for this very failure (e.g. which organization), then what to do.

    A kind's generic hint is left out: the advice line says it for the app (keys, not flags)."""
    lines = [exc.message]
    if "hint" in vars(exc) and exc.hint:
        lines.append(exc.hint)
    lines.append(advice)
    return "\n".join(lines)
