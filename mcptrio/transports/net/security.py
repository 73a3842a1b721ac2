"""What a request's headers may claim about where it comes from, checked: Host and Origin against the
allow-list (the DNS-rebinding defence), and the client's address behind a reverse proxy
(``X-Forwarded-For``, believed only from proxies we trust).  Pure functions.

Behind nginx or HAProxy every connection comes from the proxy, so the access log, the per-client
rate limit and ``ctx.client_address`` would all see the proxy's address.  When the peer is one of
``HttpConfig.trusted_proxies`` (addresses or networks, e.g. ``10.0.0.0/8``), the client is the
right-most address of ``X-Forwarded-For`` that is not itself a trusted proxy; from anyone else the
header is ignored, since a client can write whatever it likes there.
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Iterable
from typing import Protocol
from urllib.parse import urlsplit

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class Allowed(Protocol):
    """What the Host and Origin checks read of the configuration (``HttpConfig``)."""

    @property
    def allowed_hosts(self) -> tuple[str, ...]: ...

    @property
    def allowed_origins(self) -> tuple[str, ...]: ...


def host_name(host: str) -> str:
    """``"[::1]:8000"`` → ``"::1"``, ``"localhost:80"`` → ``"localhost"``."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    if host.count(":") == 1:
        return host.split(":", 1)[0]
    return host


def origin_allowed(origin: str, config: Allowed) -> bool:
    if origin.rstrip("/") in config.allowed_origins:
        return True
    try:
        parts = urlsplit(origin)
        hostname = parts.hostname
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and hostname is not None and hostname in config.allowed_hosts


def check(headers: dict[bytes, bytes], config: Allowed) -> tuple[int, str] | None:
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


def parse_networks(specs: Iterable[str]) -> tuple[Network, ...]:
    """``10.0.0.1``, ``10.0.0.0/8``, ``::1``: a ValueError naming a bad one."""
    networks = []
    for spec in specs:
        try:
            networks.append(ipaddress.ip_network(spec.strip(), strict=False))
        except ValueError:
            raise ValueError(f"not an IP address or network: {spec!r}") from None
    return tuple(networks)


def _trusted(address: str, networks: tuple[Network, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in networks)


def client_address(peer: str | None, forwarded_for: bytes | None, networks: tuple[Network, ...]) -> str | None:
    """The client's address: ``peer`` unless it is a trusted proxy that says who it forwards for."""
    if not networks or peer is None or forwarded_for is None or not _trusted(peer, networks):
        return peer
    hops = [hop.strip() for hop in forwarded_for.decode("latin-1").split(",")]
    for hop in reversed(hops):
        try:
            ipaddress.ip_address(hop)
        except ValueError:
            return peer  # a malformed list: believe nothing of it
        if not _trusted(hop, networks):
            return hop
    return hops[0] if hops and hops[0] else peer  # every hop a proxy of ours: the first one
