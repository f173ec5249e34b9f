"""`queuedesk audit`: the organization's audit log (B20, admins), newest first, with its filters."""

import argparse
from datetime import UTC, date, datetime, time
from typing import Any

from queuedesk.api import errors
from queuedesk.api.models import AUDIT_ACTIONS, AuditEvent
from queuedesk.commands.common import OK, client_from, find_queue, print_json, print_table
from queuedesk.commands.export import moment

PAGE = 1000


def _since(value: date | datetime | None) -> datetime | None:
    """A date is the start of that UTC day; a date-time without an offset is UTC."""
    if value is None:
        return None
    if not isinstance(value, datetime):
        return datetime.combine(value, time.min, tzinfo=UTC)
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def _limit(text: str) -> int:
    if not text.isascii() or not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, not {text!r}")
    return int(text)


def _words(values: dict[str, Any]) -> str:
    """`key=value` pairs, a change as `from→to`, nested objects flattened one level."""
    parts = []
    for key, value in values.items():
        if isinstance(value, dict) and set(value) == {"from", "to"}:
            parts.append(f"{key}={value['from']}→{value['to']}")
        elif isinstance(value, dict):
            parts.append(f"{key}=" + ",".join(f"{k}:{v}" for k, v in value.items()))
        elif isinstance(value, list):
            parts.append(f"{key}=" + ",".join(str(v) for v in value))
        else:
            parts.append(f"{key}={value}")
    return " ".join(parts)


def _row(event: AuditEvent) -> tuple[Any, ...]:
    actor = "(host)" if event.actor is None else event.actor.email
    return (
        event.id,
        event.at.strftime("%Y-%m-%d %H:%M:%S UTC"),
        actor,
        event.action,
        event.queue_id,
        _words(event.subject),
        _words(event.detail),
    )


async def show_audit(args: argparse.Namespace) -> int:
    events: list[AuditEvent] = []
    async with client_from(args) as client:
        queue_id = None if args.queue is None else (await find_queue(client, args.queue)).id
        filters = {
            "action": args.action,
            "actor": args.actor,
            "queue_id": queue_id,
            "since": _since(args.since),
        }
        try:
            while len(events) < args.limit:
                page = await client.audit(
                    **filters, offset=len(events), limit=min(PAGE, args.limit - len(events))
                )
                events += page.events
                if page.next is None or not page.events:
                    break
        except errors.NotFound:
            raise errors.NotFound(
                "This server has no audit log (a QueueDesk server older than the audit log)."
            ) from None
    if args.json:
        print_json([event.model_dump(mode="json") for event in events])
        return OK
    print_table(["id", "at", "actor", "action", "queue", "subject", "detail"], [_row(e) for e in events])
    return OK


def add_parsers(
    commands: "argparse._SubParsersAction[argparse.ArgumentParser]", connection: argparse.ArgumentParser
) -> None:
    auditing = commands.add_parser(
        "audit",
        parents=[connection],
        help="who did what: the organization's audit log, newest first (admins)",
    )
    auditing.add_argument(
        "--action",
        choices=AUDIT_ACTIONS,
        metavar="ACTION",
        help="only this action: " + ", ".join(AUDIT_ACTIONS),
    )
    auditing.add_argument("--actor", metavar="EMAIL", help="only what this user did (any case)")
    auditing.add_argument("--queue", metavar="QUEUE", help="only this queue (id or name)")
    auditing.add_argument(
        "--since", type=moment, metavar="WHEN", help="on or after this date (UTC day) or date-time"
    )
    auditing.add_argument("--limit", type=_limit, default=100, help="at most this many events (default 100)")
    auditing.set_defaults(client_command=show_audit)
