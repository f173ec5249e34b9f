"""Files that hold the service's data (the SQLite database, its WAL, backups) readable by their owner
alone, whatever the umask: the database holds webhook secrets, key hashes and every task's values.

SQLite makes a database's `-wal` and `-shm` files with the database file's own permissions, so a
database created (or found) 0600 keeps its companions 0600 too.
"""

import os
from pathlib import Path

PRIVATE_FILE = 0o600
PRIVATE_DIRECTORY = 0o700
COMPANIONS = ("-wal", "-shm", "-journal")


def private_directory(path: Path, *, tighten_existing: bool) -> None:
    """Make the directory (and missing parents) 0700. An existing one is tightened only when it is
    QueueDesk's own (`tighten_existing`), never a directory the user named for other things too."""
    if path.is_dir():
        if tighten_existing:
            path.chmod(PRIVATE_DIRECTORY)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        path.mkdir(mode=PRIVATE_DIRECTORY)
    except FileExistsError:
        return
    path.chmod(PRIVATE_DIRECTORY)  # mkdir's mode is cut by the umask


def private_file(path: Path) -> None:
    """Create the file empty if it is missing, and make it and its SQLite companions 0600."""
    fd = os.open(path, os.O_CREAT | os.O_WRONLY, PRIVATE_FILE)
    try:
        os.fchmod(fd, PRIVATE_FILE)
    finally:
        os.close(fd)
    for suffix in COMPANIONS:
        companion = Path(f"{path}{suffix}")
        if companion.exists():
            companion.chmod(PRIVATE_FILE)
