"""What the app tells a person when something fails: a title and what to do, for every client error."""

from dataclasses import dataclass

from queuedesk.api import errors


@dataclass(frozen=True)
class Explanation:
    title: str
    message: str
    severity: str = "error"  # textual notification severity: information, warning, error


_TITLES: list[tuple[type[errors.QueueDeskError], str, str]] = [
    (errors.NotSupported, "Not on this server", "warning"),
    (errors.Timeout, "The server is slow", "warning"),
    (errors.ConnectionFailed, "Server unreachable", "error"),
    (errors.AuthenticationError, "Key refused", "error"),
    (errors.Forbidden, "Not allowed", "warning"),
    (errors.NotFound, "Not found", "warning"),
    (errors.Conflict, "Already changed", "warning"),
    (errors.ValidationError, "Input refused", "warning"),
    (errors.PayloadTooLarge, "Too large", "warning"),
    (errors.RateLimited, "Slow down", "warning"),
    (errors.ServerError, "Server error", "error"),
]


def explain(exc: BaseException) -> Explanation:
    """The notification for a failure; anything that is not a client error is a bug, said plainly."""
    if isinstance(exc, errors.QueueDeskError):
        for kind, title, severity in _TITLES:
            if isinstance(exc, kind):
                return Explanation(title, str(exc), severity)
        return Explanation("Unexpected answer", str(exc))
    return Explanation(
        "Something went wrong",
        f"{type(exc).__name__}: {exc}. This is a bug in QueueDesk; what you typed is kept.",
    )
