"""``--state`` URLs: which backend, and the same URL with its password hidden for logs."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

import attrs

SCHEMES = ("redis", "rediss", "unix")


@attrs.frozen
class StateUrl:
    url: str  # as given (it may carry a password: never log it)
    redacted: str  # what logs and error messages show

    def __str__(self) -> str:
        return self.redacted

    def __repr__(self) -> str:
        return f"StateUrl({self.redacted!r})"


def parse_state_url(url: str) -> StateUrl:
    """Check a state URL (``redis://[:password@]host:port/db``, ``rediss://`` for TLS,
    ``unix:///path/to/redis.sock``); ValueError with a one-line reason otherwise."""
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES:
        raise ValueError(f"state URL must start with redis://, rediss:// or unix:// (got {redact(url)!r})")
    if parts.scheme != "unix":
        if not parts.hostname:
            raise ValueError(f"state URL names no host: {redact(url)!r}")
        try:
            _ = parts.port  # (urllib checks the port only when it is read)
        except ValueError:
            raise ValueError(f"state URL has a bad port: {redact(url)!r}") from None
        db = parts.path.strip("/")
        if db and not db.isdigit():
            raise ValueError(f"state URL's database must be a number: {redact(url)!r}")
    elif not parts.path:
        raise ValueError("unix:// state URL names no socket path")
    return StateUrl(url, redact(url))


def redact(url: str) -> str:
    """The URL with any password replaced by ``***``."""
    parts = urlsplit(url)
    user, at, host = parts.netloc.rpartition("@")
    if not at or ":" not in user:
        return url
    netloc = f"{user.split(':', 1)[0]}:***@{host}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
