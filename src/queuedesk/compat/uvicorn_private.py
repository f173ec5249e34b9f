"""uvicorn's internals QueueDesk relies on (uvicorn 0.54): its httptools protocol, subclassed.

Uvicorn takes a protocol class for `http=`, but the class's module and the attributes below are its
implementation, not a documented API. The subclass (server/connections.py) adds a timeout on a
request's head and body and a connection cap. Its own attributes (`OUR_NAMES`) must not be uvicorn's:
the test checks that uvicorn's protocol has none of them.
"""

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from queuedesk.compat import PrivateName

OUR_NAMES = ("_deadline", "_refused", "_refuse", "_expect", "_forget_deadline", "_too_slow")

PRIVATE_NAMES = (
    PrivateName(
        "uvicorn.protocols.http.httptools_impl.HttpToolsProtocol",
        4,
        "Subclassed for timeouts on a request's head and body and a connection cap, which uvicorn "
        "does not offer (it times out only idle kept-alive connections).",
        "server/connections.py guarded_protocol",
    ),
    *(
        PrivateName(
            f"uvicorn.protocols.http.httptools_impl.HttpToolsProtocol.{name}",
            4,
            "State or a parser callback of uvicorn's protocol that the subclass reads or extends.",
            "server/connections.py GuardedProtocol",
        )
        for name in (
            "on_message_begin",
            "on_headers_complete",
            "on_message_complete",
            "data_received",
            "eof_received",
            "connection_made",
            "connection_lost",
        )
    ),
    *(
        PrivateName(
            f"uvicorn.protocols.http.httptools_impl.HttpToolsProtocol.{name}",
            4,
            "State of uvicorn's protocol the subclass reads: the open connections (for the cap), "
            "the transport (to answer 503 and close), the loop (for the deadlines).",
            "server/connections.py GuardedProtocol",
            on_instances=True,
        )
        for name in ("connections", "transport", "loop")
    ),
)

__all__ = ["OUR_NAMES", "PRIVATE_NAMES", "HttpToolsProtocol"]
