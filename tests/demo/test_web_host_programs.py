"""`queuedesk web` runs no program on its host, whatever the page asks (issue 43, finding 1).

The operator started it inside tmux and a desktop session (`TMUX`, `DISPLAY`, `WAYLAND_DISPLAY`), and
every program a session might reach for (tmux's buffer, the desktop's clipboard tools, the system's
viewer) is first on the PATH as a stand-in that writes down that it ran. A client signs in over the
page's own WebSocket, as a browser does, as the admin and does everything that once started one: `c`
on a new key (People → `k` → `c`), `o` on a task's picture, and `c` on a refused submission (`R` →
`c`). None runs; what was copied goes to the page instead, as the terminal's clipboard (OSC 52),
which the page's terminal hands to the browser's clipboard.
"""

import asyncio
import base64
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import httpx
import pytest

from tests.demo.support import ADMIN_KEY, DemoService
from tests.demo.web_support import WebProcess, start_web

STAND_INS = ("tmux", "xclip", "xsel", "wl-copy", "xdg-open", "pbcopy", "open", "x-www-browser", "gio")
# What the terminal is told besides text: escape sequences (CSI, OSC, others), dropped to read it.
SEQUENCE = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]")
CLIPBOARD = re.compile(rb"\x1b\]52;c;([A-Za-z0-9+/=]*)(?:\x07|\x1b\\)")


def stand_ins(folder: Path, log: Path) -> Path:
    """Programs named as the host's clipboard tools and viewers, each writing down that it ran."""
    folder.mkdir()
    for name in STAND_INS:
        program = folder / name
        program.write_text(f'#!/bin/sh\necho "{name} $*" >> {log}\ncat > /dev/null\nexit 0\n')
        program.chmod(0o755)
    return folder


class Page:
    """The page's side of a session: keys sent as the page sends them, the terminal's output kept."""

    def __init__(self, socket: aiohttp.ClientWebSocketResponse) -> None:
        self.socket = socket
        self.output = bytearray()
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for message in self.socket:
            if message.type == aiohttp.WSMsgType.BINARY:
                self.output += message.data

    def text(self, since: int = 0) -> str:
        return SEQUENCE.sub(b"", bytes(self.output[since:])).decode(errors="replace")

    def copied(self) -> list[str]:
        return [base64.b64decode(found).decode() for found in CLIPBOARD.findall(bytes(self.output))]

    async def shows(self, text: str, since: int = 0, timeout: float = 40) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.text(since):
                return
            await asyncio.sleep(0.1)
        raise AssertionError(f"{text!r} never appeared; what came:\n{self.text(since)[-3000:]}")

    async def press(self, *keys: str, then: str | None = None) -> None:
        mark = len(self.output)
        for key in keys:
            await self.socket.send_str(json.dumps(["stdin", key]))
            await asyncio.sleep(0.3)
        if then is not None:
            await self.shows(then, since=mark)


@pytest.fixture
def web(tmp_path: Path) -> Iterator[tuple[WebProcess, DemoService, Path]]:
    ran = tmp_path / "ran.log"
    folder = stand_ins(tmp_path / "bin", ran)
    service = DemoService(tmp_path)
    process = start_web(
        tmp_path,
        "--server-url",
        service.url,
        PATH=f"{folder}:/usr/bin:/bin",
        TMUX="/tmp/tmux-0/default,1,0",
        DISPLAY=":0",
        WAYLAND_DISPLAY="wayland-0",
    )
    try:
        yield process, service, ran
    finally:
        process.stop()
        service.stop()


def test_no_action_of_a_browser_session_runs_a_program_on_the_host(
    web: tuple[WebProcess, DemoService, Path],
) -> None:
    process, service, ran = web
    admin = httpx.Client(base_url=service.url, headers={"Authorization": f"Token {ADMIN_KEY}"}, timeout=30)
    org = admin.get("/me").json()["organization_id"]
    photos = next(q for q in admin.get(f"/orgs/{org}/queues").json() if q["name"] == "Photo moderation")
    with httpx.Client(base_url=process.origin, timeout=20) as signing_in:
        assert signing_in.get(process.address.removeprefix(process.origin)).status_code == 303
        cookies = dict(signing_in.cookies)

    def nothing_ran(after: str) -> None:
        assert not ran.exists(), f"{after} ran a program on the host: {ran.read_text()}"

    async def drive() -> None:
        async with aiohttp.ClientSession(cookies=cookies) as session:
            url = f"ws://127.0.0.1:{process.port}/ws?width=140&height=45"
            async with session.ws_connect(url, headers={"Origin": process.origin}) as socket:
                page = Page(socket)
                await page.shows("Connect to a QueueDesk server")
                await asyncio.sleep(0.5)
                for character in ADMIN_KEY:
                    await socket.send_str(json.dumps(["stdin", character]))
                    await asyncio.sleep(0.02)
                await page.press("\r", then="Photo moderation")

                # A new key, copied: the page's clipboard has it; no program of the host does.
                await page.press("u", then="New key")
                await page.press("k", then="New key for")
                await page.press("c", then="Copied")
                await asyncio.sleep(1)
                nothing_ran("copying a new key")
                await page.shows("browser's clipboard")
                (key,) = page.copied()
                assert key.startswith("qd_") or len(key) > 20, key
                assert [row["prefix"] for row in admin.get(f"/orgs/{org}/users/1/keys").json()]
                await page.press("\x1b", "\x1b", then="Photo moderation")

                # A picture's `o`: nothing to open it with on the host.
                await page.press("w", then="images/photo-")
                await page.press("o", then="off in the browser mode")
                await asyncio.sleep(1)
                nothing_ran("opening a picture")

                # A submission refused (the queue was flushed meanwhile), its values copied.
                assert admin.put(f"/orgs/{org}/queues/{photos['id']}/flush").status_code == 200
                await page.press("1", "\r", then="refused")
                await page.press("\x1b", then="Refused work")
                await page.press("R", then="Values entered on task")
                await page.press("c", then="opied")
                await asyncio.sleep(1)
                nothing_ran("copying a refused submission")
                await page.shows("copied to the browser")
                assert len(page.copied()) == 2, page.copied()
                page.reader.cancel()

    asyncio.run(drive())
    admin.close()
    nothing_ran("the session")
