"""Every kind of client error becomes a notification with a title and a line saying what to do."""

import pytest

from queuedesk.api import errors
from queuedesk.tui import session
from queuedesk.tui.explanations import explain

# kind, a phrase of its advice, its title
KINDS: list[tuple[errors.QueueDeskError, str, str]] = [
    (
        errors.ConnectionFailed("Listing queues failed: cannot reach http://x"),
        "Is the server running",
        "unreachable",
    ),
    (errors.Timeout("Listing queues failed: no answer in 10 s"), "did not answer in time", "slow"),
    (
        errors.PlainHTTPPort("Listing queues failed: port 8000 of 127.0.0.1 answers plain HTTP"),
        "connect with the http://",
        "https://",
    ),
    (errors.AuthenticationError("Listing queues failed: bad key", status=401), "API key", "Key refused"),
    (errors.Forbidden("Flushing queue 3 failed: not allowed", status=403), "Your role", "Not allowed"),
    (
        errors.WrongOrganization("Listing queues failed", status=403, hint="Organization 9 is not yours."),
        "organization id",
        "Wrong organization",
    ),
    (
        session.KeyNotInOrganization("The key has no access to organization 9."),
        "organization id",
        "organization",
    ),
    (errors.NotFound("Reading queue 3 failed", status=404), "may have been deleted", "Not found"),
    (errors.WrongAddress("Listing queues failed", status=404), "server's root", "Wrong address"),
    (errors.Conflict("Completing task 4 failed: already completed", status=409), "refresh (r)", "changed"),
    (errors.ValidationError("Creating a task failed: name: required", status=400), "Correct", "refused"),
    (errors.PayloadTooLarge("Creating a task failed", status=413), "1 MiB", "Too large"),
    (errors.RateLimited("Listing queues failed", status=429), "wait a few seconds", "Slow down"),
    (
        errors.ServerError("Listing queues failed: the server answered 500", status=500),
        "tell an admin",
        "Server error",
    ),
    (
        errors.NoReview("Claiming a review failed: this server has no review (B19)."),
        "server with review",
        "No review",
    ),
    (
        errors.NotSupported("Listing pending tasks is a QueueDesk extension."),
        "basic Task Queue API",
        "Not on",
    ),
    (errors.FeatureMissing("B21", "Setting consensus", "the server"), "upgrade the server", "version"),
    (errors.NoConsensus("Listing answers", "the server"), "upgrade the server", "version"),
    (errors.NoGold("Listing gold answers", "the server"), "upgrade the server", "version"),
    (errors.NotConfigured("No organization given."), "missing setting", "missing"),
    (
        errors.UnexpectedResponse("Listing queues failed: the server answered 405", status=405),
        "Check that the URL",
        "Unexpected",
    ),
    (errors.QueueDeskError("Something odd"), "Try again", "Unexpected"),
]


@pytest.mark.parametrize(("exc", "phrase", "title"), KINDS, ids=[type(k[0]).__name__ for k in KINDS])
def test_every_error_kind_has_a_title_and_what_to_do(
    exc: errors.QueueDeskError, phrase: str, title: str
) -> None:
    said = explain(exc)
    assert title in said.title
    assert said.advice and phrase in said.advice
    lines = said.message.splitlines()
    assert lines[0] == exc.message  # what failed, in the client's words
    assert lines[-1] == said.advice  # then what to do, last


def test_a_hint_given_for_this_failure_is_kept_and_a_kinds_generic_hint_is_not_repeated() -> None:
    specific = explain(errors.WrongOrganization("Listing queues failed", hint="Organization 9 is not yours."))
    assert "Organization 9 is not yours." in specific.message
    generic = explain(errors.ConnectionFailed("Listing queues failed: cannot reach http://x"))
    assert errors.ConnectionFailed.hint not in generic.message


def test_every_client_error_kind_is_covered() -> None:
    covered = {type(exc) for exc, _, _ in KINDS}
    kinds = {k for k in vars(errors).values() if isinstance(k, type) and issubclass(k, errors.QueueDeskError)}
    assert kinds <= covered, kinds - covered


def test_anything_else_is_called_a_bug() -> None:
    said = explain(KeyError("x"))
    assert said.title == "Something went wrong" and "bug" in said.advice
