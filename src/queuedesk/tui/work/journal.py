"""Submissions on disk before anything else happens, so nothing a worker typed is ever lost.

One JSON file per server and user in the user's data directory (`QUEUEDESK_DATA_DIR` moves it).
An entry is written when a submission is held for undo, kept while it cannot be sent, and removed
only once the server accepted it. A submission the server refused for good stays, marked `failed`,
with the values typed, until the worker has seen it.
"""

import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from platformdirs import user_data_dir

from queuedesk.atomic_write import write_atomically
from queuedesk.tui.settings import web_session

State = Literal["held", "unsent", "failed"]

REVIEW = "review"
"""The key of `Entry.extra` that makes an entry a review's verdict (B19): `{"verdict", "note"}`; its
`data` are then the values on screen, sent as the correction with `correct` only."""


@dataclass
class Entry:
    id: str
    queue_id: int
    queue_name: str
    task_id: int
    data: dict[str, Any]
    state: State = "held"
    attempts: int = 0
    error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def data_dir() -> Path:
    override = os.environ.get("QUEUEDESK_DATA_DIR")
    return Path(override) if override else Path(user_data_dir("queuedesk"))


def journal_path(url: str, email: str) -> Path:
    key = hashlib.sha256(f"{url.rstrip('/')}\n{email}".encode()).hexdigest()[:16]
    return data_dir() / "journal" / f"{key}.json"


class Journal:
    """`persist=False` (default in a web session): the same journal in memory only, never on disk."""

    def __init__(self, path: Path, *, persist: bool | None = None) -> None:
        self.path = path
        self.persist = not web_session() if persist is None else persist
        self.entries: dict[str, Entry] = {}
        if self.persist and path.exists():
            try:
                raw = json.loads(path.read_text())
                self.entries = {item["id"]: Entry(**item) for item in raw}
            except (ValueError, TypeError, KeyError) as exc:
                # Never drop a worker's values silently: keep the unreadable file beside the new one.
                path.replace(path.with_suffix(".unreadable.json"))
                self.entries = {}
                self.load_error: str | None = f"{path} could not be read ({exc}); kept as *.unreadable.json"
                return
        self.load_error = None

    def put(self, entry: Entry) -> None:
        self.entries[entry.id] = entry
        self._write()

    def remove(self, entry_id: str) -> None:
        if self.entries.pop(entry_id, None) is not None:
            self._write()

    def in_state(self, *states: State) -> list[Entry]:
        return [e for e in self.entries.values() if e.state in states]

    def _write(self) -> None:
        if not self.persist:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        body = json.dumps([asdict(e) for e in self.entries.values()], ensure_ascii=False, indent=1)
        write_atomically(self.path, body)  # the owner's only: it holds what people entered
