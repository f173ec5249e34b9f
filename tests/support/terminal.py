"""A command run on a pseudo-terminal: what it wrote there, byte for byte."""

import fcntl
import os
import pty
import struct
import subprocess
import termios
from collections.abc import Sequence


def run_on_terminal(
    args: Sequence[str], env: dict[str, str], timeout: float = 60, columns: int = 800
) -> tuple[int, bytes]:
    """Run `args` with standard output and error on a terminal `columns` wide (a table never folds a long name); its exit code and
    the raw bytes written."""
    main, side = pty.openpty()
    fcntl.ioctl(side, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    try:
        process = subprocess.Popen(
            list(args),
            stdin=subprocess.DEVNULL,
            stdout=side,
            stderr=side,
            env={**env, "TERM": "xterm-256color"},
        )
        os.close(side)
        side = -1
        written = bytearray()
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # EIO: the command closed its side
                break
            if not chunk:
                break
            written += chunk
        return process.wait(timeout=timeout), bytes(written)
    finally:
        if side != -1:
            os.close(side)
        os.close(main)
