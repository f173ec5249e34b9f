"""`queuedesk web`'s page loads nothing from outside its own server: the HTML, every stylesheet,
script and font it names, and what those name in turn, are served by `queuedesk web` itself, and
none of them names another host (a web-font host would learn who opened the page).

A stylesheet's comments are left out: a licence header may credit a site, which loads nothing."""

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import httpx
import pytest

from tests.demo.web_support import WebProcess, start_web

# An address with a host: `scheme://host` or `//host` (a dotted name, an IPv6 literal, localhost).
HOST = re.compile(
    r"(?i)(?:\b[a-z][a-z0-9+.-]*:)?//([a-z0-9-]+(?:\.[a-z0-9-]+)+|\[[0-9a-f:]+\]|localhost)(?::\d+)?"
    r"(?=[/?#\"'\s)\\]|$)"
)
# What a page asks the browser to load (a tag's src or href), and a stylesheet (url(), @import). A
# script names no host at all (checked below), so whatever it loads is this server's.
PAGE_LOADS = re.compile(r"""(?i)<[^>]*?\b(?:src|href)\s*=\s*["']([^"']+)["']""")
CSS_LOADS = re.compile(r"""(?<![\w.])url\(\s*["']?([^"')]+)["']?\s*\)|@import\s+["']([^"']+)["']""")
CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)


def hosts_named(text: str) -> set[str]:
    return {match.group(1).lower() for match in HOST.finditer(text)}


def loaded_from(text: str, address: str) -> set[str]:
    """What the page (its tags and its own styles) or a stylesheet at `address` loads."""
    if address.endswith(".js"):
        return set()
    kinds = (CSS_LOADS,) if address.endswith(".css") else (PAGE_LOADS, CSS_LOADS)
    found = (
        next(group for group in match.groups() if group) for kind in kinds for match in kind.finditer(text)
    )
    return {urljoin(address, link) for link in found if not link.startswith(("data:", "#"))}


@pytest.fixture
def web(tmp_path: Path) -> Iterator[WebProcess]:
    process = start_web(tmp_path)
    yield process
    process.stop()


def test_the_page_and_all_it_loads_come_from_its_own_server(web: WebProcess) -> None:
    own = urlsplit(web.origin).hostname
    with httpx.Client(base_url=web.origin, timeout=20) as client:
        assert client.get(web.address.removeprefix(web.origin)).status_code == 303  # signed in
        page = client.get("/")
        assert page.status_code == 200 and 'id="terminal"' in page.text
        seen: dict[str, str] = {}
        waiting = {f"{web.origin}/": page.text}
        fetched = {f"{web.origin}/"}
        while waiting:
            address, text = waiting.popitem()
            named = text if not address.endswith(".css") else CSS_COMMENT.sub("", text)
            seen[address] = named
            for found in loaded_from(named, address) - fetched:
                fetched.add(found)
                assert urlsplit(found).hostname == own, f"{address} loads {found}"
                answer = client.get(found)
                assert answer.status_code == 200, (found, answer.status_code)
                if found.endswith((".css", ".js")):
                    waiting[found] = answer.text
    assert {urlsplit(address).path for address in seen} >= {
        "/",
        "/static/css/xterm.css",
        "/static/js/textual.js",
    }
    assert any(address.endswith(".ttf") for address in fetched)  # the terminal's font, from here
    outside = {address: hosts_named(text) - {own} for address, text in seen.items()}
    assert {address: hosts for address, hosts in outside.items() if hosts} == {}
