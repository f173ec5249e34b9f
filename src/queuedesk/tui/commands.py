"""The command palette (`ctrl+p`): "Open queue …" for every queue, and the current screen's actions."""

from typing import TYPE_CHECKING, cast

from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.fuzzy import Matcher

from queuedesk.api.terminal_text import shown

if TYPE_CHECKING:
    from queuedesk.tui.host import AppHost


# Moving about a list or a field is what keys are for, not a palette entry.
NAVIGATION = frozenset(
    {
        "cursor_up",
        "cursor_down",
        "cursor_left",
        "cursor_right",
        "page_up",
        "page_down",
        "page_left",
        "page_right",
        "first_row",
        "last_row",
        "first_loaded",
        "last_loaded",
        "scroll_up",
        "scroll_down",
        "scroll_left",
        "scroll_right",
        "scroll_home",
        "scroll_end",
        "scroll_top",
        "scroll_bottom",
        "select_cursor",
        "app.focus_next",
        "app.focus_previous",
    }
)


# Textual's own palette entries (Quit, Keys, Theme ...) already offer these.
OFFERED_BY_TEXTUAL = frozenset({"quit", "app.quit"})


def offers(binding: Binding) -> bool:
    """An action the palette lists: described, and in the footer or named by an id (tabs, People,
    New queue ...), but not a system key nor a move of the cursor."""
    if not binding.description or binding.system:
        return False
    if binding.action.split("(")[0] in NAVIGATION | OFFERED_BY_TEXTUAL:
        return False
    return binding.show or binding.id is not None


class QueueCommands(Provider):
    @property
    def qd(self) -> "AppHost":
        return cast("AppHost", self.app)

    def _commands(self) -> list[tuple[str, object, str]]:
        found: list[tuple[str, object, str]] = []
        for queue in self.qd.known_queues:
            found.append(
                (
                    f"Open queue {queue.name}",
                    lambda q=queue: self.qd.open_queue(q),
                    f"{queue.n_tasks:,} pending",
                )
            )
            if self.qd.session is not None and self.qd.session.can_work:
                found.append(
                    (f"Work in {queue.name}", lambda q=queue: self.qd.open_work(q), "claim the next task")
                )
        offered: set[tuple[int, str]] = set()
        for active in self.screen.active_bindings.values():
            binding, node = active.binding, active.node
            if not (active.enabled and offers(binding)) or (id(node), binding.action) in offered:
                continue  # one entry per action, also when several keys run it (f1 and ?)
            offered.add((id(node), binding.action))
            label = f"{binding.description} ({self.app.get_key_display(binding)})"
            found.append(
                (label, lambda a=binding.action, n=node: self.app.run_action(a, n), "on this screen")
            )
        return found

    async def discover(self) -> Hits:
        for name, action, help_text in self._commands():
            name = shown(name)
            yield DiscoveryHit(Content(name), action, text=name, help=help_text)  # type: ignore[arg-type]

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        task_id = _task_id(query)
        opener = getattr(self.screen, "open_task_by_id", None)
        if task_id is not None and callable(opener):  # on a queue's screen: "123" or "task 123"
            name = f"Open task {task_id}"
            yield Hit(1.0, Content(name), lambda: opener(task_id), text=name, help="in this queue, by its id")
        for name, action, help_text in self._commands():
            name = shown(name)
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, highlighted(matcher, name), action, text=name, help=help_text)  # type: ignore[arg-type]


def _task_id(query: str) -> int | None:
    words = query.strip().lower().removeprefix("open").strip().removeprefix("task").strip().lstrip("#")
    return int(words) if words.isdigit() and 0 < int(words) < 2**63 else None


def highlighted(matcher: Matcher, name: str) -> Content:
    """`matcher.highlight(name)`, but with `name` as written: Textual's reads it as markup, and a queue
    named "Fix [/b] later" raised MarkupError in the palette."""
    content = Content(name)
    for offset in matcher.fuzzy_search.match(matcher.query, name)[1]:
        if not name[offset].isspace():
            content = content.stylize(matcher.match_style, offset, offset + 1)
    return content
