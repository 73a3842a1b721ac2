"""Host and Origin checks against the allow-list (DNS-rebinding defence), pure functions."""

from __future__ import annotations

import functools
from urllib.parse import urlsplit

from .config import HttpConfig


def host_name(host: str) -> str:
    """``"[::1]:8000"`` → ``"::1"``, ``"localhost:80"`` → ``"localhost"``."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    if host.count(":") == 1:
        return host.split(":", 1)[0]
    return host


def origin_allowed(origin: str, config: HttpConfig) -> bool:
    if origin.rstrip("/") in config.allowed_origins:
        return True
    try:
        parts = urlsplit(origin)
        hostname = parts.hostname
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and hostname is not None and hostname in config.allowed_hosts


def check(headers: dict[bytes, bytes], config: HttpConfig) -> tuple[int, str] | None:
    """None when the request may proceed, else (status, reason)."""
    origin = headers.get(b"origin")
    if origin is not None:
        text = origin.decode("latin-1")
        if not origin_allowed(text, config):
            return 403, f"Forbidden: Origin {text[:100]!r} is not allowed"
    host = headers.get(b"host")
    if host is None:
        return 400, "Bad Request: missing Host header"
    return _host_refusal(host, config.allowed_hosts)


@functools.lru_cache(maxsize=64)  # the same few Host values come on every request
def _host_refusal(host: bytes, allowed_hosts: tuple[str, ...]) -> tuple[int, str] | None:
    name = host_name(host.decode("latin-1"))
    if name not in allowed_hosts:
        return 421, f"Misdirected Request: Host {name[:100]!r} is not allowed"
    return None
