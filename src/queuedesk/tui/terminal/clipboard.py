"""Copying text where the copy can be confirmed.

The terminal's clipboard (OSC 52, Textual's `copy_to_clipboard`) never answers: tmux and many
terminals drop it without a word, so "Copied" after it was a guess, and once a wrong one (a key
shown once, not copied). A program whose exit status tells is used instead when there is one: tmux's
paste buffer inside tmux, else the desktop's clipboard tool when a display is there.

In a browser session (`queuedesk web`) no program is ever run: it would run on the host, in the
operator's tmux or desktop, with text whoever drives the page chose (host_programs.py refuses it in
that process anyway). There the terminal's clipboard is the browser's own: OSC 52 reaches the page,
whose terminal hands it to the browser's clipboard.
"""

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping

from queuedesk.tui.settings import web_session

TIMEOUT = 3.0  # seconds a clipboard program may take
IN_THE_BROWSER = "This browser's clipboard was handed it (a browser may refuse it without a word)."


def _programs(env: Mapping[str, str]) -> list[tuple[list[str], str]]:
    """The commands to try, in order, each with where the text then is."""
    found: list[tuple[list[str], str]] = []
    if env.get("TMUX"):
        found.append((["tmux", "load-buffer", "-w", "-"], "tmux's paste buffer (prefix ] pastes it)"))
        found.append((["tmux", "load-buffer", "-"], "tmux's paste buffer (prefix ] pastes it)"))
    if env.get("WAYLAND_DISPLAY"):
        found.append((["wl-copy"], "the clipboard"))
    if env.get("DISPLAY"):
        found.append((["xclip", "-selection", "clipboard"], "the clipboard"))
        found.append((["xsel", "--clipboard", "--input"], "the clipboard"))
    if sys.platform == "darwin":
        found.append((["pbcopy"], "the clipboard"))
    return found


def copy_confirmed(text: str, env: Mapping[str, str] | None = None) -> str | None:
    """Copy `text` through the first program that says it worked; where it went, or None."""
    if web_session():
        return None
    environment = os.environ if env is None else env
    for command, where in _programs(environment):
        if shutil.which(command[0]) is None:
            continue
        try:
            done = subprocess.run(
                command,
                input=text.encode(),
                capture_output=True,
                timeout=TIMEOUT,
                env=dict(environment),
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0:
            return where
    return None
