"""The lifecycle fuzzer: the app, as each role, against a real server behind a proxy that delays
every answer at random, opens screens, tabs and dialogs and leaves them at random moments; it fails
on any traceback and on a frozen app (one that no longer answers a key, `ctrl+q` included).

What it types comes from the app itself: at every step it picks among the keys the top screen binds
now (`Screen.active_bindings`: the screen's, its focused widget's and the app's), plus a few keys
every screen reads (escape, enter, tab, arrows); the tabs are the screen's own `tab(...)` bindings;
and now and then one of the commands the app offers on that screen (`App.get_system_commands`,
"Messages" among them), typed into the command palette by its title, as a person would.
Beside keys, at random moments: the server goes away and comes back (the proxy cuts and refuses
every connection, then takes them again), the user's role is changed (and later changed back), the
user's key is revoked (a new key is issued and the app started again with it), and `ctrl+q`.

Everything random comes from one seed (`Fuzz.seed`), printed by the callers and replayable; the
proxy's delays too. Where it is, every step, is counted per screen, tab and dialog
(`Report.transitions`): the run's figures.

The data it runs on (`prepare`): an organization of the seed's, the app's user of each role made
for the run (so that its role and keys can change), a queue with every core block, pending and
completed tasks, every completion drawn for review, a webhook whose target refuses (deliveries
logged as failed). Before an episode, now and then, the app's user's journal gets work of its own
(`seed_journal`): a submission the server refused (the refused-work list) and one not sent yet (the
app sends it as it starts, and is refused; `ctrl+q` while one waits asks what to do with it).
"""

import asyncio
import copy
import random
import threading
import time
import traceback
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from textual.keys import _character_to_key
from textual.screen import Screen
from textual.widgets import TabbedContent

from queuedesk.api.config import AppSettings
from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import SystemClock
from queuedesk.tui.settings import Target
from queuedesk.tui.work.journal import Entry, Journal, journal_path
from tests.support.delay_proxy import DelayProxy
from tests.support.processes import ServerProcess, free_port
from tests.support.seeds import CORE_BLOCKS, KEYS, ROLES_SEED

ROLES = ("worker", "supervisor", "admin")
TASKS = 160
COMPLETED = 70
EVERY_SCREEN_KEYS = ("escape", "escape", "enter", "tab", "down", "up")
# Dialogs whose enter would change what the run stands on (the app's own role, key or user):
# left only by escape, tab or ctrl+q. They are still opened and left at random moments.
LEAVE_ONLY = frozenset({"ConfirmScreen", "RoleScreen"})
# Keys that would change the server's data for good, or leave the terminal: never typed.
NEVER = frozenset({"ctrl+q", "ctrl+c", "ctrl+z", "ctrl+p"})  # ctrl+q is an event of its own
# Actions that leave the terminal (a browser or viewer started): never run.
NEVER_ACTIONS = frozenset({"open_image", "open_externally", "suspend_process", "command_palette"})
# Commands of the palette that leave the terminal or end the app (ctrl+q is an event of its own).
NEVER_COMMANDS = ("quit", "suspend")
STEP_SECONDS = 20.0  # a key not handled within this: the app must still quit on ctrl+q
QUIT_SECONDS = 30.0  # ctrl+q not answered within this: a frozen app


class Frozen(AssertionError):
    pass


class SlowStep(Exception):
    """A key the app took longer than STEP_SECONDS over, after which it did quit on ctrl+q."""


@dataclass
class Report:
    seed: int
    transitions: Counter[str] = field(default_factory=Counter)
    events: Counter[str] = field(default_factory=Counter)
    steps: int = 0
    tracebacks: list[str] = field(default_factory=list)
    frozen: list[str] = field(default_factory=list)

    def summary(self) -> str:
        places = ", ".join(f"{name} {count}" for name, count in sorted(self.transitions.items()))
        events = ", ".join(f"{name} {count}" for name, count in sorted(self.events.items()))
        return (
            f"seed {self.seed}: {self.steps} steps, {sum(self.transitions.values())} transitions, "
            f"{len(self.tracebacks)} tracebacks, {len(self.frozen)} frozen\n"
            f"  per screen/tab/dialog: {places}\n  events: {events}"
        )


