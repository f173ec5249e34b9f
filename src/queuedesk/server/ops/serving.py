"""Running the app under uvicorn with the drain of Part C.

On SIGTERM (or SIGINT) the listener closes at once; requests in flight are answered, each with
`Connection: close` (uvicorn turns keep-alive off on a connection whose request is in flight), for
DRAIN_REQUESTS_SECONDS at most; then the lifespan's end lets the dispatcher finish its attempts in
flight; the process exits 0. A watchdog ends it with 0 at EXIT_WITHIN_SECONDS whatever is left.
"""

import logging
import os
import signal
import threading
import time
from types import FrameType

import uvicorn

from queuedesk.server.ops.readiness import Readiness
from queuedesk.server.settings import EXIT_WITHIN_SECONDS

log = logging.getLogger("queuedesk.server")


class DrainingServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, readiness: Readiness) -> None:
        super().__init__(config)
        self.readiness = readiness
        self.drain_started: float | None = None

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self.drain_started is None:
            self.drain_started = time.monotonic()
            self.readiness.drain()
            log.info(
                "draining on %s: the listener closes, %d connection(s) open are answered and closed",
                signal.Signals(sig).name,
                len(self.server_state.connections),
                extra={"fields": {"signal": signal.Signals(sig).name}},
            )
            _watchdog(EXIT_WITHIN_SECONDS)
        super().handle_exit(sig, frame)


def _watchdog(seconds: float) -> None:
    def end() -> None:
        log.error("the drain took %.0f s: exiting now with what is left", seconds)
        logging.shutdown()
        os._exit(0)

    timer = threading.Timer(seconds, end)
    timer.daemon = True
    timer.start()


def _ignore(_sig: int, _frame: FrameType | None) -> None:
    """What SIGTERM does once the server has drained: uvicorn raises the signal it caught again
    when it is done, which would end the process with -15 instead of 0."""


def run(server: DrainingServer) -> int:
    previous = signal.signal(signal.SIGTERM, _ignore)
    try:
        server.run()  # on uvloop where it is installed (loop="auto"), which asyncio.run would not use
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
    if not server.started:
        return 2
    took = 0.0 if server.drain_started is None else time.monotonic() - server.drain_started
    log.info("stopped after a drain of %.1f s", took, extra={"fields": {"drain_seconds": round(took, 3)}})
    return 0
