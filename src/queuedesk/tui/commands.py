"""The command palette (`ctrl+p`): "Open queue …" for every queue, and the current screen's actions."""

from typing import TYPE_CHECKING, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

if TYPE_CHECKING:
    from queuedesk.tui.app import QueueDeskApp


class QueueCommands(Provider):
    @property
    def qd(self) -> "QueueDeskApp":
        return cast("QueueDeskApp", self.app)

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
        screen = self.screen
        for active in screen.active_bindings.values():
            binding = active.binding
            if binding.description and active.enabled and binding.show:
                label = f"{binding.description} ({self.app.get_key_display(binding)})"
                found.append((label, lambda a=binding.action: screen.run_action(a), "on this screen"))
        return found

    async def discover(self) -> Hits:
        for name, action, help_text in self._commands():
            yield DiscoveryHit(name, action, help=help_text)  # type: ignore[arg-type]

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, action, help_text in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), action, help=help_text)  # type: ignore[arg-type]
