"""The URLs a client connects to: ``http(s)://`` (Streamable HTTP) and ``ws(s)://`` (WebSocket).
One place for what counts as one, for the client, the command line and the gateway."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

SCHEMES = ("http://", "https://", "ws://", "wss://")
_ANY_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


def is_url(text: str) -> bool:
    """Whether ``text`` is meant as a server's URL (by its scheme: what follows may still be wrong)."""
    return text.startswith(SCHEMES)


def looks_like_url(text: str) -> bool:
    """Whether ``text`` starts like a URL of any scheme (``ftp://…`` too): not a command or a file."""
    return _ANY_SCHEME.match(text) is not None


def url_problem(url: str) -> str | None:
    """What keeps a client from connecting to ``url`` as written, in a few words; None: nothing."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (a port that is not a number raises here)
    except ValueError as exc:
        return f"{url!r} is not a URL: {exc}"
    if not is_url(url):
        return f"{url!r} is not an http(s):// or ws(s):// URL"
    if not parts.hostname:
        return f"{url!r} names no host"
    return None
