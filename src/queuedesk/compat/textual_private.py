"""Textual's private names QueueDesk uses (Textual 8.2)."""

from queuedesk.compat import PrivateName

PRIVATE_NAMES = (
    # The last guard (tui/terminal/terminal_guard.py): every strip is checked once before it is written.
    *(
        PrivateName(
            f"textual.strip.Strip.{name}",
            2,
            "A strip's segments and its rendered text: the guard shows any control character left "
            "in a segment as a symbol before the strip is first rendered (render is cached after).",
            "tui/terminal/terminal_guard.py _render",
            on_instances=True,
        )
        for name in ("_segments", "_render_cache")
    ),
    PrivateName(
        "textual.app.App._loop",
        2,
        "The running app's event loop: on SIGTERM the signal handler (on the loop's own thread, "
        "where call_from_thread refuses) asks it to run the app's quit, as ctrl+q does.",
        "tui/terminal/terminal_session.py quits_on_sigterm",
        on_instances=True,
    ),
    PrivateName(
        "textual.app.App._load_screen_css",
        2,
        "Overridden to add a screen's own style files (STYLE_FILES) the first time it is shown: "
        "Textual's public way, a screen's CSS_PATH, re-parses every style source and restyles every "
        "node on the screen's first visit (21-35 ms each).",
        "tui/app.py QueueDeskApp._load_screen_css",
    ),
    PrivateName(
        "textual._context.active_app",
        2,
        "Whether an app is running when textual-image is first imported: then the terminal must not "
        "be asked (its answer would arrive as typed keys). No public accessor exists.",
        "compat/textual_private.py app_is_running",
    ),
    PrivateName(
        "textual._xterm_parser.XTermParser._sequence_to_key_events",
        2,
        "Wrapped so that `escape` and the key typed after it, read together (a stall, a fast typist), "
        "are two keys: Textual reads ESC TAB as shift+tab and ESC s as alt+s. No public hook reaches "
        "the parser the terminal driver makes.",
        "tui/keys/escape_prefix.py install",
    ),
    # KeysInOrder (tui/base.py, issue 25): keys read while a screen has no focused widget yet wait for
    # its first field. The rest of the key mechanism is public (priority bindings, set_focus,
    # call_later, BINDINGS, App.on_event): tui/keys/ordered_keys.py.
    PrivateName(
        "textual.screen.Screen._forward_event",
        2,
        "Where the app hands a key to the screen when nothing on it has the focus: overridden to "
        "hold keys until a field takes the focus, and called to hand them on.",
        "tui/base.py KeysInOrder._forward_event, _release; tui/keys/ordered_keys.py KeysInFlight",
    ),
    PrivateName(
        "textual.screen.Screen._modal_binding_chain",
        2,
        "The bindings Textual looks through for a key, in its order (priority ones from the app "
        "down, then from the focused widget up): whether a key acts only once it came back up from "
        "the focused widget, so that the keys after it wait for it. No public accessor gives the "
        "order (active_bindings merges it away).",
        "tui/keys/ordered_keys.py acting_binding",
    ),
    PrivateName(
        "textual.widget.Widget._forward_event",
        2,
        "How the keys held while no field had the focus are handed, in order, to the field that "
        "takes it (as the app would have handed them); and a key that acts once it came back up, "
        "handed to the focused widget as the app would hand it while the keys after it wait.",
        "tui/base.py KeysInOrder._release; tui/keys/ordered_keys.py KeysInFlight.send_up",
    ),
    # The tests' own: what a screen paints, read as text, and whether the app stopped on an error.
    PrivateName(
        "textual.screen.Screen._compositor",
        2,
        "The tests read what the top screen paints, line by line (no public accessor gives the "
        "painted text; export_screenshot gives SVG).",
        "tests/support/pilot.py screen_text, tests/tui/test_terminal_text.py",
        on_instances=True,
    ),
    PrivateName(
        "textual.app.App._exception",
        2,
        "The tests check that choosing an entry did not stop the app with an error.",
        "tests/tui/test_app.py, tests/tui/test_work.py",
        on_instances=True,
    ),
    PrivateName(
        "textual.widgets._data_table.DataTable._clear_caches",
        3,
        "After a live refresh changed some cells: the table keys its cached renders by a count of "
        "its updates, so the renders made before are never used again and stay until evicted "
        "(≈6 MB on a Stats tab refreshed every 0.2 s); this drops them at once.",
        "tui/panes/stats_view.py StatsView._show_workers",
    ),
    PrivateName(
        "textual.widgets._text_area.TextArea",
        3,
        "Looked up in sys.modules by this module name so that the first screen (which has no "
        "TextArea) does not import it (≈5 ms of the start) for an isinstance check.",
        "tui/base.py _text_area_class",
    ),
)


