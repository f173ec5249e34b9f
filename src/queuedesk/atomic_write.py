"""Files written whole or not at all: the configuration, the journal of unsent work, an export, the
demo's state.

The text goes to a file of its own beside the target, is flushed to the disk, and only then takes
the target's name (`os.replace`, atomic on one file system). A crash, a full disk or ctrl+c
midway leaves the old file as it was, never half a file. Standard library only: the app's start
path writes with it.
"""

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

PRIVATE = 0o600  # the owner only: files that hold API keys or people's unsent work
SHARED = 0o666  # as any new file: the umask decides


@contextmanager
def atomic_write(path: Path, *, permissions: int = PRIVATE, newline: str | None = None) -> Iterator[IO[str]]:
    """A text handle whose contents become `path` when the block ends without an exception.

    OSError when the file beside it cannot be made (a missing folder, no permission): nothing is
    written then.
    """
    partial = path.with_name(f".{path.name}.{secrets.token_hex(4)}.partial")
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, permissions)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8", newline=newline) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(partial, path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def write_atomically(path: Path, text: str, *, permissions: int = PRIVATE) -> None:
    """`path` holds `text`, whole, or (on failure) what it held before."""
    with atomic_write(path, permissions=permissions) as handle:
        handle.write(text)
