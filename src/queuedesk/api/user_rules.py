"""The rules of a user's fields (B17): the server checks them, and the command line and the terminal
app check their input with the same ones before sending."""

from collections.abc import Mapping
from typing import Any

from queuedesk.api.blocks import EMAIL, Problem, control_problem

ROLES = ("admin", "supervisor", "worker")
MAX_EMAIL = 320
MAX_NAME = 200


def email_problem(value: Any) -> str | None:
    if not isinstance(value, str) or len(value) > MAX_EMAIL or not EMAIL.fullmatch(value):
        return f"{value!r} is not an email address (like ada@example.com)"
    return None


def name_problem(value: Any) -> str | None:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_NAME:
        return f"must be a non-empty string of at most {MAX_NAME} characters"
    return control_problem(value)


def role_problem(value: Any) -> str | None:
    if value not in ROLES:
        return f"{value!r} is not a role: use one of {', '.join(ROLES)}"
    return None


CHECKS = {"email": email_problem, "name": name_problem, "role": role_problem}


def user_problems(fields: Mapping[str, Any]) -> list[Problem]:
    """What is wrong with the given fields (email, name, role, disabled); those absent are not checked."""
    problems = []
    for name, check in CHECKS.items():
        if name in fields and (message := check(fields[name])) is not None:
            problems.append(Problem("invalid_value", name, message))
    if "disabled" in fields and not isinstance(fields["disabled"], bool):
        problems.append(Problem("invalid_value", "disabled", "must be true or false"))
    return problems
