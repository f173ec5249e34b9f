"""The display rule's cost on the paint path: `shown` on table-cell-sized text, clean and hostile,
against doing nothing (`str` itself) and a per-character Python loop.

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