def app_is_running() -> bool:
    """Whether a Textual app is running in this context."""
    try:
        from textual._context import active_app
    except ImportError:  # pragma: no cover - the test of PRIVATE_NAMES says so first
        return False
    return active_app.get(None) is not None


# The lifecycle rule (tui/nodes/lifecycle.py, issue 40): a node's own work stops at its first DOM step
# once the node is gone. Textual says publicly only whether a node is attached, which stays true
# while its children are already removed.
PRIVATE_NAMES += (
    *(
        PrivateName(
            f"textual.{where}.{name}",
            2,
            "Whether a node is on its way out of the DOM (pruned with its screen, its messages "
            "closing or closed): its children may already be gone while it is still attached.",
            "tui/nodes/lifecycle.py is_gone",
            on_instances=True,
        )
        for where, name in (
            ("dom.DOMNode", "_pruning"),
            ("message_pump.MessagePump", "_closing"),
            ("message_pump.MessagePump", "_closed"),
        )
    ),
    PrivateName(
        "textual._context.active_message_pump",
        2,
        "The node whose handler runs now: a gone node's own handler stops at its first DOM step, "
        "live code that asks a gone node still gets NoMatches.",
        "compat/textual_private.py dispatching_node",
    ),
    *(
        PrivateName(
            f"textual.{where}._task",
            2,
            "The asyncio task a node's messages (or a worker) run in: a gone node's work is ended "
            "(a CancelledError) only in its own task, never in a callback another screen runs.",
            "tui/nodes/lifecycle.py ends_here",
            on_instances=True,
        )
        for where in ("message_pump.MessagePump", "worker.Worker")
    ),
    *(
        PrivateName(
            f"textual.widgets._footer.FooterKey.{name}",
            3,
            "What a footer key shows and does: the app's footer leaves out the screen's last keys "
            "when they are too many for the width, so that ^q Quit and f1 Keys always show.",
            "tui/widgets/app_footer.py fitted",
            on_instances=True,
        )
        for name in ("key", "key_display", "description", "action")
    ),
    PrivateName(
        "textual.message_pump.MessagePump._dispatch_message",
        2,
        "Wrapped so that a handler of a node that is gone ends at its first DOM step (NodeGone) "
        "instead of stopping the app.",
        "tui/nodes/lifecycle.py Lifecycle._dispatch_message",
    ),
)


def is_leaving(node: object) -> bool:
    """Whether Textual is removing `node` (pruning it, or closing its messages)."""
    return bool(
        getattr(node, "_pruning", False)
        or getattr(node, "_closing", False)
        or getattr(node, "_closed", False)
    )


def dispatching_node() -> object | None:
    """The node (or app) whose message handler runs in this context, or None."""
    from textual._context import active_message_pump

    return active_message_pump.get(None)


def pump_task(node: object) -> object:
    """The asyncio task `node`'s messages are processed in (None before it started)."""
    return getattr(node, "_task", None)


def worker_task(worker: object) -> object:
    """The asyncio task a Textual worker runs in (None for a thread worker not started)."""
    return getattr(worker, "_task", None)
