"""What the rules of work refuse, in the service's own terms; `errors.ANSWERS` says how HTTP answers each."""

from queuedesk.api.blocks import Problem


class DomainError(Exception):
    """A refusal by the rules of work: the fields name what was refused, never a status or a code."""


class TaskNotFound(DomainError):
    def __init__(self, task_id: int) -> None:
        super().__init__(task_id)
        self.task_id = task_id


class AlreadyCompleted(DomainError):
    def __init__(self, task_id: int) -> None:
        super().__init__(task_id)
        self.task_id = task_id


class NotClaimed(DomainError):
    """Nobody holds the task: it is new or was released."""

    def __init__(self, task_id: int) -> None:
        super().__init__(task_id)
        self.task_id = task_id


class NotAssignee(DomainError):
    """Another worker holds the task."""

    def __init__(self, task_id: int) -> None:
        super().__init__(task_id)
        self.task_id = task_id


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


class InvalidTaskData(DomainError):
    """Block values that break the queue's rules, one problem each."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(problems)
        self.problems = problems
