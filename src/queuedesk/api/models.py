"""Pydantic models of every resource in the QueueDesk HTTP contract.

Response models keep unknown fields (`extra="allow"`) so that a client talking to a newer server,
or to the original service, never fails on a field it does not know. Request models forbid them,
so that a typo in a request is an error rather than silently ignored.
"""

from datetime import datetime
from typing import Annotated, Any, ClassVar, Literal

from pydantic import VERSION as PYDANTIC_VERSION
from pydantic import BaseModel, ConfigDict, Field, PlainSerializer, PrivateAttr, WithJsonSchema

from queuedesk.api.timestamps import format_timestamp

# Read with 0, 3 or 6 fractional digits and `Z` or an offset; written as the contract's form.
Timestamp = Annotated[
    datetime,
    PlainSerializer(format_timestamp, return_type=str, when_used="json"),
    WithJsonSchema({"type": "string", "format": "date-time"}),
]


# A model's validator is built when first used, not at import: a command or the app's start uses a
# few of these models, and building all of them cost ≈20-30 ms of every start. Only from pydantic
# 2.14 on, where that first build holds a lock: in 2.11-2.13 a thread validating while another
# built the model could get the parent class's validator (the server parses blocks on threads).
DEFER_BUILD = tuple(int(part) for part in PYDANTIC_VERSION.split(".")[:2]) >= (2, 14)


class Resource(BaseModel):
    """Something the server answers with."""

    model_config = ConfigDict(
        extra="allow", json_schema_serialization_defaults_required=True, defer_build=DEFER_BUILD
    )
    # Keys a newer section of the contract added, that the client reads as their defaults when a
    # server leaves them out, and that `as_sent` leaves out again.
    SENT_ONLY: ClassVar[tuple[str, ...]] = ()

    def as_sent(self) -> dict[str, Any]:
        """The JSON form, without the `SENT_ONLY` keys the server did not send: what it answered."""
        dumped = self.model_dump(mode="json")
        for key in self.SENT_ONLY:
            if key not in self.model_fields_set:
                dumped.pop(key, None)
        return dumped


def leaves_out(*keys: str) -> ConfigDict:
    """A `Resource`'s configuration whose answer may lack `keys` (a server older than what they say
    leaves them out; the client reads them as their defaults): not required in the document."""

    def optional(schema: dict[str, Any]) -> None:
        required = [name for name in schema.get("required", []) if name not in keys]
        if required:
            schema["required"] = required
        else:
            schema.pop("required", None)

    return ConfigDict(**Resource.model_config, json_schema_extra=optional)


class Request(BaseModel):
    """Something a client sends."""

    model_config = ConfigDict(extra="forbid", defer_build=DEFER_BUILD)


class Option(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=DEFER_BUILD)

    id: str = Field(min_length=1, max_length=64)
    name: str


class Block(BaseModel):
    """A block of a queue: `{"id", "name", "type", "<type>": {settings}}`."""

    model_config = ConfigDict(extra="allow", defer_build=DEFER_BUILD)

    id: str
    name: str
    type: str
    _number_id: bool = PrivateAttr(default=False)

    @property
    def number_id(self) -> bool:
        """True when the server named the block by a JSON number (the original keeps `{"id": 7}`)."""
        return self._number_id

    @property
    def settings(self) -> dict[str, Any]:
        extra = self.model_extra or {}
        value = extra.get(self.type)
        return value if isinstance(value, dict) else {}

    @property
    def options(self) -> list[Option]:
        return [Option.model_validate(o) for o in self.settings.get("options", [])]

    @property
    def is_required(self) -> bool:
        return bool(self.settings.get("is_required", False))

    @property
    def read_only(self) -> bool:
        return bool(self.settings.get("read_only", False))


class Assignment(Resource):
    assigned_to: str | None = None
    assigned_to_name: str | None = None
    assigned_at: Timestamp | None = None
    lease_expires_at: Timestamp | None = None


class Task(Resource):
    id: int
    status: str
    created_at: Timestamp
    completed_at: Timestamp | None = None
    completed_by: str | None = None
    queue: str
    queue_id: int
    data: dict[str, Any]
    source: str


