"""What the service refuses in its own terms (the rules of work, things not found); `http_errors.ANSWERS` says
how HTTP answers each."""

from collections.abc import Iterable

from queuedesk.api.blocks import Problem


class DomainError(Exception):
    """A refusal by the rules of work: the fields name what was refused, never a status or a code."""


class TaskRefusal(DomainError):
    """A refusal about one task."""

    def __init__(self, task_id: int) -> None:
        super().__init__(task_id)
        self.task_id = task_id


class TaskNotFound(TaskRefusal):
    """No such task in the queue."""


class AlreadyCompleted(TaskRefusal):
    """The task is completed: nobody holds it any more."""


class NotClaimed(TaskRefusal):
    """Nobody holds the task: it is new or was released."""


class NotAssignee(TaskRefusal):
    """Another worker holds the task."""


class NotCompleted(TaskRefusal):
    """Only a completed task can be reviewed."""


class AlreadyReviewed(TaskRefusal):
    """The task's review has its verdict."""


class ReviewHeld(TaskRefusal):
    """Another reviewer holds the task's review."""


class ReviewNotClaimed(TaskRefusal):
    """Nobody holds the task's review: it is pending, or the task was never drawn."""


class AlreadyAnswered(TaskRefusal):
    """The caller has answered this consensus task already (B21)."""


class DisputedNotReviewable(TaskRefusal):
    """A disputed task waits for the `decide` verdict, not accept, correct or redo (B21)."""


class NotDisputed(TaskRefusal):
    """`decide` is the verdict on a disputed task only (B21)."""


class DeciderAnswered(TaskRefusal):
    """Someone who answered a disputed task may not decide it (B21)."""


class DeliveryNotFound(DomainError):
    """No such webhook delivery for the queue."""

    def __init__(self, delivery_id: int) -> None:
        super().__init__(delivery_id)
        self.delivery_id = delivery_id


class ClaimLimit(DomainError):
    """The caller already holds the most live claims one may hold in a queue by claiming ahead."""

    def __init__(self, held: list[int]) -> None:
        super().__init__(held)
        self.held = held

    @property
    def count(self) -> int:
        return len(self.held)

    @property
    def listed(self) -> str:
        return ", ".join(str(task_id) for task_id in self.held)


class ReviewClaimLimit(ClaimLimit):
    """The caller already holds the most live review claims one may hold in a queue."""


class InvalidTaskData(DomainError):
    """Block values that break the queue's rules, one problem each."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        super().__init__(problems)
        self.problems = problems


class PersonRefusal(DomainError):
    """A refusal about one user of the organization, named by email."""

    def __init__(self, email: str) -> None:
        super().__init__(email)
        self.email = email


class EmailTaken(PersonRefusal):
    """The organization already has a user with this email."""


class LastAdmin(PersonRefusal):
    """The change would leave the organization without an active admin."""


class UserDisabled(PersonRefusal):
    """The user is disabled: no new keys until they are enabled again."""