@dataclass
class Environment:
    """The run's server, the proxy in front of it, and the admin's client beside the app."""

    server: ServerProcess
    proxy: DelayProxy
    admin: httpx.Client
    org: int
    users: dict[str, int]  # role → the id of the app's user of that role
    keys: dict[str, str]  # role → that user's key now
    roles_now: dict[str, str]  # role → the role that user has now
    queue: dict[str, Any] = field(default_factory=dict)  # the run's queue
    task_ids: list[int] = field(default_factory=list)  # its tasks, as made

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.proxy.port}"


def delays(seed: int, most: float) -> Callable[[], float]:
    """A delay of 0..`most` seconds per answer, from a generator of its own (the proxy's threads)."""
    rng, lock = random.Random(seed ^ 0x5EED), threading.Lock()

    def next_delay() -> float:
        with lock:
            return rng.uniform(0.0, most)

    return next_delay


def start_environment(
    db_dir: Path, seed: int, most_delay: float, *, tasks: int = 0, completed: int = 0
) -> Environment:
    """The run's server, proxy and data; `tasks` and `completed` (0: `TASKS`, `COMPLETED`) fewer
    for a short run."""
    seed_data = copy.deepcopy(ROLES_SEED)
    seed_data["organizations"][0]["queues"] = []  # the run's queue alone: enter on the list opens it
    server = ServerProcess(db_dir / "fuzz.db", ["--allow-private-webhooks"], seed=seed_data).start()
    proxy = DelayProxy(server.port, delays(seed, most_delay)).start()
    admin = server.client("admin")
    org = admin.get("/me").json()["organization_id"]
    env = Environment(server, proxy, admin, org, {}, {}, {})
    prepare(env, tasks or TASKS, completed or COMPLETED)
    return env


def prepare(env: Environment, tasks: int, completed: int) -> None:
    admin, org = env.admin, env.org
    for role in ROLES:
        made = admin.post(
            f"/orgs/{org}/users",
            json={"email": f"fuzz-{role}@acme.test", "name": f"Fuzz {role}", "role": role},
        )
        assert made.status_code == 200, made.text
        env.users[role] = made.json()["id"]
        env.roles_now[role] = role
        env.keys[role] = issue_key(env, role)
    queue = admin.post(
        f"/orgs/{org}/queues", json={"name": "Fuzzed", "data": CORE_BLOCKS, "review_percent": 100}
    ).json()
    path = f"/orgs/{org}/queues/{queue['id']}"
    target = f"http://127.0.0.1:{free_port()}/hook"  # nobody listens: every delivery fails, logged
    assert admin.put(f"{path}/webhook", json={"target": target}).status_code == 200
    env.queue = queue
    for i in range(tasks):
        made = admin.post(
            f"{path}/tasks/create",
            json={"data": {"paragraph": f"report {i}", "photo": "http://127.0.0.1:9/p.png"}},
        )
        env.task_ids.append(made.json()["id"])
    # Completed by another worker: every one drawn for review (the review loop's tasks, its notes),
    # each a webhook delivery logged as failed (the delivery and redeliver dialogs).
    with httpx.Client(base_url=env.server.url, headers={"Authorization": f"Bearer {KEYS['worker']}"}) as wes:
        for _ in range(completed):
            task = wes.post(f"{path}/tasks/next")
            if task.status_code != 200:
                break
            wes.post(f"{path}/tasks/{task.json()['id']}/complete", json={"data": {"category": "red"}})


def seed_journal(env: Environment, role: str, rng: random.Random) -> None:
    """Work of the app's user's own in its journal before the app starts: a submission the server
    refused (listed by `R` on the queue list), and now and then one not sent yet (the app sends it
    as it starts: a task it holds no claim on, refused; `ctrl+q` while it waits asks about it)."""
    journal = Journal(journal_path(env.url, f"fuzz-{role}@acme.test"), persist=True)
    queue = env.queue
    for state in ("failed", "unsent") if rng.random() < 0.5 else ("failed",):
        journal.put(
            Entry(
                id=uuid.uuid4().hex,
                queue_id=queue["id"],
                queue_name=queue["name"],
                task_id=rng.choice(env.task_ids),
                data={"paragraph": f"typed for the fuzz ({state})", "category": "red"},
                state=state,  # type: ignore[arg-type]
                error="Refused by the server (seeded by the fuzzer)" if state == "failed" else None,
            )
        )