class Review(Resource):
    """A task's review (B19): drawn (`pending`), claimed (`in_review`), or its verdict."""

    state: str  # pending | in_review | accepted | corrected | redone | decided (B21)
    reviewer: str | None = None
    reviewed_at: Timestamp | None = None
    note: str | None = None
    original: dict[str, Any] | None = None  # the worker's values, when corrected
    redo_task_id: int | None = None
    lease_expires_at: Timestamp | None = None


# B21: where a task of a consensus queue stands.
CONSENSUS_STATES = ("collecting", "settled", "disputed", "decided")


class ConsensusAnswer(Resource):
    """One worker's answer to a task of a consensus queue (B21), as admins and supervisors see it."""

    worker: str  # email
    name: str | None = None
    data: dict[str, Any]
    answered_at: Timestamp
    seconds: float | None = None  # from the claim to the answer


class Consensus(Resource):
    """B21: a task's answers, how far they agree per compared block, and how it ended. Sent to admins
    and supervisors only (a worker's answers carry `consensus: null`: nothing reveals another's answer)."""

    state: str  # collecting | settled | disputed | decided
    answers: list[ConsensusAnswer] = []
    agreement: dict[str, float] = {}  # block id: share of the answers holding its most common value
    decided_by: str | None = None  # the reviewer who decided a disputed task


class AssignedTask(Task):
    """A task as Part B answers it: with who holds it and until when, and the caller's own draft
    (B6: the values they kept when they last gave it back; None when they kept none, or from a
    server that stores drafts in the task's data)."""

    model_config = leaves_out("consensus", "gold", "retired")

    assignment: Assignment
    draft: dict[str, Any] | None = None
    review: Review | None = None  # B19; None when it has none, or from a server without review
    # B21; None in a queue without consensus, to a worker, or from a server without consensus.
    consensus: Consensus | None = None
    # B22, to admins and supervisors: a gold task's expected values ({block id: value}) and whether
    # it was retired; None and False for any other task, and always to a worker (who cannot tell).
    gold: dict[str, Any] | None = None
    retired: bool = False


class Queue(Resource):
    model_config = leaves_out("gold_percent")
    SENT_ONLY = ("gold_percent",)

    id: int
    name: str
    created_at: Timestamp
    n_tasks: int
    # A plain default (pydantic copies it for each model): `default_factory=list` made the first
    # validation ask `inspect.signature(list)`, which imports `tokenize` (≈5 ms of the app's start).
    active_users: list[str] = []
    # B19: the share of completions drawn for review; a server without review leaves it out.
    review_percent: int = 0
    # B22: the share (0-50) of a worker's claims served from the gold tasks; 0 from a server without
    # gold tasks, which leaves it out.
    gold_percent: int = 0


class ConsensusSettings(Resource):
    """B21: a queue's consensus. Each task is answered blind by `answers` workers, more (up to
    `max_answers`) while they disagree; a task settles when, on every compared block (`blocks`),
    one value is held by a share >= `agreement` of the answers and by more than any other value."""

    answers: int
    max_answers: int
    agreement: float
    blocks: list[str] = []


class QueueDetail(Queue):
    model_config = leaves_out("consensus", "gold_percent")

    description: str = ""
    data: list[Block] = []
    # B21: None when one answer completes a task (and from a server without consensus).
    consensus: ConsensusSettings | None = None


class Webhook(Resource):
    target: str


class WebhookSecret(Resource):
    secret: str


class Me(Resource):
    email: str
    name: str
    role: str
    organization_id: int
    organization: str
    model_config = leaves_out("features")

    server: str
    version: str
    # The Part B sections this server serves from B19 on, e.g. ["B19", "B20", "B21"]; empty from a
    # server older than `features`.
    features: list[str] = []


class TaskPage(Resource):
    next: str | None
    previous: str | None
    count: int
    tasks: list[Task]


class PendingPage(Resource):
    next: str | None
    previous: str | None
    count: int
    tasks: list[AssignedTask]


class ReviewPage(Resource):
    """B19: reviewed tasks, newest verdict first."""

    next: str | None
    previous: str | None
    count: int
    tasks: list[AssignedTask]


