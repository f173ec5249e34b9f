"""uvicorn's internals QueueDesk relies on (uvicorn 0.54): its httptools protocol, subclassed.

Uvicorn takes a protocol class for `http=`, but the class's module and the attributes below are its
implementation, not a documented API. The subclass (server/http/connections.py) adds a timeout on a
request's head and body, a connection cap, and limits on the request line and headers checked
while they are read (414, 431, and the envelope for a malformed request). Its own attributes (`OUR_NAMES`) must not be uvicorn's:
the test checks that uvicorn's protocol has none of them.
"""

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from queuedesk.compat import PrivateName

OUR_NAMES = (
    "_deadline",
    "_refused",
    "_refuse",
    "_expect",
    "_forget_deadline",
    "_too_slow",
    "_dropped",
    "_feed",
    "_head_bytes",
    "_header_bytes",
    "_header_count",
    "_in_head",
)

PRIVATE_NAMES = (
    PrivateName(
        "uvicorn.protocols.http.httptools_impl.HttpToolsProtocol",
        4,
        "Subclassed for timeouts on a request's head and body and a connection cap, which uvicorn "
        "does not offer (it times out only idle kept-alive connections).",
        "server/http/connections.py guarded_protocol",
    ),
    *(
        PrivateName(
            f"uvicorn.protocols.http.httptools_impl.HttpToolsProtocol.{name}",
            4,
            "State or a parser callback of uvicorn's protocol that the subclass reads or extends.",
            "server/http/connections.py GuardedProtocol",
        )
        for name in (
            "on_message_begin",
            "on_headers_complete",
            "on_message_complete",
            "data_received",
            "eof_received",
            "connection_made",
            "connection_lost",
            "on_url",
            "on_header",
            "send_400_response",
            "handle_websocket_upgrade",
            "_should_upgrade",
            "_unset_keepalive_if_required",
            "_unsupported_upgrade_warning",
        )
    ),
    *(
        PrivateName(
            f"uvicorn.protocols.http.httptools_impl.HttpToolsProtocol.{name}",
            4,
            "State of uvicorn's protocol the subclass reads: the open connections (for the cap), "
            "the transport (to answer 503 and close), the loop (for the deadlines).",
            "server/http/connections.py GuardedProtocol",
            on_instances=True,
        )
        for name in ("connections", "transport", "loop", "parser", "url")
    ),
)

__all__ = ["OUR_NAMES", "PRIVATE_NAMES", "HttpToolsProtocol"]