def unsent_work(env: Environment, app: QueueDeskApp, rng: random.Random) -> bool:
    """A submission of the app's user's own that did not reach the server (as after an outage), in
    the app's journal now: `ctrl+q` then asks what to do with it. False where the app sends no work
    (no outbox: a basic server, or not signed in yet)."""
    outbox = app.outbox
    if outbox is None:
        return False
    queue = env.queue
    entry = Entry(
        id=uuid.uuid4().hex,
        queue_id=queue["id"],
        queue_name=queue["name"],
        task_id=rng.choice(env.task_ids),
        data={"paragraph": "typed before an outage", "category": "blue"},
        state="unsent",
    )
    outbox.journal.put(entry)
    return True


def issue_key(env: Environment, role: str) -> str:
    made = env.admin.post(f"/orgs/{env.org}/users/{env.users[role]}/keys")
    assert made.status_code == 200, made.text
    return str(made.json()["key"])


def revoke_keys(env: Environment, role: str) -> None:
    path = f"/orgs/{env.org}/users/{env.users[role]}/keys"
    for key in env.admin.get(path).json():
        env.admin.delete(f"{path}/{key['id']}")


def change_role(env: Environment, role: str, rng: random.Random) -> None:
    """The app's user gets another role, or its own back."""
    now = env.roles_now[role]
    new = role if now != role else rng.choice([r for r in ROLES if r != role])
    answer = env.admin.patch(f"/orgs/{env.org}/users/{env.users[role]}", json={"role": new})
    if answer.status_code == 200:
        env.roles_now[role] = new


def place(app: QueueDeskApp) -> str:
    """Where the app is: the top screen's class, with its active tab where it has tabs."""
    screen = app.screen
    name = type(screen).__name__
    if name == "Screen":
        return "(starting)"  # Textual's default screen, before the app's first one
    tabs = list(screen.query(TabbedContent).results(TabbedContent))
    if tabs and tabs[0].active:
        return f"{name}:{tabs[0].active}"
    return name


def keys_offered(screen: Screen[Any]) -> tuple[list[str], list[str]]:
    """The keys the top screen binds now, one per binding: the app's own (bound by its screens,
    dialogs, panes and the app: they open, switch and leave), then the widgets' (a table's cursor
    keys, a field's), which the walk types less often."""
    own: list[str] = []
    widgets: list[str] = []
    for key, active in screen.active_bindings.items():
        if not active.enabled or key in NEVER or active.binding.action in NEVER_ACTIONS:
            continue
        ours = type(active.node).__module__.startswith("queuedesk.") or active.node is screen.app
        (own if ours else widgets).append(key.split(",")[0])
    return own, widgets


