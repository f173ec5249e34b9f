"""Errors the service answers with: one exception, rendered as the contract's envelope."""

from collections.abc import Iterable, Mapping

from queuedesk.api.blocks import Problem


class ServiceError(Exception):
    """An answer other than success: status, one or more problems, and any extra headers."""

    def __init__(
        self,
        status: int,
        problems: Iterable[Problem],
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.status = status
        self.problems = list(problems)
        self.headers = dict(headers or {})
        super().__init__("; ".join(p.message for p in self.problems))

    def envelope(self) -> dict[str, object]:
        errors: list[dict[str, str]] = []
        for problem in self.problems:
            item = {"code": problem.code}
            if problem.field is not None:
                item["field"] = problem.field
            item["message"] = problem.message
            errors.append(item)
        return {"status_code": self.status, "errors": errors}


def error(status: int, code: str, message: str, field: str | None = None) -> ServiceError:
    return ServiceError(status, [Problem(code, field, message)])


def invalid(problems: Iterable[Problem]) -> ServiceError:
    return ServiceError(400, problems)


def not_found(what: str = "Not found.") -> ServiceError:
    return error(404, "not_found", what)


def forbidden(message: str) -> ServiceError:
    return error(403, "forbidden", message)


def conflict(code: str, message: str) -> ServiceError:
    return error(409, code, message)


def not_authenticated(code: str, message: str) -> ServiceError:
    return ServiceError(401, [Problem(code, None, message)], {"WWW-Authenticate": "Token"})
