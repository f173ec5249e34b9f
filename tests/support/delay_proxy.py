"""The server behind a loopback proxy whose answers can be held (`hold`, `release`) or delayed
(`delay()` seconds before each chunk the server sends): a slow or stalled server, on demand."""

import contextlib
import socket
import threading
import time
from collections.abc import Callable

from tests.tcp_proxy import TcpProxy


class DelayProxy(TcpProxy):
    def __init__(self, upstream_port: int, delay: Callable[[], float] | None = None) -> None:
        super().__init__(upstream_port)
        self.delay = delay or (lambda: 0.0)
        self._open = threading.Event()
        self._open.set()

    def hold(self) -> None:
        """From now on, what the server sends waits until `release`."""
        self._open.clear()

    def release(self) -> None:
        self._open.set()

    def stop(self) -> None:
        super().stop()
        self._open.set()  # a held answer's thread ends with its cut connection

    def _pipe(self, source: socket.socket, target: socket.socket) -> None:
        try:
            from_server = source.getpeername() == self.upstream
        except OSError:
            from_server = False
        if not from_server:
            super()._pipe(source, target)
            return
        try:
            while chunk := source.recv(65536):
                self._open.wait()
                if pause := self.delay():
                    time.sleep(pause)
                target.sendall(chunk)
        except OSError:
            pass
        finally:
            for sock in (source, target):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()
