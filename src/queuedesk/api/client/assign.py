"""Reservations (B25): a task reserved for one person reaches them before other work, and nobody else.

Every call here first checks that the server lists B25 in `GET /me`'s `features`: on an older
server (or the original service) it raises `NoAssignment`, with nothing sent. Creating and
importing reserved tasks are `create_task(..., reserved_for=)` and `import_tasks(..., placed=)`;
the list of tasks reserved for someone is `pending_tasks(..., reserved_for=)`.
"""

from queuedesk.api import models
from queuedesk.api.client.people import PeopleMixin
from queuedesk.api.client.tasks import TasksMixin
from queuedesk.api.client.transport import body_of

# The roles a task may be reserved for (B25: an enabled worker or admin; supervisors do not claim).
RESERVABLE_ROLES = ("worker", "admin")


def reservable(users: list[models.User]) -> list[models.User]:
    """The people a task may be reserved for: enabled workers and admins, workers first, by name."""
    chosen = [u for u in users if not u.disabled and u.role in RESERVABLE_ROLES]
    return sorted(chosen, key=lambda u: (RESERVABLE_ROLES.index(u.role), u.name.casefold(), u.email))


class AssignMixin(TasksMixin, PeopleMixin):
    """B25's `…/assign` and the people it may name."""

    async def supports_assignment(self) -> bool:
        """True when the server reserves tasks for a person (B25 among `/me`'s `features`)."""
        return await self.supports("B25")

    async def assign(self, queue_id: int, task_id: int, to: str | None) -> models.AssignedTask:
        """B25: reserve the task for `to` (the email of an enabled worker or admin; `ValidationError`
        on field `to` otherwise), or lift its reservation (`to=None`). A task already claimed keeps
        its claim until it ends; a completed task is a `Conflict` `already_completed`. (admins and
        supervisors; `NoAssignment` on a server without B25)"""
        what = (
            f"Reserving task {task_id} for {to}"
            if to is not None
            else f"Lifting the reservation of task {task_id}"
        )
        await self._require_feature("B25", what)
        path = f"{await self._ext_queue_path(queue_id, what)}/tasks/{task_id}/assign"
        response = await self._request("POST", path, what, json={"to": to}, idempotent=True)
        return self._parse(models.AssignedTask, body_of(response, what), what)

    async def reservable_people(self) -> list[models.User]:
        """The organization's people a task may be reserved for (B17's list, admins and supervisors;
        `NoAssignment` on a server without B25)."""
        await self._require_feature("B25", "Listing the people a task may be reserved for")
        return reservable(await self.users())