class Delivery(Resource):
    id: int
    event_id: str
    type: str = "task.completed"  # what the event says: task.completed, task.corrected, task.redo
    task_id: int
    target: str
    status: str
    attempts: int
    last_status_code: int | None = None
    last_error: str | None = None
    next_attempt_at: Timestamp | None = None
    created_at: Timestamp
    delivered_at: Timestamp | None = None


class DeliveryAttempt(Resource):
    attempted_at: Timestamp
    status_code: int | None = None
    error: str | None = None
    duration_ms: int


class DeliveryDetail(Delivery):
    """One delivery with every attempt it took (B10, one item)."""

    attempt_log: list[DeliveryAttempt]


class DeliveryPage(Resource):
    next: str | None
    previous: str | None
    count: int
    deliveries: list[Delivery]


# The actions the audit log records (B20), in the contract's order.
AUDIT_ACTIONS = (
    "queue.create",
    "queue.update",
    "queue.flush",
    "webhook.set",
    "webhook.remove",
    "webhook.rotate",
    "delivery.redeliver",
    "task.release",
    "import.commit",
    "user.create",
    "user.update",
    "key.create",
    "key.revoke",
    "review.verdict",
    "task.update",  # B24 (B22: a gold task's expected values, retiring it)
    "audit.prune",
)


class AuditActor(Resource):
    email: str
    name: str


class AuditEvent(Resource):
    """One entry of the audit log (B20): who did what, when, to which ids. `actor` is None for a
    command run on the server's host."""

    id: int
    at: Timestamp
    actor: AuditActor | None = None
    action: str
    queue_id: int | None = None
    subject: dict[str, Any]
    detail: dict[str, Any]


class AuditPage(Resource):
    next: str | None
    previous: str | None
    count: int
    events: list[AuditEvent]


class WorkerStats(Resource):
    """One worker's completions in a stats period (B15), and the verdicts on their work given in
    it (B19; 0 from a server without review)."""

    model_config = leaves_out("answers", "agreed", "gold_answered", "gold_correct")

    email: str
    name: str | None = None
    completed: int
    median_seconds: float | None = None
    last_completed_at: Timestamp | None = None
    reviewed: int = 0
    accepted: int = 0
    corrected: int = 0
    redone: int = 0
    # B21, in a consensus queue (0 elsewhere, and from a server without consensus): the worker's
    # answers, and those that held every final value of a settled or decided task.
    answers: int = 0
    agreed: int = 0
    # B22, over the period (0 from a server without gold tasks): the gold tasks the worker answered,
    # and those whose every expected value they matched.
    gold_answered: int = 0
    gold_correct: int = 0


class GoldAnswer(Resource):
    """B22: one worker's answer to a gold task, scored against the expected values in force when it
    was given (a later change of them does not rescore it). `wrong`: the block ids it missed."""

    task_id: int
    worker: str  # email
    answered_at: Timestamp
    data: dict[str, Any]
    expected: dict[str, Any]
    correct: bool
    wrong: list[str] = []


class GoldAnswerPage(Resource):
    """B22's `GET …/gold/answers`: newest first, paged as A2."""

    next: str | None
    previous: str | None
    count: int
    answers: list[GoldAnswer]


class QueueStats(Resource):
    """B15: completions per bucket from `since` to now (oldest first), the queue now, and per worker."""

    model_config = leaves_out("disputed")

    since: Timestamp
    bucket_minutes: int
    pending: int
    in_progress: int
    completed: list[int]
    by_worker: list[WorkerStats]
    reviews_pending: int | None = None  # B19: None from a server without review
    disputed: int | None = None  # B21: tasks disputed now; None from a server without consensus


class WebhookTestResult(Resource):
    """B16: what the target answered to a signed `ping` (`status_code` is null when it never answered)."""

    status_code: int | None = None
    error: str | None = None
    duration_ms: int


class ImportResult(Resource):
    created: int
    ids: list[int]


class ImportSession(Resource):
    """An import in several requests (a QueueDesk extension): rows staged, then committed at once."""

    id: int
    key: str
    status: str  # staged | committed
    source: str
    total: int  # the rows the import will have
    staged: int  # rows staged so far
    next_offset: int  # the first row not staged yet (`total` when all are)
    created_at: Timestamp
    expires_at: Timestamp
    committed_at: Timestamp | None = None
    created: int | None = None  # once committed: the tasks made
    ids: list[int] | None = None  # once committed: their ids, in row order


