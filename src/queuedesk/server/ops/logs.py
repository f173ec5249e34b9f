"""The server's logs: text lines or JSON lines (`--log-format`), from `--log-level` up, on stderr.

A line carries its fields apart from its message (`extra={"fields": {...}}`): JSON lines hold them
as keys, text lines as `name=value` after the message. Never a key, a body or a task's values.
"""

import logging
import sys
import time
from typing import Any

import orjson

FIELDS = "fields"
# Libraries' lines below these levels say nothing an operator acts on.
QUIET = {"httpx": logging.WARNING, "uvicorn": logging.WARNING, "uvicorn.error": logging.WARNING}


def _timestamp(record: logging.LogRecord) -> str:
    seconds = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
    return f"{seconds}.{int(record.msecs):03d}Z"


class JsonLines(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": _timestamp(record),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        fields = getattr(record, FIELDS, None)
        if fields:
            line.update(fields)
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return orjson.dumps(line, default=str).decode()


class TextLines(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        text = f"{_timestamp(record)} {record.levelname} {record.name}: {record.getMessage()}"
        fields = getattr(record, FIELDS, None)
        if fields:
            text += " " + " ".join(f"{name}={_plain(value)}" for name, value in fields.items())
        if record.exc_info:
            text += "\n" + self.formatException(record.exc_info)
        return text


def _plain(value: Any) -> str:
    text = "-" if value is None else str(value)
    return text if text and " " not in text and '"' not in text else orjson.dumps(text).decode()


def configure(log_format: str, level: str) -> None:
    """The root logger's one handler, for the whole process."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonLines() if log_format == "json" else TextLines())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    for name, least in QUIET.items():
        logging.getLogger(name).setLevel(max(least, root.level))
