"""The service's configuration from the environment (Part C): every `serve` option also reads
`QUEUEDESK_<OPTION>` (upper case, `-` as `_`), and the flag wins; `prune`, `backup` and `doctor`
read `QUEUEDESK_DB`.

The environment gives an option its default, so a flag given on the command line still wins. A
value is checked as the flag's would be, when the command runs (a wrong `QUEUEDESK_PORT` does not
stop `queuedesk queues list`); the error names the variable.
"""

import argparse
from collections.abc import Callable, Iterable, Mapping
from typing import Any

PREFIX = "QUEUEDESK_"
TRUE = ("1", "true", "yes", "on")
FALSE = ("0", "false", "no", "off")
# What the test suite sets on purpose for the servers it starts (checks made only under tests);
# every other QUEUEDESK_ variable of the developer's shell is cleared from them.
SUITE_HOOKS = ("QUEUEDESK_STATEMENT_GUARD", "QUEUEDESK_RETENTION_EVERY")


def variable(action: argparse.Action) -> str:
    """`--lease-seconds` reads QUEUEDESK_LEASE_SECONDS."""
    flag = next(s for s in action.option_strings if s.startswith("--"))
    return PREFIX + flag.removeprefix("--").upper().replace("-", "_")


def switch(name: str, value: str) -> bool:
    folded = value.strip().lower()
    if folded in TRUE:
        return True
    if folded in FALSE:
        return False
    raise argparse.ArgumentTypeError(f"{name}={value!r}: expected one of 1/true/yes or 0/false/no")


def _from(
    name: str, raw: str, convert: Callable[[str], Any], choices: Iterable[Any] | None
) -> Callable[[str], Any]:
    """`convert`, saying which variable a value it refuses came from (argparse checks the choices
    of a flag's value, not of a default's)."""

    def converted(value: str) -> Any:
        try:
            result = convert(value)
            if choices is not None and result not in choices:
                raise ValueError(f"expected one of {', '.join(map(str, choices))}")
        except (argparse.ArgumentTypeError, TypeError, ValueError) as exc:
            if value != raw:
                raise
            raise argparse.ArgumentTypeError(f"{name}={raw!r} in the environment: {exc}") from None
        return result

    converted.__name__ = getattr(convert, "__name__", "value")  # argparse names it in its message
    return converted


def _switch_from(name: str) -> Callable[[str], bool]:
    return lambda value: switch(name, value)


def read_environment(
    parser: argparse.ArgumentParser, actions: Iterable[argparse.Action], environ: Mapping[str, str]
) -> None:
    """Each of `actions` found in `environ` takes its default from there."""
    for action in actions:
        name = variable(action)
        raw = environ.get(name)
        if raw is None:
            continue
        if action.nargs == 0:
            # A switch (store_true): given, the flag turns it on whatever the variable says.
            action.type = _switch_from(name)
        elif action.type is not None or action.choices is not None:
            action.type = _from(name, raw, action.type or str, action.choices)  # type: ignore[arg-type]
        # argparse converts a string default with the action's type when the flag is absent.
        parser.set_defaults(**{action.dest: raw})


def cleared(environ: Mapping[str, str], keep: Iterable[str] = SUITE_HOOKS) -> dict[str, str]:
    """`environ` without the service's configuration: what a server started by the tests or the
    demo inherits, so that a developer's QUEUEDESK_DB or QUEUEDESK_PORT changes none of them."""
    kept = set(keep)
    return {name: value for name, value in environ.items() if not name.startswith(PREFIX) or name in kept}
