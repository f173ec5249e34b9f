"""Whether review (B19) is offered, and why not when it is asked for where it is not: a server
without it (the original service, an older QueueDesk), or a worker (who sees their own reviewed
work as feedback instead)."""

from collections.abc import Iterable

from queuedesk.api.models import Queue
from queuedesk.tui.session import Session

NO_EXTENSIONS = (
    "This server offers only the basic Task Queue API: it has no review. "
    "Completed work can be read on the queue's Completed tab."
)
NO_REVIEW = "This server does not review work (its queues have no review_percent: it predates review, B19)."
WORKERS = "Review is for supervisors and admins. Your own reviewed work is on the queue's Feedback tab."


def has_review(queue: Queue) -> bool:
    """The server sent `review_percent` with the queue: it has B19."""
    return "review_percent" in queue.model_fields_set


def review_refusal(session: Session | None, queue: Queue | None) -> str | None:
    """Why `session` cannot review `queue`; None when it can."""
    if session is None or not session.extensions:
        return NO_EXTENSIONS
    if queue is not None and not has_review(queue):
        return NO_REVIEW
    if not session.can_watch:
        return WORKERS
    return None


def offers_review(session: Session | None, queues: Iterable[Queue]) -> bool:
    """Review is shown (the `v` key): a supervisor or admin on a server whose queues carry it."""
    known = list(queues)
    return (
        session is not None
        and session.extensions
        and session.can_watch
        and (not known or any(has_review(q) for q in known))
    )
