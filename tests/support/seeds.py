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
