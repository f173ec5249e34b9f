"""`queuedesk users list|add|set-role|disable|enable` and `queuedesk keys list|create|revoke`: an
admin manages the organization's people over the API (B17). The database-level key commands, for
bootstrapping the first admin, are `queuedesk admin-keys` (commands/service.py)."""

import argparse
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from queuedesk.api import errors
from queuedesk.api.models import ApiKey, User
from queuedesk.api.numbers import plain_int
from queuedesk.api.user_rules import ROLES, email_problem
from queuedesk.commands.common import OK, UsageError, client_from, print_json, print_table

if TYPE_CHECKING:  # the client is imported when a command runs, not on every start
    from queuedesk.api.client import QueueDeskClient

MOVED = (
    "note: 'queuedesk keys ... --db' is now 'queuedesk admin-keys ... --db'; "
    "'queuedesk keys' without --db works over the API"
)


def _when(moment: datetime | None) -> str:
    return "never" if moment is None else moment.strftime("%Y-%m-%d %H:%M")


async def find_user(client: "QueueDeskClient", ref: str) -> User:
    """A user by id or email (any case)."""
    people = await client.users()
    for user in people:
        if user.id == plain_int(ref) or user.email.casefold() == ref.casefold():
            return user
    raise errors.NotFound(f"No user {ref!r} in this organization: see 'queuedesk users list'.")


def _print_user(user: User, done: str, as_json: bool) -> None:
    if as_json:
        print_json(user.model_dump(mode="json"))
    else:
        print(
            f"{done} user {user.id} {user.email} ({user.name}): {user.role}{', disabled' if user.disabled else ''}."
        )


async def list_users(args: argparse.Namespace) -> int:
    async with client_from(args) as client:
        people = await client.users()
    if args.json:
        print_json([user.model_dump(mode="json") for user in people])
        return OK
    print_table(
        ["id", "email", "name", "role", "status", "last seen"],
        [
            (u.id, u.email, u.name, u.role, "disabled" if u.disabled else "active", _when(u.last_seen_at))
            for u in people
        ],
    )
    return OK


async def add_user(args: argparse.Namespace) -> int:
    if (problem := email_problem(args.email)) is not None:
        raise UsageError(f"nothing was sent: {problem}")
    name = args.name or args.email.split("@")[0]
    async with client_from(args) as client:
        user = await client.create_user(args.email, name, args.role)
    _print_user(user, "Added", args.json)
    return OK


async def set_role(args: argparse.Namespace) -> int:
    async with client_from(args) as client:
        user = await client.update_user((await find_user(client, args.user)).id, role=args.role)
    _print_user(user, "Changed", args.json)
    return OK


async def disable(args: argparse.Namespace) -> int:
    async with client_from(args) as client:
        user = await client.update_user((await find_user(client, args.user)).id, disabled=True)
    _print_user(user, "Disabled (their keys no longer work)", args.json)
    return OK


async def enable(args: argparse.Namespace) -> int:
    async with client_from(args) as client:
        user = await client.update_user((await find_user(client, args.user)).id, disabled=False)
    _print_user(user, "Enabled", args.json)
    return OK


async def list_keys(args: argparse.Namespace) -> int:
    rows: list[tuple[User, ApiKey]] = []
    async with client_from(args) as client:
        people = [await find_user(client, args.user)] if args.user else await client.users()
        for user in people:
            rows += [(user, key) for key in await client.user_keys(user.id)]
    if args.json:
        print_json([{"user_id": u.id, "email": u.email, **k.model_dump(mode="json")} for u, k in rows])
        return OK
    print_table(
        ["id", "user", "prefix", "created", "last used"],
        [(k.id, u.email, k.prefix + "…", _when(k.created_at), _when(k.last_used_at)) for u, k in rows],
    )
    return OK


async def create_key(args: argparse.Namespace) -> int:
    async with client_from(args) as client:
        user = await find_user(client, args.user)
        issued = await client.issue_key(user.id)
    if args.json:
        print_json({"user_id": user.id, "email": user.email, **issued.model_dump(mode="json")})
    else:
        print(issued.key)  # alone on stdout, for scripts; shown this once
    return OK


async def revoke_key(args: argparse.Namespace) -> int:
    async with client_from(args) as client:
        user = await find_user(client, args.user)
        await client.revoke_key(user.id, args.key_id)
    if args.json:
        print_json({"user_id": user.id, "key_id": args.key_id, "revoked": True})
    else:
        print(f"Revoked key {args.key_id} of {user.email}; it no longer works.")
    return OK


def database_keys_usage(argv: Sequence[str]) -> bool:
    """`queuedesk keys ... --db URL`: the old database-level command line, now `admin-keys`, still
    understood (the API's `keys` takes no --db)."""
    return bool(argv) and argv[0] == "keys" and any(a == "--db" or a.startswith("--db=") for a in argv)


def add_parsers(
    commands: "argparse._SubParsersAction[argparse.ArgumentParser]", connection: argparse.ArgumentParser
) -> None:
    users = commands.add_parser("users", help="the organization's users (admins)")
    actions = users.add_subparsers(dest="users_command", metavar="ACTION", required=True)
    actions.add_parser("list", parents=[connection], help="list users with role and last seen").set_defaults(
        client_command=list_users
    )
    adding = actions.add_parser("add", parents=[connection], help="add a user")
    adding.add_argument("email")
    adding.add_argument("--name", help="display name (default: the email's local part)")
    adding.add_argument("--role", choices=ROLES, default="worker", help="default: worker")
    adding.set_defaults(client_command=add_user)
    role = actions.add_parser("set-role", parents=[connection], help="change a user's role")
    role.add_argument("user", help="user id or email")
    role.add_argument("role", choices=ROLES)
    role.set_defaults(client_command=set_role)
    for name, run, what in (
        ("disable", disable, "disable a user: their keys stop working at once"),
        ("enable", enable, "enable a disabled user again"),
    ):
        action = actions.add_parser(name, parents=[connection], help=what)
        action.add_argument("user", help="user id or email")
        action.set_defaults(client_command=run)

    keys = commands.add_parser(
        "keys",
        help="users' API keys, over the API (admins)",
        epilog="To bootstrap the first admin's key in the database itself: queuedesk admin-keys --help",
    )
    key_actions = keys.add_subparsers(dest="keys_command", metavar="ACTION", required=True)
    listing = key_actions.add_parser("list", parents=[connection], help="list keys in force (prefixes only)")
    listing.add_argument("user", nargs="?", help="user id or email (default: every user)")
    listing.set_defaults(client_command=list_keys)
    creating = key_actions.add_parser("create", parents=[connection], help="issue a key and print it once")
    creating.add_argument("user", help="user id or email")
    creating.set_defaults(client_command=create_key)
    revoking = key_actions.add_parser("revoke", parents=[connection], help="revoke a key at once")
    revoking.add_argument("user", help="user id or email")
    revoking.add_argument("key_id", type=int, help="the key's id, from 'queuedesk keys list'")
    revoking.set_defaults(client_command=revoke_key)
