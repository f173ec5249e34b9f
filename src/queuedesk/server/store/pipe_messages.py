"""Messages over a work process's pipe, each framed by its length. The serving process sends and
reads them without ever blocking its event loop: a pipe holds 64 KB, and a process still importing
reads nothing for the best part of a second, while a long answer (an import's ids) is megabytes
written as the loop reads them. A work process uses the blocking calls."""

import asyncio
import os
from collections.abc import Callable
from struct import Struct

HEADER = Struct("!Q")  # the message's length in bytes
CHUNK = 1 << 20  # read at most this much at a time


def _framed(data: bytes) -> memoryview:
    return memoryview(HEADER.pack(len(data)) + data)


def write_message(fd: int, data: bytes) -> None:
    """Write `data` whole on a blocking `fd`."""
    view = _framed(data)
    while view:
        view = view[os.write(fd, view) :]


def read_message(fd: int) -> bytes:
    """The next message on a blocking `fd`; EOFError once the other end is closed."""
    (size,) = HEADER.unpack(_read_exactly(fd, HEADER.size))
    return _read_exactly(fd, size)


def _read_exactly(fd: int, size: int) -> bytes:
    data = bytearray()
    while len(data) < size:
        chunk = os.read(fd, min(size - len(data), CHUNK))
        if not chunk:
            raise EOFError("the other end closed the pipe")
        data += chunk
    return bytes(data)


async def send(fd: int, data: bytes) -> None:
    """Write `data` whole on a non-blocking `fd`, waiting on the event loop while the pipe is full."""
    view = _framed(data)
    while view:
        try:
            written = os.write(fd, view)
        except BlockingIOError:
            await _until(fd, writable=True)
            continue
        view = view[written:]


async def receive(fd: int) -> bytes:
    """The next message on a non-blocking `fd`, read as it arrives; EOFError once the other end is
    closed."""
    (size,) = HEADER.unpack(await _receive_exactly(fd, HEADER.size))
    return await _receive_exactly(fd, size)


async def _receive_exactly(fd: int, size: int) -> bytes:
    data = bytearray()
    while len(data) < size:
        try:
            chunk = os.read(fd, min(size - len(data), CHUNK))
        except BlockingIOError:
            await _until(fd, writable=False)
            continue
        if not chunk:
            raise EOFError("the other end closed the pipe")
        data += chunk
    return bytes(data)


async def _until(fd: int, *, writable: bool) -> None:
    """Wait until the event loop sees `fd` readable (or writable)."""
    loop = asyncio.get_running_loop()
    ready: asyncio.Future[None] = loop.create_future()

    def seen() -> None:
        if not ready.done():
            ready.set_result(None)

    watch: Callable[..., object] = loop.add_writer if writable else loop.add_reader
    unwatch: Callable[[int], object] = loop.remove_writer if writable else loop.remove_reader
    watch(fd, seen)
    try:
        await ready
    finally:
        unwatch(fd)
