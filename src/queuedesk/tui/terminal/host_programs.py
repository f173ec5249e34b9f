"""A browser session (`queuedesk web`) runs no program on the host, ever.

The session's app process runs on the operator's machine, in the operator's environment (a tmux
server, a desktop's display), for whoever drives the page: a program it started (a clipboard tool,
a viewer, anything a library decides to run) would run there, with text a visitor chose. So before
the app starts, the process refuses every way Python has to create a process: an audit hook raises
`PermissionError` on each such event (subprocess, os.system and popen, the exec, spawn and
posix_spawn families, fork and forkpty, and the C library's own functions for them reached through
ctypes), and `_posixsubprocess.fork_exec`, which starts a program without an audit event
(multiprocessing uses it), is replaced by a refusal. An audit hook cannot be removed: once refused,
refused for the life of the process. Callers see an `OSError`, which they already handle as "no such
program".
"""

import sys
from typing import Any

# Audit events that create a process or replace this one (CPython's table of audit events).
PROCESS_EVENTS = frozenset(
    {
        "subprocess.Popen",
        "os.system",
        "os.exec",
        "os.posix_spawn",
        "os.spawn",
        "os.fork",
        "os.forkpty",
        "os.startfile",
        "pty.spawn",
    }
)
# The C library's functions that start or replace a process, looked up through ctypes.
C_PROCESS_FUNCTIONS = ("system", "popen", "fork", "vfork", "clone", "exec", "posix_spawn", "spawn")

REFUSAL = "a browser session runs no program on the host"

_installed = False


def _c_function_starts_a_process(name: object) -> bool:
    if isinstance(name, bytes):
        name = name.decode(errors="replace")
    if not isinstance(name, str):
        return False
    return name.lstrip("_").startswith(C_PROCESS_FUNCTIONS)


def _refuse(event: str, args: tuple[Any, ...]) -> None:
    if event in PROCESS_EVENTS:
        raise PermissionError(f"{REFUSAL} ({event})")
    if event.startswith("ctypes.dlsym") and len(args) > 1 and _c_function_starts_a_process(args[1]):
        raise PermissionError(f"{REFUSAL} (ctypes: {args[1]!r})")


def _fork_exec_refused(*args: object, **kwargs: object) -> int:
    raise PermissionError(f"{REFUSAL} (_posixsubprocess.fork_exec)")


def refuse_host_programs() -> None:
    """From now on this process starts no program; idempotent."""
    global _installed
    if _installed:
        return
    sys.addaudithook(_refuse)
    try:
        import _posixsubprocess
    except ImportError:  # not on POSIX: the audit events cover the rest
        pass
    else:
        _posixsubprocess.fork_exec = _fork_exec_refused
    _installed = True


def main() -> int:
    """The browser session's entry: the guard first, then the app as `python -m queuedesk` runs it."""
    refuse_host_programs()
    from queuedesk.cli import main as queuedesk_main

    return queuedesk_main()


if __name__ == "__main__":
    raise SystemExit(main())
