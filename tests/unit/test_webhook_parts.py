"""The Webhook tab's parts' plain rules (`panes/webhook/`): what the line under the delivery log says of
the delivery under the cursor, and the log's orders. No terminal, no server."""

from datetime import UTC, datetime

from queuedesk.api.models import Delivery
from queuedesk.tui.panes.webhook.delivery_log import LOG_SORT_COLUMNS, LOG_SORT_NOTES, delivery_detail
from queuedesk.tui.views.sort_cycle import next_sort

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def delivery(target: str, error: str | None = None) -> Delivery:
    return Delivery(
        id=7, event_id="msg_7", task_id=42, target=target, status="failed", attempts=3,
        last_error=error, created_at=NOW,
    )  # fmt: skip


def test_the_detail_names_the_target_whole_and_says_when_it_is_not_the_current_one() -> None:
    assert delivery_detail(None, "https://a.example/h").plain == ""
    same = delivery_detail(delivery("https://a.example/h"), "https://a.example/h").plain
    assert same == "Task 42 → https://a.example/h"
    moved = delivery_detail(delivery("https://old.example/h", "timed out"), "https://a.example/h").plain
    assert moved == (
        "Task 42 → https://old.example/h  (not the current target: R can send it there)\nlast error: timed out"
    )


def test_text_from_the_server_is_shown_not_obeyed() -> None:
    shown = delivery_detail(delivery("https://a.example/\x1b[2J", "[b]500[/b]\x07"), None).plain
    assert "\x1b" not in shown and "\x07" not in shown and "[b]500[/b]" in shown


def test_l_goes_round_every_order_of_the_log_each_with_its_words_and_column() -> None:
    seen, sort = [], "id"
    for _ in LOG_SORT_COLUMNS:
        seen.append(sort)
        sort = next_sort(list(LOG_SORT_COLUMNS), sort)
    assert sort == "id" and sorted(seen) == sorted(LOG_SORT_COLUMNS) == sorted(LOG_SORT_NOTES)
    assert all(newest != oldest for newest, oldest in LOG_SORT_NOTES.values())
