"""What is wrong with a webhook target as typed, said before it is sent to the server.

The server has the last word (it also refuses private addresses unless it allows them); these are
the problems anyone can see in the address itself, each with what to write instead.
"""

from urllib.parse import urlsplit

from queuedesk.api.blocks import MAX_URL_LENGTH, is_http_url

EXAMPLE = "https://hooks.example.com/queuedesk"


def target_problem(target: str, *, signed: bool = True) -> str | None:
    """None when the address may be sent; otherwise why not, for the field's message. `signed`:
    the server signs its calls (QueueDesk's; the original service sends no signature)."""
    if len(target) > MAX_URL_LENGTH:
        return f"The address is {len(target):,} characters long; the limit is {MAX_URL_LENGTH:,}."
    if any(c.isspace() for c in target):
        return "An address has no spaces: remove them (or encode a space as %20)."
    try:
        parts = urlsplit(target)
    except ValueError:
        return f"This is not a web address. Write it like {EXAMPLE}."
    if parts.scheme not in ("http", "https"):
        if "://" not in target:
            return f"Start the address with https:// (or http://), like {EXAMPLE}."
        return f"Only http and https addresses can be called, not {parts.scheme or 'this'}:// ones."
    if parts.username is not None or parts.password is not None:
        # The target is shown to every supervisor in the delivery log; the receiver should check
        # the signature (the webhook secret) instead of a password in the address.
        if not signed:
            return (
                "Leave the user name and password out of the address: whoever reads the queue's webhook "
                "sees it. This server sends no signature: let the receiver check a secret path instead."
            )
        return (
            "Leave the user name and password out of the address: the delivery log shows it to "
            "supervisors. The receiver checks the signature (the webhook secret) instead."
        )
    try:
        host = parts.hostname
        parts.port  # noqa: B018 - raises ValueError on a port that is not a number from 0 to 65535
    except ValueError:
        return "The port after the host must be a number from 1 to 65535, e.g. https://host:8443/hook."
    if not host:
        return f"The address needs a host after {parts.scheme}://, like {EXAMPLE}."
    if not is_http_url(target):  # the same rule the server applies, in case it knows more
        return f"This is not an http(s) address the server accepts. Write it like {EXAMPLE}."
    return None
