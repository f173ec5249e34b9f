"""The demo's suggestions (B23): the shop's integration runs a "model" over each new message of
`Support triage` and sends its guess of the team with the task, right most of the time and less sure
when it is wrong, and now and then a first note for the team from a second agent (over two lines). The person
trying the demo sees them pre-filled and marked, accepts with `enter` or changes them, and the
Stats tab shows how often each agent was right.

Over HTTP like any integration; on a server without B23 the task is sent without suggestions.
"""

import random
from typing import Any

from queuedesk.api import errors, models
from queuedesk.api.client import QueueDeskClient
from queuedesk.demo.content import TRIAGE, expected, slip

MODEL = "triage-model v3"
WRITER = "note-writer"
RIGHT_CHANCE = 0.85  # how often the model's team is the one the words settle
NOTE_CHANCE = 0.3
NOTES = {  # a first note for the team the model chose
    "billing": "Looks like a payment problem.\nCheck the last two charges first.",
    "tech": "Something does not work for them.\nAsk for the device and version.",
    "sales": "A possible order.\nReply within the day.",
    "spam": "Nothing to answer.",
}


def suggestions_for(data: dict[str, Any], rng: random.Random) -> dict[str, dict[str, Any]]:
    """The agents' suggestions for a new triage message: the team (with its score) and, now and
    then, a first note for that team."""
    meant = expected(TRIAGE, data)
    right = rng.random() < RIGHT_CHANCE
    team = meant["team"] if right else slip(TRIAGE, meant, rng)["team"]
    score = round(rng.uniform(0.75, 0.99) if right else rng.uniform(0.35, 0.7), 2)
    found: dict[str, dict[str, Any]] = {"team": {"value": team, "agent": MODEL, "score": score}}
    if rng.random() < NOTE_CHANCE:
        found["note"] = {"value": NOTES[team], "agent": WRITER, "score": None}
    return found


async def create_demo_task(
    client: QueueDeskClient, queue: models.Queue, data: dict[str, Any], rng: random.Random
) -> models.Task:
    """A new task of the integration: a triage message with its agents' suggestions where the server
    takes them, any other task as it is."""
    if queue.name == TRIAGE and await client.supports_suggestions():
        try:
            return await client.create_suggested_task(queue.id, data, suggestions_for(data, rng))
        except errors.ValidationError:
            pass  # the queue's blocks were changed by the person trying the demo: sent without them
    return await client.create_task(queue.id, data)
