"""What the test servers start with: the two organizations, their users' keys, the core blocks."""

from typing import Any

ROLES_SEED: dict[str, Any] = {
    "organizations": [
        {
            "name": "Acme",
            "users": [
                {
                    "email": "ada@acme.test",
                    "name": "Ada",
                    "role": "admin",
                    "api_key": "acme-ada-0123456789abcdef",
                },
                {
                    "email": "sue@acme.test",
                    "name": "Sue",
                    "role": "supervisor",
                    "api_key": "acme-sue-0123456789abcdef",
                },
                {
                    "email": "wes@acme.test",
                    "name": "Wes",
                    "role": "worker",
                    "api_key": "acme-wes-0123456789abcdef",
                },
                {
                    "email": "wyn@acme.test",
                    "name": "Wyn",
                    "role": "worker",
                    "api_key": "acme-wyn-0123456789abcdef",
                },
            ],
            "queues": [
                {
                    "name": "Categorization",
                    "description": "Sort incoming reports",
                    "blocks": [
                        {
                            "id": "paragraph",
                            "name": "Paragraph",
                            "type": "text",
                            "text": {"placeholder": "What?"},
                        },
                        {
                            "id": "category",
                            "name": "Category",
                            "type": "single_selection",
                            "single_selection": {
                                "is_required": True,
                                "options": [{"id": "red", "name": "Red"}, {"id": "blue", "name": "Blue"}],
                            },
                        },
                    ],
                    "tasks": [{"data": {"paragraph": "The printer is on fire"}}],
                }
            ],
        },
        {
            "name": "Globex",
            "users": [
                {
                    "email": "gus@globex.test",
                    "name": "Gus",
                    "role": "admin",
                    "api_key": "globex-gus-0123456789abcdef",
                },
            ],
            "queues": [
                {
                    "name": "Secret",
                    "blocks": [{"id": "note", "name": "Note", "type": "text"}],
                    "tasks": [{"data": {"note": "globex only"}}],
                }
            ],
        },
    ]
}

KEYS = {
    "admin": "acme-ada-0123456789abcdef",
    "supervisor": "acme-sue-0123456789abcdef",
    "worker": "acme-wes-0123456789abcdef",
    "worker2": "acme-wyn-0123456789abcdef",
    "other_admin": "globex-gus-0123456789abcdef",
}

# The standard test queue: one of each core block type.
CORE_BLOCKS: list[dict[str, Any]] = [
    {"id": "paragraph", "name": "Paragraph", "type": "text", "text": {"placeholder": "What is going on?"}},
    {
        "id": "category",
        "name": "Category",
        "type": "single_selection",
        "single_selection": {
            "is_required": True,
            "options": [
                {"id": "red", "name": "Red"},
                {"id": "blue", "name": "Blue"},
                {"id": "green", "name": "Green"},
            ],
        },
    },
    {"id": "photo", "name": "Photo", "type": "image", "image": {"placeholder": "https://example.com/p.png"}},
]

# Organizations the session server holds besides Acme and Globex, one handed to each test that changes
# users, roles or keys (tests.support.organizations): such a test never touches what the others sign
# in with. Each has an admin, a supervisor and a worker with known keys.
SPARE_ORGANIZATIONS = 96  # 82 tests take one or more (when one worker runs all those of a server)
SPARE_ROLES = ("admin", "supervisor", "worker")


def spare_name(number: int) -> str:
    return f"Own {number:02d}"


def spare_key(number: int, role: str) -> str:
    return f"own{number:02d}-{role}-0123456789abcdef"


def spare_email(number: int, role: str) -> str:
    return f"{role}@own{number:02d}.test"


def with_spare_organizations(seed: dict[str, Any], count: int = SPARE_ORGANIZATIONS) -> dict[str, Any]:
    """`seed` and `count` spare organizations after its own (their ids follow the seed's)."""
    spares = [
        {
            "name": spare_name(number),
            "users": [
                {
                    "email": spare_email(number, role),
                    "name": f"{role.title()} {number:02d}",
                    "role": role,
                    "api_key": spare_key(number, role),
                }
                for role in SPARE_ROLES
            ],
        }
        for number in range(1, count + 1)
    ]
    return {**seed, "organizations": [*seed["organizations"], *spares]}
