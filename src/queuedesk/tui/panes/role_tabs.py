"""The queue screen's tabs that depend on the role: Stats, Webhook and Gold for supervisors and admins,
and the review tab, a worker's own Feedback or everyone's Reviews. Made here for the screen's
first compose and again when the role changes while it is open."""

from textual.widgets import TabbedContent, TabPane

from queuedesk.api.models import Queue
from queuedesk.tui.panes.feedback_view import FeedbackView
from queuedesk.tui.panes.gold_view import GoldView
from queuedesk.tui.panes.stats_view import StatsView
from queuedesk.tui.panes.webhook_view import WebhookView
from queuedesk.tui.session import Session

WATCH_TABS = ("tab-stats", "tab-webhook", "tab-gold")


def watch_panes(queue_id: int) -> list[TabPane]:
    return [
        TabPane("Stats", StatsView(queue_id, id="stats"), id="tab-stats"),
        TabPane("Webhook", WebhookView(queue_id, id="webhook"), id="tab-webhook"),
    ]


def shows_gold(session: Session, queue: Queue) -> bool:
    """Whether a supervisor's or admin's queue screen has the Gold tab: the server has gold tasks
    (B22 among `/me`'s `features`) and the queue a gold share. (A worker never has it: nothing in
    the app tells a worker which tasks are gold.)"""
    return (
        session.can_watch
        and session.me is not None
        and "B22" in session.me.features
        and queue.gold_percent > 0
    )


def gold_pane(queue_id: int) -> TabPane:
    return TabPane("Gold", GoldView(queue_id, id="gold"), id="tab-gold")


def watching_panes(session: Session, queue: Queue) -> list[TabPane]:
    """The tabs of a supervisor's or admin's queue screen after Blocks: Stats, Webhook, and Gold
    where `shows_gold`; none for a worker."""
    if not session.can_watch:
        return []
    return [*watch_panes(queue.id), *([gold_pane(queue.id)] if shows_gold(session, queue) else [])]


def feedback_pane(queue_id: int, *, watching: bool) -> TabPane:
    own = not watching
    return TabPane(
        "Feedback" if own else "Reviews", FeedbackView(queue_id, own=own, id="feedback"), id="tab-feedback"
    )


async def follow_role(tabs: TabbedContent, queue_id: int, *, watching: bool) -> None:
    """The tabs as the role `watching` (a supervisor's or an admin's) has them; a tab that goes while
    shown leaves the Pending tab shown. The review tab is made anew, last, as the screen composes it."""
    feedbacks = list(tabs.query(FeedbackView).results(FeedbackView))
    remade = bool(feedbacks) and feedbacks[0].own == watching
    gone = [pane for pane in WATCH_TABS if tabs.query(f"#{pane}") and not watching]
    for pane in [*gone, *(["tab-feedback"] if remade else [])]:
        if tabs.active == pane:
            tabs.active = "tab-pending"
        await tabs.remove_pane(pane)
    if watching:
        for made in watch_panes(queue_id):
            if not tabs.query(f"#{made.id}"):
                await tabs.add_pane(made)
    if remade:
        await tabs.add_pane(feedback_pane(queue_id, watching=watching))
