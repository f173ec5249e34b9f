"""A real QueueDesk server made to answer as one older than `features` (B1): a real HTTP front that
passes every request through and takes `features` out of `/me`'s answer."""

import json

from tests.support.faulty_http import FaultyHttp


class OlderServer(FaultyHttp):
    def __init__(self, upstream: str) -> None:
        super().__init__(upstream, failing=r"(?!)")  # fails nothing

    def answered(self, path: str, body: bytes) -> bytes:
        if path.split("?")[0] != "/me":
            return body
        me = json.loads(body)
        me.pop("features", None)
        return json.dumps(me).encode()
