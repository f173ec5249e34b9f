"""`escape` and the key typed after it stay two keys, however late the app reads them.

In a terminal's usual encoding `escape` is the byte ESC, which also starts every escape sequence
and is the alt prefix (alt+s is ESC s). Textual's parser reads ESC followed by another byte within
its escape delay (100 ms) as one key: ESC TAB as shift+tab, ESC s as alt+s (which a text field
types as "s"), ESC 2 as "™", ESC enter as enter alone. Keys typed apart are read together whenever
the app reads late: after a stall (a loaded machine, an SSH link, a stopped process) or from a fast
typist. A worker's `escape` then `tab` out of a text field then went backwards, and the keys after
it landed in the field before (every finding of the typing fuzzer, issue 25).

QueueDesk binds no alt+key, and terminals send shift+tab as ESC [ Z and keys with modifiers as
ESC [ or ESC O sequences. So ESC followed by `tab`, `enter` or a printable character other than
`[` and `O` is read as `escape` then that key, as is ESC followed by a key after the parser's delay
ran out (Textual's alt+key). Left as Textual reads them: the sequences (ESC [, ESC O), ESC ESC, and
ESC before another control key (ESC DEL is alt+backspace, a word deleted). The cost: a real alt+key
on a terminal without the kitty keyboard protocol is `escape` then the key (with the protocol,
which Textual asks for, alt+key comes as a sequence of its own and is unchanged).

Textual has no public hook for its parser (docs/textual-escape-prefix.md has a reproduction): this
wraps the parser's private `_sequence_to_key_events` (listed in `compat/textual_private.py`).
"""

from collections.abc import Callable, Iterable

from textual import events

ESC = "\x1b"
SEQUENCE_INTRODUCERS = frozenset("[O")  # ESC [ (CSI) and ESC O (SS3): a key's sequence, not two keys
KEYS_AFTER_ESCAPE = frozenset("\t\r")  # and printable characters

ToKeys = Callable[..., Iterable[events.Key]]


def two_keys(character: str) -> bool:
    """ESC followed by `character`, read together, is `escape` then the key of `character`."""
    if character in KEYS_AFTER_ESCAPE:
        return True
    return character.isprintable() and character not in SEQUENCE_INTRODUCERS


def escape_then(to_keys: ToKeys) -> ToKeys:
    """The parser's `_sequence_to_key_events`, reading an escape and the key after it as two keys."""

    def sequence_to_keys(self: object, sequence: str, alt: bool = False) -> Iterable[events.Key]:
        if alt and len(sequence) == 1:  # ESC, then this key after the delay: Textual's alt+key
            yield events.Key("escape", ESC)
            yield from to_keys(self, sequence)
        elif len(sequence) == 2 and sequence[0] == ESC and two_keys(sequence[1]):
            yield events.Key("escape", ESC)
            yield from to_keys(self, sequence[1])
        else:
            yield from to_keys(self, sequence, alt)

    sequence_to_keys.reads_escape_apart = True  # type: ignore[attr-defined]
    return sequence_to_keys


def install() -> None:
    """Read `escape` apart from the key after it in every parser made from now on (idempotent)."""
    from textual._xterm_parser import XTermParser

    if not installed():
        XTermParser._sequence_to_key_events = escape_then(XTermParser._sequence_to_key_events)  # type: ignore[method-assign]


def installed() -> bool:
    from textual._xterm_parser import XTermParser

    return getattr(XTermParser._sequence_to_key_events, "reads_escape_apart", False)
