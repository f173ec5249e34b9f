"""Hand an image address to the system's viewer (the work screen's `o`), without waiting for it."""

import shutil
import subprocess
import sys
import threading
import webbrowser
from typing import Any

from queuedesk.tui.settings import web_session
from queuedesk.tui.work.image_fetch import ImageUnavailable, check_address


def _reaped(process: "subprocess.Popen[bytes]") -> "subprocess.Popen[bytes]":
    """Waited for on a thread of its own, so that it leaves no zombie behind when it ends."""
    threading.Thread(target=process.wait, name="viewer-reaper", daemon=True).start()
    return process


def open_externally(url: str) -> "subprocess.Popen[bytes] | None":
    """Hand an http(s) address to the system's viewer and return at once (with the viewer's
    process, which a thread waits for).

    Raises `ImageUnavailable` for an address that is not http(s) or when there is no viewer to ask.
    A console browser is never started: it would fight the app for the terminal. In a browser
    session (`queuedesk web`) nothing is launched at all: the program would run on the host, for
    whoever drives the page.
    """
    if web_session():
        raise ImageUnavailable("opening an address is off in the browser mode: copy it from the task instead")
    check_address(url)
    quiet: dict[str, Any] = {
        "stdin": subprocess.DEVNULL,
        "stdout": subprocess.DEVNULL,
        "stderr": subprocess.DEVNULL,
    }
    if sys.platform == "darwin":
        return _reaped(subprocess.Popen(["open", url], **quiet))
    if sys.platform == "win32":
        threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
        return None
    opener = shutil.which("xdg-open")
    if opener is None:
        raise ImageUnavailable("no system viewer (xdg-open is not installed)")
    return _reaped(subprocess.Popen([opener, url], start_new_session=True, **quiet))