class Health(Resource):
    status: str


class ErrorItem(Resource):
    model_config = ConfigDict(extra="allow", json_schema_serialization_defaults_required=False)

    code: str | None = None
    field: str | None = None
    message: str


class ErrorEnvelope(Resource):
    model_config = ConfigDict(extra="allow", json_schema_serialization_defaults_required=False)

    status_code: int
    errors: list[ErrorItem]
    truncated: int | None = Field(default=None, description="errors found but left out of `errors`")


class TaskData(Request):
    """Body of create (A1), complete (B7), and release (B6, optional draft)."""

    data: dict[str, Any]


class VerdictRequest(Request):
    """B19: a review's verdict; `data` (the values to change) with `correct`, the values that
    complete the task with `decide` (B21, a disputed task only)."""

    verdict: Literal["accept", "correct", "redo", "decide"]
    data: dict[str, Any] | None = None
    note: str | None = Field(default=None, max_length=2000)


class ReleaseRequest(Request):
    data: dict[str, Any] | None = None


class RedeliverRequest(Request):
    """B11's optional body: `"current"` sends the event to the queue's current target instead of its own."""

    target: Literal["current"] | None = None


class ImportRequest(Request):
    source: str
    tasks: list[TaskData] = Field(max_length=10_000)


class ImportSessionRequest(Request):
    key: str = Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_.:-]+$")
    source: str
    total: int = Field(ge=1, le=1_000_000)


class ImportChunk(Request):
    offset: int = Field(ge=0)
    tasks: list[TaskData] = Field(min_length=1, max_length=10_000)


class WebhookTarget(Request):
    target: str | None


class ConsensusRequest(Request):
    """B21's settings as sent (B12, B13): `max_answers` defaults to `answers`, `agreement` to 0.5,
    `blocks` to every compared-type block that is not read-only."""

    answers: int = Field(ge=2, le=10)
    max_answers: int | None = Field(default=None, ge=2, le=10)
    agreement: float | None = Field(default=None, ge=0.5, le=1.0)
    blocks: list[str] | None = Field(default=None, min_length=1)


class QueueCreate(Request):
    name: str = Field(min_length=1, max_length=200)
    description: str = Field(default="", max_length=10_000)
    data: list[Block]
    review_percent: int = Field(default=0, ge=0, le=100)
    consensus: ConsensusRequest | None = None  # B21: null, one answer completes a task
    gold_percent: int = Field(default=0, ge=0, le=50)  # B22: the share of claims served gold


class QueueUpdate(Request):
    name: str | None = Field(default=None, min_length=1, max_length=200)
    description: str | None = Field(default=None, max_length=10_000)
    data: list[Block] | None = None
    review_percent: int | None = Field(default=None, ge=0, le=100)
    consensus: ConsensusRequest | None = None  # B21: null turns consensus off (a key left out: unchanged)
    gold_percent: int | None = Field(default=None, ge=0, le=50)  # B22


class TaskUpdate(Request):
    """B24's PATCH of a task not completed, as far as B22 takes it: new expected values of a gold
    task (earlier answers keep their score), or `retired` (never served again)."""

    gold: dict[str, Any] | None = None
    retired: bool | None = None


class User(Resource):
    """B17: a user of the caller's organization."""

    id: int
    email: str
    name: str
    role: str
    disabled: bool = False
    created_at: Timestamp
    last_seen_at: Timestamp | None = None


class ApiKey(Resource):
    """B17: one of a user's keys in force; only its first characters are ever shown again."""

    id: int
    prefix: str
    created_at: Timestamp
    last_used_at: Timestamp | None = None


class IssuedKey(Resource):
    """B17: a new key, shown this once."""

    id: int
    prefix: str
    key: str


class UserCreate(Request):
    email: str = Field(max_length=320)
    name: str = Field(min_length=1, max_length=200)
    role: Literal["admin", "supervisor", "worker"]


class UserUpdate(Request):
    name: str | None = Field(default=None, min_length=1, max_length=200)
    role: Literal["admin", "supervisor", "worker"] | None = None
    disabled: bool | None = None
