"""`named_entity_recognition` blocks: entities marked in the task's text by keyboard.

The task's value brings the text (`{"text": ..., "entities": [...]}`, see `queuedesk.api.entities`);
the worker marks spans of it. Keys while the editor has the focus:
- `left`/`right` move the cursor a word (or punctuation mark), `home`/`end` to the first/last one;
- `shift+left`/`shift+right` extend the span from where it started;
- a digit gives the span a label (`1` the first of the block's labels, `0` the tenth), replacing
  whatever it overlaps;
- `backspace`/`delete` unmark what the span touches;
- `up`/`down` go to the previous/next marked entity.
"""

import itertools
from typing import Any, ClassVar

from textual import events
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from queuedesk.api import entities
from queuedesk.api.entities import Entity
from queuedesk.api.terminal_text import shown
from queuedesk.tui.forms.base import BlockEditor
from queuedesk.tui.forms.options import DIGITS, number_range

# One look per label, in the block's order (then again from the first).
LABEL_STYLES = (
    "$text on $primary-muted",
    "$text on $success-muted",
    "$text on $warning-muted",
    "$text on $secondary-muted",
    "$text on $error-muted",
    "$text on $accent-muted",
)
SPAN_STYLE = "reverse"
MOVES = frozenset({"left", "right", "shift+left", "shift+right", "home", "end", "up", "down"})


