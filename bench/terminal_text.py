"""The display rule's cost on the paint path: `shown` on table-cell-sized text, clean and hostile,
against a per-character Python loop; and the app's last guard on a clean line of 12 styled
segments (what every strip pays once, before its render is cached). Under callgrind (instructions,
not moved by the machine's load) the guard added 11.5k instructions to Textual's 45.8k for that
strip (+25%), 2026-11-25.

    python bench/terminal_text.py
"""

import timeit

from queuedesk.api.terminal_text import is_safe, shown

CLEAN = "Refund request from Jane Doe — order 48213, card ending 4242"
HOSTILE = "Refund \x1b]0;pwned\x07 request \x1b[2J\u202e from Jane\x7f\x9b"
LONG = CLEAN * 100  # a 6,000-character task text


def loop(text: str) -> str:
    return "".join(c if c.isprintable() or c in "\n\t" else "?" for c in text)


def per_call(statement: str, number: int, **names: object) -> float:
    return min(timeit.repeat(statement, globals=names, number=number, repeat=5)) / number


def guard_cost() -> None:
    """A fresh strip of 12 styled segments rendered, as Textual does it and through the guard."""
    from rich.console import Console
    from rich.segment import Segment
    from rich.style import Style
    from textual.strip import Strip

    from queuedesk.tui.terminal import terminal_guard

    styles = [Style(bold=True), Style(color="red"), Style(italic=True), None]
    line = [Segment(CLEAN[: 12 + n % 5], styles[n % 4]) for n in range(12)]
    console = Console(color_system="truecolor", force_terminal=True)
    names = {"Strip": Strip, "line": line, "console": console}
    textual = per_call("Strip(line).render(console)", 50_000, **names)
    terminal_guard.install()
    guarded = per_call("Strip(line).render(console)", 50_000, **names)
    print(
        f"a strip made and rendered: Textual {textual * 1e6:5.2f} µs, guarded {guarded * 1e6:5.2f} µs "
        f"(+{guarded / textual - 1:.0%})"
    )


def main() -> None:
    for label, text, number in (
        ("cell, clean", CLEAN, 200_000),
        ("cell, hostile", HOSTILE, 200_000),
        ("6 kB text", LONG, 5_000),
    ):
        rule = per_call("shown(text)", number, shown=shown, text=text)
        check = per_call("is_safe(text)", number, is_safe=is_safe, text=text)
        naive = per_call("loop(text)", max(number // 20, 100), loop=loop, text=text)
        print(
            f"{label:14} shown {rule * 1e9:8.0f} ns   is_safe {check * 1e9:8.0f} ns   per-char loop {naive * 1e9:9.0f} ns"
        )


if __name__ == "__main__":
    main()
    guard_cost()