class Fuzz:
    def __init__(self, env: Environment, seed: int, *, settings: dict[str, Any] | None = None) -> None:
        self.env, self.seed = env, seed
        self.rng = random.Random(seed)
        self.report = Report(seed)
        self.settings = settings or {}
        # (place, key) → where the key led, each time: a key that once did nothing (the list still
        # loading) may open a screen the next time.
        self.leads: dict[tuple[str, str], Counter[str]] = {}
        self.last: tuple[str, str] | None = None  # the last key typed, and where

    def app_for(self, role: str) -> QueueDeskApp:
        target = Target(self.env.url, self.env.keys[role], None, "fuzz")
        return QueueDeskApp(target, settings=AppSettings(**self.settings), clock=SystemClock(utc=True))

    async def run(self, steps: int, *, deadline: float | None = None) -> Report:
        """`steps` steps or until `deadline` (monotonic), over the roles in turn, an app per episode."""
        done = 0
        episode = 0
        while done < steps and (deadline is None or time.monotonic() < deadline):
            role = ROLES[episode % len(ROLES)]
            episode += 1
            done += await self.episode(role, min(steps - done, self.rng.randint(40, 120)), deadline)
        return self.report

    async def episode(self, role: str, steps: int, deadline: float | None) -> int:
        if self.rng.random() < 0.4:
            seed_journal(self.env, role, self.rng)
        app = self.app_for(role)
        taken = 0
        try:
            taken = await self._episode(app, role, steps, deadline)
        except SlowStep:
            return max(taken, 1)
        except Frozen:
            raise
        except Exception as error:
            if not self.report.tracebacks:
                text = "".join(traceback.format_exception(error))
                self.report.tracebacks.append(f"seed {self.seed}:\n{text}")
            raise
        return taken

    async def _episode(self, app: QueueDeskApp, role: str, steps: int, deadline: float | None) -> int:
        taken = 0
        quit_asked = False
        self.last = None
        on_connect = 0
        async with app.run_test(size=(self.rng.choice([80, 100, 120]), 30), notifications=True) as pilot:
            for _ in range(steps):
                if deadline is not None and time.monotonic() > deadline:
                    break
                self.check(app, "before a step")
                here = place(app)
                if self.last is not None:  # where the last key led, once its pause passed
                    self.leads.setdefault(self.last, Counter())[here] += 1
                    self.last = None
                self.report.transitions[here] += 1
                taken += 1
                self.report.steps += 1
                on_connect = on_connect + 1 if here == "ConnectScreen" else 0
                if on_connect > 3:  # the key was revoked: the next episode signs in with a new one
                    break
                event = await self.step(app, pilot, role, here)
                self.report.events[event] += 1
                if event == "ctrl+q":
                    quit_asked = True
                    break
                await asyncio.sleep(self.rng.choice([0.0, 0.0, 0.0, 0.05, 0.3]))
            if not quit_asked:
                await self.quit(app, pilot)
        self.check(app, "after quitting")
        return taken

    async def step(self, app: QueueDeskApp, pilot: Any, role: str, here: str) -> str:
        roll = self.rng.random()
        if roll < 0.015:
            await self.outage()
            return "server stopped and started"
        if roll < 0.025:
            change_role(self.env, role, self.rng)
            return "role changed"
        if roll < 0.03:
            revoke_keys(self.env, role)
            self.env.keys[role] = issue_key(self.env, role)  # the next episode signs in with it
            return "key revoked"
        if roll < 0.045:
            if self.rng.random() < 0.5 and unsent_work(self.env, app, self.rng):
                self.report.events["work left unsent"] += 1
            await self.quit(app, pilot)
            return "ctrl+q"
        if roll < 0.07 and await self.command(app, pilot, here):
            return "command"
        screen = app.screen
        if type(screen).__name__ in LEAVE_ONLY:
            key = self.rng.choice(["escape", "escape", "tab"])
        else:
            own, widgets = keys_offered(screen)
            key = self.choose(here, own + list(EVERY_SCREEN_KEYS), widgets)
        await self.press(app, pilot, key, here)
        self.last = (here, key)
        return "key"

    def choose(self, here: str, keys: list[str], others: list[str]) -> str:
        """A tenth of the time a widget's key; else, a third of the time a key never tried here yet;
        a sixth of the time any of the app's keys; otherwise the first key of the shortest way (over
        where each key led before) to the place visited least: a walk that reaches the places a
        plain random one rarely does (a delivery's dialog: a queue, its Webhook tab, a row)."""
        if others and self.rng.random() < 0.1:
            return self.rng.choice(others)
        untried = [key for key in keys if self.tries_left(here, key)]
        if untried and self.rng.random() < 0.33:
            return self.rng.choice(untried)
        if self.rng.random() < 0.17:
            return self.rng.choice(keys)
        return self.toward_least_visited(here, keys) or self.rng.choice(keys)

    def tries_left(self, here: str, key: str) -> bool:
        """A key not tried here yet, or tried fewer than 3 times and only ever staying here."""
        led = self.leads.get((here, key))
        return led is None or (set(led) == {here} and led[here] < 3)

    def toward_least_visited(self, here: str, keys: list[str]) -> str | None:
        """The first key on the shortest known way from `here` to the reachable place with the
        fewest transitions (ties: any of them)."""
        ways: dict[str, list[tuple[str, str]]] = {}
        for (place_from, key), led_to in self.leads.items():
            ways.setdefault(place_from, []).extend((key, place_to) for place_to in led_to)
        first: dict[str, str] = {}
        frontier = [(key, place_to) for key, place_to in ways.get(here, []) if key in keys]
        self.rng.shuffle(frontier)
        while frontier:
            following = []
            for key, place_to in frontier:
                if place_to == here or place_to in first:
                    continue
                first[place_to] = key
                following.extend((key, onward) for _, onward in ways.get(place_to, []))
            frontier = following
        if not first:
            return None
        fewest = min(self.report.transitions[place_to] for place_to in first)
        return self.rng.choice(
            [key for place_to, key in first.items() if self.report.transitions[place_to] == fewest]
        )

    async def command(self, app: QueueDeskApp, pilot: Any, here: str) -> bool:
        """One of the commands the app offers on this screen, typed into the command palette by its
        title (`ctrl+p`, the title, `enter`); False where the palette is not offered."""
        if not app.ENABLE_COMMAND_PALETTE or type(app.screen).__name__ in LEAVE_ONLY or app.screen.is_modal:
            return False
        titles = [
            command.title
            for command in app.get_system_commands(app.screen)
            if not any(word in command.title.lower() for word in NEVER_COMMANDS)
        ]
        if not titles:
            return False
        title = self.rng.choice(titles)
        keys = ["ctrl+p", *(_character_to_key(char) for char in title)]
        for key in keys:
            await self.press(app, pilot, key, here)
        await asyncio.sleep(0.3)  # the palette's search runs in a worker of its own
        await self.press(app, pilot, "enter", here)
        self.report.events[f"command {title}"] += 1
        return True

    async def press(self, app: QueueDeskApp, pilot: Any, key: str, here: str) -> None:
        """The key, and the app idle again; not within STEP_SECONDS (a loaded machine), the app must
        still answer ctrl+q (`quit` says it is frozen otherwise) and the episode ends there."""
        try:
            await asyncio.wait_for(pilot.press(key), STEP_SECONDS)
        except TimeoutError:
            self.report.events[f"slow {key!r} on {here}: ctrl+q answered"] += 1
            await self.quit(app, pilot)
            raise SlowStep() from None

    async def outage(self) -> None:
        self.env.proxy.stop()
        await asyncio.sleep(self.rng.uniform(0.0, 1.5))
        self.env.proxy.start()

    async def quit(self, app: QueueDeskApp, pilot: Any) -> None:
        """ctrl+q, and whatever the app asks before it quits (unsent work: keep it for next start)."""
        here = place(app)
        started = time.monotonic()
        while app.is_running:
            if time.monotonic() - started > QUIT_SECONDS:
                self.report.frozen.append(f"ctrl+q on {here}: still running after {QUIT_SECONDS:g} s")
                raise Frozen(self.report.frozen[-1])
            asks = type(app.screen).__name__ == "QuitUnsentScreen"
            if asks:  # a place of its own: reached by ctrl+q with work not sent
                self.report.transitions["QuitUnsentScreen"] += 1
            key = "k" if asks else "ctrl+q"
            try:
                await asyncio.wait_for(pilot.press(key), QUIT_SECONDS)
            except TimeoutError:
                self.report.frozen.append(f"ctrl+q on {here} not handled in {QUIT_SECONDS:g} s")
                raise Frozen(self.report.frozen[-1]) from None
            await asyncio.sleep(0.05)

    def check(self, app: QueueDeskApp, when: str) -> None:
        error = app._exception
        if error is not None:
            text = "".join(traceback.format_exception(error))
            self.report.tracebacks.append(f"{when}, seed {self.seed}:\n{text}")
            raise AssertionError(self.report.tracebacks[-1])


def every_place() -> set[str]:
    """Every screen and dialog of the app (each of its classes of Textual's `Screen`) and every tab (a
    screen's `tab('...')` bindings), read from the app's own modules: what a run should reach."""
    import importlib
    import pkgutil
    import re

    import queuedesk.tui
    from queuedesk.tui.base import AppModal, AppScreen, KeysInOrder

    for info in pkgutil.walk_packages(queuedesk.tui.__path__, "queuedesk.tui."):
        if info.name.rsplit(".", 1)[-1] not in ("main", "__main__"):
            importlib.import_module(info.name)
    found: set[str] = set()
    stack: list[type] = [Screen]
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        if cls in (AppScreen, AppModal, KeysInOrder) or not cls.__module__.startswith("queuedesk."):
            continue
        if cls.__subclasses__():
            continue  # a base of screens (no screen inherits another): the queue keys' one
        tabs = [
            match.group(1)
            for binding in getattr(cls, "BINDINGS", [])
            if (match := re.fullmatch(r"tab\('([^']+)'\)", getattr(binding, "action", "")))
        ]
        found.update(f"{cls.__name__}:{tab}" for tab in tabs) if tabs else found.add(cls.__name__)
    return found
