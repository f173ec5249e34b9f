"""`queuedesk serve --seed FILE`: create what a TOML or JSON file declares and does not exist yet.

Organizations are matched by name, users by email within their organization, queues by name within
theirs. Tasks listed under a queue are created only together with that queue, so applying the same
file twice creates nothing the second time.
"""

import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Connection

from queuedesk.api.blocks import validate_blocks, validate_task_data
from queuedesk.api.timestamps import utcnow
from queuedesk.server.rules.gold import MAX_PERCENT as MAX_GOLD_PERCENT
from queuedesk.server.rules.webhook_targets import shape_problem
from queuedesk.server.store import accounts, audit, queues, tasks


class SeedError(ValueError):
    """The seed file is not what it should be; the message says where."""


@dataclass
class SeedReport:
    created: list[str] = field(default_factory=list)
    generated_keys: list[tuple[str, str]] = field(default_factory=list)  # (email, key)


def load_seed(path: Path) -> dict[str, Any]:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SeedError(f"cannot read {path}: {exc.strerror}") from None
    try:
        is_json = path.suffix.lower() == ".json"
        document = json.loads(raw) if is_json else tomllib.loads(raw.decode())
    except (ValueError, UnicodeDecodeError) as exc:
        raise SeedError(f"{path} is not valid {path.suffix.lstrip('.').upper() or 'TOML'}: {exc}") from None
    if not isinstance(document, dict) or not isinstance(document.get("organizations"), list):
        raise SeedError(f"{path} must declare a list of [[organizations]]")
    return document


def _text(item: dict[str, Any], key: str, where: str) -> str:
    value = item.get(key)
    if not isinstance(value, str) or not value.strip():
        raise SeedError(f"{where}: '{key}' must be a non-empty string")
    return value


def apply_seed(conn: Connection, document: dict[str, Any]) -> SeedReport:
    """Runs in one transaction: a seed with a mistake in it creates nothing at all."""
    report = SeedReport()
    now = utcnow()
    for o_index, org in enumerate(document["organizations"]):
        where = f"organizations[{o_index}]"
        org_name = _text(org, "name", where)
        org_id = accounts.find_organization(conn, org_name)
        if org_id is None:
            org_id = accounts.create_organization(conn, org_name, now)
            report.created.append(f"organization {org_name!r}")
        for u_index, user in enumerate(org.get("users", [])):
            _seed_user(conn, org_id, user, f"{where}.users[{u_index}]", report)
        for q_index, queue in enumerate(org.get("queues", [])):
            _seed_queue(conn, org_id, queue, f"{where}.queues[{q_index}]", report)
    return report


def _seed_user(conn: Connection, org_id: int, user: dict[str, Any], where: str, report: SeedReport) -> None:
    now = utcnow()
    email = _text(user, "email", where)
    role = user.get("role", "worker")
    if role not in accounts.ROLES:
        raise SeedError(f"{where}: role must be one of {', '.join(accounts.ROLES)}, not {role!r}")
    user_id = accounts.find_user(conn, org_id, email)
    if user_id is None:
        name = user.get("name") or email
        user_id = accounts.create_user(conn, org_id, email, name, role, now)
        audit.record_host_user(conn, org_id, user_id, email, name, role)
        report.created.append(f"user {email} ({role})")
    key = user.get("api_key")
    if key is not None:
        if not isinstance(key, str) or len(key) < 16:
            raise SeedError(f"{where}: api_key must be a string of at least 16 characters")
        if not accounts.key_exists(conn, key):
            audit.record_host_key(conn, "key.create", accounts.add_key(conn, user_id, key, now))
            report.created.append(f"API key for {email}")
    elif not accounts.user_has_keys(conn, user_id):
        generated = accounts.new_key()
        audit.record_host_key(conn, "key.create", accounts.add_key(conn, user_id, generated, now))
        report.generated_keys.append((email, generated))


def _seed_queue(conn: Connection, org_id: int, queue: dict[str, Any], where: str, report: SeedReport) -> None:
    name = _text(queue, "name", where)
    if queues.find_queue_by_name(conn, org_id, name) is not None:
        return
    blocks = queue.get("blocks", [])
    problems = validate_blocks(blocks, f"{where}.blocks")
    if problems:
        raise SeedError("; ".join(f"{p.field}: {p.message}" for p in problems))
    webhook = queue.get("webhook") or None
    if webhook is not None and (problem := shape_problem(str(webhook))):
        raise SeedError(f"{where}.webhook: {problem}")
    review_percent = queue.get("review_percent", 0)
    if type(review_percent) is not int or not 0 <= review_percent <= 100:
        raise SeedError(f"{where}.review_percent: must be a whole number from 0 to 100")
    gold_percent = queue.get("gold_percent", 0)  # B22's share of claims served from gold tasks
    if type(gold_percent) is not int or not 0 <= gold_percent <= MAX_GOLD_PERCENT:
        raise SeedError(f"{where}.gold_percent: must be a whole number from 0 to {MAX_GOLD_PERCENT}")
    now = utcnow()
    record = queues.create_queue(
        conn,
        org_id,
        name,
        queue.get("description", ""),
        blocks,
        now,
        webhook,
        review_percent,
        gold_percent=gold_percent,
    )
    audit.record_queue_created(conn, None, record)
    report.created.append(f"queue {name!r}")
    items: list[dict[str, Any]] = []
    for t_index, task in enumerate(queue.get("tasks", [])):
        data = task.get("data") if isinstance(task, dict) else None
        problems = validate_task_data(record.blocks, data, field_name=f"{where}.tasks[{t_index}].data")
        if problems or not isinstance(data, dict):  # valid data is an object
            raise SeedError("; ".join(f"{p.field}: {p.message}" for p in problems))
        items.append(data)
    if items:
        ids = tasks.import_tasks(conn, record, items, "manual", now)
        audit.record_import(conn, None, record, "manual", ids)
        report.created.append(f"{len(items)} task(s) in {name!r}")
