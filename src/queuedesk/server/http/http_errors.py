"""Errors the service answers with: one exception, rendered as the contract's envelope; and the one
table of how each refusal by the rules of work (`refusals`) is answered."""

from collections.abc import Iterable, Mapping
from typing import NamedTuple

from queuedesk.api.blocks import MAX_REPORTED, Findings, Problem
from queuedesk.server.rules.refusals import (
    AlreadyAnswered,
    AlreadyCompleted,
    AlreadyReviewed,
    ClaimLimit,
    DeciderAnswered,
    DeliveryNotFound,
    DisputedNotReviewable,
    DomainError,
    EmailTaken,
    InvalidTaskData,
    LastAdmin,
    NotAssignee,
    NotClaimed,
    NotCompleted,
    NotDisputed,
    ReviewClaimLimit,
    ReviewHeld,
    ReviewNotClaimed,
    TaskNotFound,
    UserDisabled,
)

MAX_ERRORS = MAX_REPORTED  # errors in one answer; the envelope's `truncated` counts the others
MAX_MESSAGE = 500  # characters of one message
MAX_FIELD = 200  # characters of one field's name (a field can be an unknown key of any length)
MAX_ERRORS_TEXT = 16 * 1024  # characters of all messages and fields of one answer


class ServiceError(Exception):
    """An answer other than success: status, one or more problems, and any extra headers.

    However many problems it is given, it keeps at most MAX_ERRORS, each clipped, within
    MAX_ERRORS_TEXT in all, and counts the rest in `left_out`: an answer to bad input stays small
    whatever the input."""

    def __init__(
        self,
        status: int,
        problems: Iterable[Problem],
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.status = status
        self.problems, self.left_out = _bounded(problems)
        self.headers = dict(headers or {})
        super().__init__("; ".join(p.message for p in self.problems))

    def envelope(self) -> dict[str, object]:
        errors: list[dict[str, str]] = []
        for problem in self.problems:
            item = {"code": problem.code}
            if problem.field is not None:
                item["field"] = problem.field
            item["message"] = problem.message
            errors.append(item)
        answer: dict[str, object] = {"status_code": self.status, "errors": errors}
        if self.left_out:
            answer["truncated"] = self.left_out
        return answer


def _clipped(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _bounded(problems: Iterable[Problem]) -> tuple[list[Problem], int]:
    """The problems an answer shows, clipped, and how many it leaves out."""
    kept: list[Problem] = []
    left_out = problems.more if isinstance(problems, Findings) else 0
    size = 0
    for problem in problems:
        if len(kept) >= MAX_ERRORS or size >= MAX_ERRORS_TEXT:
            left_out += 1
            continue
        field = None if problem.field is None else _clipped(problem.field, MAX_FIELD)
        message = _clipped(problem.message, MAX_MESSAGE)
        size += len(message) + len(field or "")
        kept.append(Problem(problem.code, field, message))
    return kept, left_out


def error(status: int, code: str, message: str, field: str | None = None) -> ServiceError:
    return ServiceError(status, [Problem(code, field, message)])


def invalid(problems: Iterable[Problem]) -> ServiceError:
    return ServiceError(400, problems)


def not_found(what: str = "Not found.") -> ServiceError:
    return error(404, "not_found", what)


def forbidden(message: str) -> ServiceError:
    return error(403, "forbidden", message)


def conflict(code: str, message: str) -> ServiceError:
    return error(409, code, message)


def not_authenticated(code: str, message: str) -> ServiceError:
    return ServiceError(401, [Problem(code, None, message)], {"WWW-Authenticate": "Token"})


class Answer(NamedTuple):
    status: int
    code: str | None = None  # None: the exception's own problems, each with its code
    message: str = ""  # formatted with the exception as `e`


ANSWERS: dict[type[DomainError], Answer] = {
    TaskNotFound: Answer(404, "not_found", "Task {e.task_id} not found in this queue."),
    AlreadyCompleted: Answer(409, "already_completed", "Task {e.task_id} is already completed."),
    NotClaimed: Answer(
        409, "not_assignee", "Nobody holds task {e.task_id}: claim work with POST .../tasks/next first."
    ),
    NotAssignee: Answer(409, "not_assignee", "Task {e.task_id} is held by another worker."),
    ClaimLimit: Answer(
        409,
        "claim_limit",
        "You already hold {e.count} claims in this queue (tasks {e.listed}), the most at once. "
        "Complete or release one (POST .../tasks/{{task}}/complete or .../release) to claim another.",
    ),
    ReviewClaimLimit: Answer(
        409,
        "claim_limit",
        "You already hold {e.count} review claims in this queue (tasks {e.listed}), the most at once. "
        "Give a verdict or release one (POST .../tasks/{{task}}/review or .../review/release) to claim another.",
    ),
    NotCompleted: Answer(
        409, "not_completed", "Task {e.task_id} is not completed: only completed work is reviewed."
    ),
    AlreadyReviewed: Answer(409, "already_reviewed", "Task {e.task_id} has been reviewed already."),
    ReviewHeld: Answer(409, "not_assignee", "Another reviewer holds the review of task {e.task_id}."),
    ReviewNotClaimed: Answer(
        409,
        "not_assignee",
        "Nobody holds the review of task {e.task_id}: claim reviews with POST .../reviews/next first.",
    ),
    InvalidTaskData: Answer(400),
    AlreadyAnswered: Answer(
        409, "already_answered", "You have answered task {e.task_id} already: each worker answers it once."
    ),
    DisputedNotReviewable: Answer(
        409,
        "conflict",
        "Task {e.task_id} is disputed: its answers disagree. Decide it with the verdict 'decide' and its data.",
    ),
    NotDisputed: Answer(
        409, "conflict", "Task {e.task_id} is not disputed: 'decide' is the verdict on disputed tasks only."
    ),
    DeciderAnswered: Answer(
        409, "conflict", "You answered task {e.task_id}: someone who did not answer it must decide it."
    ),
    DeliveryNotFound: Answer(404, "not_found", "Delivery {e.delivery_id} not found for this queue."),
    EmailTaken: Answer(409, "conflict", "This organization already has a user with the email {e.email}."),
    LastAdmin: Answer(
        409,
        "last_admin",
        "{e.email} is the organization's last active admin: make another user admin first.",
    ),
    UserDisabled: Answer(409, "conflict", "{e.email} is disabled: enable the user before issuing a key."),
}


def answer(exc: DomainError) -> ServiceError:
    """The envelope for a refusal by the rules of work."""
    status, code, message = ANSWERS[type(exc)]
    if code is None:
        assert isinstance(exc, InvalidTaskData)
        return invalid(exc.problems)
    return error(status, code, message.format(e=exc))