class NamedEntityEditor(BlockEditor):
    can_focus = True
    # The digits are in the legend under the text, beside each label's name.
    HINT: ClassVar[str] = "←→ ⇧←→ span · ⌫ unmark"

    _value: Any = None
    _tokens: tuple[tuple[int, int], ...] = ()
    _cursor = 0
    _anchor: int | None = None

    # --- the value ------------------------------------------------------------------------------

    def value(self) -> Any:
        return self._value

    def set_value(self, value: Any) -> None:
        if entities.text_of(value) != entities.text_of(self._value) or not self._tokens:
            self._cursor, self._anchor = 0, None
            self._tokens = tuple(entities.tokens(entities.text_of(value) or ""))
        had_text = bool(self.query(".ner-text")) if self.composed else None
        self._value = value
        if had_text is not None and had_text != self._has_text():
            self.refresh(recompose=True)  # "no text to mark" <-> the text (nothing in it takes the focus)
        self.show_marks()
        self.value_changed()

    def reset(self, value: Any) -> None:
        # Another task: its first word, also when its text is the one of the task before.
        self._cursor, self._anchor, self._tokens = 0, None, ()
        super().reset(value)

    def _has_text(self) -> bool:
        text = entities.text_of(self._value)
        return bool(text and text.strip())

    def forget_keys(self) -> None:
        self._anchor = None
        self.show_marks()

    @property
    def labels(self) -> list[tuple[str, str]]:
        return entities.labels(self.block.settings)

    def key_hint(self) -> str:
        if not self._tokens:
            return ""
        return self.HINT

    def help_keys(self) -> str:
        if not self._tokens:
            return ""
        numbers = number_range(min(len(self.labels), 10))
        return (
            f"←→ a word · shift+←→ extend the span · {numbers} label it · ⌫ unmark · "
            "↑↓ previous/next entity · home/end first/last word"
        )

    # --- what is shown --------------------------------------------------------------------------

    def compose_field(self) -> ComposeResult:
        if not self._has_text():
            yield Static("no text to mark in this task", classes="editor-value -empty")
            return
        # The text scrolls in a window of its own, so the labels' legend under it stays in view.
        window = VerticalScroll(Static(self.marked_text(), classes="ner-text"), classes="ner-window")
        window.can_focus = False
        yield window
        if self.editable:
            yield Static(self.legend(), classes="ner-legend")

    def on_mount(self) -> None:
        self.show_marks()

    def on_focus(self) -> None:
        self.show_marks()

    def on_blur(self) -> None:
        self.show_marks()

    def show_marks(self) -> None:
        if not self.composed:
            return
        for text in self.query(".ner-text").results(Static):
            text.update(self.marked_text())
        for legend in self.query(".ner-legend").results(Static):
            legend.update(self.legend())

    def span(self) -> tuple[int, int] | None:
        """The characters the cursor (and the span extended from it) covers."""
        if not self._tokens:
            return None
        first, last = sorted((self._cursor, self._cursor if self._anchor is None else self._anchor))
        return self._tokens[first][0], self._tokens[last][1]

    def _label_style(self, label: str) -> str:
        ids = [label_id for label_id, _ in self.labels]
        index = ids.index(label) if label in ids else len(ids)
        return LABEL_STYLES[index % len(LABEL_STYLES)]

    def _label_name(self, label: str) -> str:
        return dict(self.labels).get(label, label)

    def marked_text(self) -> Content:
        """The text with each entity in its label's colour, its label after it, and the span."""
        text = entities.text_of(self._value) or ""
        found = entities.entities_of(self._value)
        # The screen's focus, not `has_focus`: that is set after this editor's own `on_focus` ran.
        focused = self.is_attached and self.screen.focused is self
        span = self.span() if self.editable and focused else None
        cuts = {0, len(text)}
        for marked in found:
            cuts.update((min(marked.start, len(text)), min(marked.end, len(text))))
        if span is not None:
            cuts.update(span)
        ordered = sorted(cuts)
        pieces: list[tuple[str, str] | str] = []
        for start, end in itertools.pairwise(ordered):
            entity = next((e for e in found if e.start <= start < e.end), None)
            styles = [self._label_style(entity.label)] if entity else []
            if span is not None and span[0] <= start < span[1]:
                styles.append(SPAN_STYLE)
            pieces.append((shown(text[start:end]), " ".join(styles)))
            if entity is not None and end == min(entity.end, len(text)):
                tag = shown(self._label_name(entity.label))
                pieces.append((f"[{tag}]", f"bold {self._label_style(entity.label)}"))
        return Content.assemble(*pieces)

    def legend(self) -> Content:
        pieces: list[tuple[str, str] | str] = []
        for index, (label_id, name) in enumerate(self.labels[:10]):
            if index:
                pieces.append("  ")
            pieces.append((DIGITS[index], "bold $text-accent"))
            pieces.append(" ")
            pieces.append((shown(name), self._label_style(label_id)))
        count = len(entities.entities_of(self._value))
        pieces.append((f"   {count} marked", "$text-muted"))
        return Content.assemble(*pieces)

    # --- keys -----------------------------------------------------------------------------------

    async def on_key(self, event: events.Key) -> None:
        # No check of the focus: a key handed to this editor was typed while it had the focus.
        if not self.editable or not self._tokens:
            return
        if self.type_key(event.key):
            event.stop()
            event.prevent_default()

    def takes_key(self, key: str) -> bool:
        return bool(self._tokens) and (key in MOVES or key in ("backspace", "delete") or key in DIGITS)

    def type_key(self, key: str) -> bool:
        """Apply one key as typed now; False when it is not one of this editor's."""
        if key in MOVES:
            self._move(key)
        elif key in ("backspace", "delete"):
            self._unmark()
        elif len(key) == 1 and key in DIGITS:
            self._label(DIGITS.index(key))
        else:
            return False
        return True

    def _move(self, key: str) -> None:
        last = len(self._tokens) - 1
        extend = key.startswith("shift+")
        if extend and self._anchor is None:
            self._anchor = self._cursor
        elif not extend:
            self._anchor = None
        if key in ("left", "shift+left"):
            self._cursor = max(0, self._cursor - 1)
        elif key in ("right", "shift+right"):
            self._cursor = min(last, self._cursor + 1)
        elif key == "home":
            self._cursor = 0
        elif key == "end":
            self._cursor = last
        else:
            self._to_entity(1 if key == "down" else -1)
        self.show_marks()
        self._keep_cursor_in_view()

    def _to_entity(self, step: int) -> None:
        found = entities.entities_of(self._value)
        here = self._tokens[self._cursor][0]
        # From inside an entity, the one before it is the previous one (not its own start).
        here = next((e.start for e in found if e.start <= here < e.end), here)
        starts = [e.start for e in found]
        ahead = [s for s in starts if s > here] if step > 0 else [s for s in starts if s < here]
        if not ahead:
            return
        target = min(ahead) if step > 0 else max(ahead)
        self._cursor = next(i for i, (start, end) in enumerate(self._tokens) if end > target)

    def _label(self, index: int) -> None:
        labels = self.labels
        span = self.span()
        if span is None or not isinstance(self._value, dict):
            return
        if index >= len(labels):
            self.show_problem(f"no label {DIGITS[index]} ({number_range(min(len(labels), 10))})")
            return
        self._anchor = None
        self.set_value(entities.with_entity(self._value, Entity(span[0], span[1], labels[index][0])))

    def _unmark(self) -> None:
        span = self.span()
        if span is None or not isinstance(self._value, dict):
            return
        if not any(e.start < span[1] and e.end > span[0] for e in entities.entities_of(self._value)):
            self.show_problem("nothing is marked here")
            return
        self._anchor = None
        self.set_value(entities.without_entities(self._value, *span))

    def _keep_cursor_in_view(self) -> None:
        """Scroll the text's window so the cursor's line shows, and the field into its pane.

        The window is scrolled to the cursor's share of the text: a line at that share of the
        wrapped text is then at the same share of the window, so always inside it."""
        text = entities.text_of(self._value) or ""
        window = next(self.query(".ner-window").results(VerticalScroll), None)
        if window is None or not text:
            return
        share = self._tokens[self._cursor][1] / len(text)

        def scroll() -> None:  # once laid out: the marks just made may have wrapped the text anew
            window.scroll_to(y=round(share * window.max_scroll_y), animate=False)

        self.call_after_refresh(scroll)
        self.scroll_visible(animate=False)
