"""The app's one lifecycle rule: no code touches a node's DOM once the node is gone.

Textual cancels a node's workers when the node is unmounted, and the cancellation runs the worker's
`finally` and `except` blocks on a node whose children are already removed: a `query_one` there
raised `NoMatches` and stopped the app (the flush dialog's count, escaped while it counted). A node
goes in steps (its children pruned first, then its unmount, then detached), and work can resume in
any of them, also when nothing cancelled it (an answer that arrives while the screen is taken down).

`Lifecycle` (a base of every screen, dialog and pane: `AppScreen`, `AppModal`, `AppAccess` in
`tui/base.py`) enforces the rule where every DOM step starts, its queries:

- `query_one`, `query_exactly_one` and `query_one_optional` on a node that is gone (being removed,
  or an ancestor is; or detached after it was mounted), asked by that node's own work in its own
  task, raise `NodeGone`, a `CancelledError`. So the work stops at its first DOM step, the rest of
  the `finally` (or `except`) included; `except Exception` does not catch it (no failure is
  reported for work nobody waits for); a worker ends as cancelled, as Textual ended it.
- A handler of the gone node (a blur, a mount after its screen went, a timer) stops the same way:
  `_dispatch_message` below ends the handler there and the node goes on leaving.
- Callbacks the node schedules (`call_after_refresh`, `call_later`, `call_next`) end quietly at
  their first DOM step once it is gone: Textual runs an after-refresh callback on whatever screen
  is on top by then, in that screen's task, where a `CancelledError` must not be raised.
- Live code that asks a gone node it kept a reference to (another screen, the app) still gets
  Textual's `NoMatches`: that is a bug of the caller's, not work of the node's own, and says so.
  `NodeGone` is never raised where it would end another node's message loop.

A screen, dialog or pane built on those bases gets this without a line of its own; no
`try/except NoMatches` or `is_attached` check is needed after an `await`.
"""

import asyncio
import inspect
from asyncio import CancelledError
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from textual.css.query import NoMatches
from textual.dom import DOMNode
from textual.message import Message
from textual.widget import Widget
from textual.worker import NoActiveWorker, get_current_worker

from queuedesk.compat.textual_private import dispatching_node, is_leaving, pump_task, worker_task


class NodeGone(CancelledError):
    """A node's DOM was asked for, on behalf of the node's own work, once the node was gone."""


def is_gone(node: DOMNode) -> bool:
    """Whether `node` is being removed (it or an ancestor) or was mounted and is detached now."""
    if isinstance(node, Widget) and node.is_mounted and not node.is_attached:
        return True
    return any(is_leaving(each) for each in node.ancestors_with_self)


def ends_here(node: DOMNode) -> bool:
    """Whether the code running now is work of gone `node`'s that may be ended where it stands: a
    worker of a gone node, in that worker's own task; or a handler of a gone `Lifecycle` node, in
    that node's own task (its `_dispatch_message` ends the handler). Anywhere else (a callback run
    by another screen, live code) a `CancelledError` would end another node's loop."""
    if not is_gone(node):
        return False
    task = asyncio.current_task()
    try:
        worker = get_current_worker()
    except NoActiveWorker:
        pass
    else:
        if worker_task(worker) is task and isinstance(worker.node, DOMNode) and is_gone(worker.node):
            return True
    pump = dispatching_node()
    return (
        isinstance(pump, Lifecycle)
        and isinstance(pump, DOMNode)
        and pump_task(pump) is task
        and is_gone(pump)
    )


class Lifecycle:
    """A node whose own work and handlers stop at their first DOM step once it is gone (above)."""

    @property
    def node_gone(self) -> bool:
        """Whether this node is being removed or is detached (for code that asks before it acts)."""
        return is_gone(self)  # type: ignore[arg-type]

    def _stop_if_gone(self) -> None:
        node: Any = self
        if ends_here(node):
            raise NodeGone(f"{node!r} is gone: its work stops here")

    def _quiet_once_gone(self, callback: Callable[..., Any]) -> Callable[..., Awaitable[None]]:
        """`callback`, run as asked (others wait for it: a pilot, `after_keys`), whose DOM step on
        this node once it is gone ends it quietly (also when another screen runs it for us)."""
        node: Any = self

        async def run(*args: Any, **kwargs: Any) -> None:
            try:
                result = callback(*args, **kwargs)
                if inspect.isawaitable(result):
                    await result
            except (NodeGone, NoMatches):
                if not is_gone(node):
                    raise

        return run

    if not TYPE_CHECKING:  # Textual's own signatures are the ones checked

        def query_one(self, *args: Any, **kwargs: Any) -> Any:
            self._stop_if_gone()
            return super().query_one(*args, **kwargs)

        def query_exactly_one(self, *args: Any, **kwargs: Any) -> Any:
            self._stop_if_gone()
            return super().query_exactly_one(*args, **kwargs)

        def query_one_optional(self, *args: Any, **kwargs: Any) -> Any:
            self._stop_if_gone()
            return super().query_one_optional(*args, **kwargs)

        def call_after_refresh(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
            return super().call_after_refresh(self._quiet_once_gone(callback), *args, **kwargs)

        def call_later(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
            return super().call_later(self._quiet_once_gone(callback), *args, **kwargs)

        def call_next(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
            return super().call_next(self._quiet_once_gone(callback), *args, **kwargs)

        async def _dispatch_message(self, message: Message) -> None:
            try:
                await super()._dispatch_message(message)
            except NodeGone:
                pass  # raised on behalf of a gone node's work: that work stops here, nothing else
            except NoMatches:
                # Textual's own query in a handler of a node that is leaving (a widget's blur while
                # its children go): the node is on its way out, the handler has nothing left to do.
                if not is_gone(self):
                    raise
