"""What a connection or request must pass on both transports before it is served: where it comes
from, and whether this process has room for it.

**Where it comes from**, checked from what its headers may claim: Host and Origin against the
allow-list (the DNS-rebinding defence), and the client's address behind a reverse proxy
(``X-Forwarded-For``, believed only from proxies we trust).  These are pure functions.

Behind nginx or HAProxy every connection comes from the proxy, so the access log, the per-client
rate limit and ``ctx.client_address`` would all see the proxy's address.  When the peer is one of
``HttpConfig.trusted_proxies`` (addresses or networks, e.g. ``10.0.0.0/8``), the client is the
right-most address of ``X-Forwarded-For`` that is not itself a trusted proxy; from anyone else the
header is ignored, since a client can write whatever it likes there.

**Room**: how much one process takes on over HTTP and WebSocket, work and streams that only wait.

Two limits, for two different costs:

* ``max_requests`` bounds work: requests whose handlers are running.  A tool call that streams
  progress, or that turned into an event stream while it waits, is work for its whole life.
* ``max_streams`` (per process) and ``max_streams_per_client`` (per principal with
  authorization, else per client address) bound what only waits for notifications: a
  ``subscriptions/listen`` stream, a legacy session's GET stream, a 2024-11-05 SSE stream and a
  WebSocket connection.  Each holds a connection and a little memory as long as its client
  likes, but runs no handler; counted as work, idle listeners locked every tool call out.

Over a limit the client gets 503 with ``Retry-After`` and the retryable -31503 whose
``data.limit`` names the limit; each refusal is counted by limit (``/readyz``) and logged on
``mcptrio.access``.
"""

from __future__ import annotations

import contextlib
import functools
import ipaddress
import logging
from collections.abc import Iterable, Iterator
from typing import Any, Protocol
from urllib.parse import urlsplit

from ...auth.principal import ClientKey
from ...protocol.events import RequestId
from .refusal import HttpError, retry_later

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


# -- room -----------------------------------------------------------------------------------------

log = logging.getLogger("mcptrio.access")

MAX_REQUESTS, MAX_STREAMS, MAX_STREAMS_PER_CLIENT = "max_requests", "max_streams", "max_streams_per_client"
FLAGS = {
    MAX_REQUESTS: "--max-requests",
    MAX_STREAMS: "--max-streams",
    MAX_STREAMS_PER_CLIENT: "--max-streams-per-client",
}
RETRY_AFTER = {MAX_REQUESTS: 1, MAX_STREAMS: 5, MAX_STREAMS_PER_CLIENT: 5}  # a listener leaves less often


class Capacity:
    """Requests at work and open streams in one process, and what each limit refused."""

    def __init__(self, max_requests: int, max_streams: int, max_streams_per_client: int) -> None:
        self.max_requests = max_requests
        self.max_streams = max_streams
        self.max_streams_per_client = max_streams_per_client
        self.working = 0
        self.streams = 0
        self.streams_by_client: dict[ClientKey, int] = {}
        self.refused = dict.fromkeys(FLAGS, 0)

    def start_work(self, count: int, request_id: RequestId | None = None) -> None:
        """``count`` requests begin; an ``HttpError`` (503) when they would pass ``max_requests``."""
        if self.working + count > self.max_requests:
            raise self.refuse(
                MAX_REQUESTS, f"server busy: {self.max_requests} requests in flight", "request", request_id=request_id
            )
        self.working += count

    def end_work(self, count: int) -> None:
        self.working -= count

    def open_stream(self, key: ClientKey, what: str, request_id: RequestId | None = None) -> None:
        """A stream opens for ``key``; an ``HttpError`` (503) when either stream limit is reached."""
        held = self.streams_by_client.get(key, 0)
        if self.streams >= self.max_streams:
            raise self.refuse(
                MAX_STREAMS, f"too many open streams: {self.streams}, this server's limit", what, key, request_id
            )
        if held >= self.max_streams_per_client:
            raise self.refuse(
                MAX_STREAMS_PER_CLIENT,
                f"too many open streams from this client: {held}, the limit per client",
                what,
                key,
                request_id,
            )
        self.streams += 1
        self.streams_by_client[key] = held + 1

    def close_stream(self, key: ClientKey) -> None:
        self.streams -= 1
        left = self.streams_by_client[key] - 1
        if left:
            self.streams_by_client[key] = left
        else:
            del self.streams_by_client[key]

    @contextlib.contextmanager
    def stream(self, key: ClientKey, what: str, request_id: RequestId | None = None) -> Iterator[None]:
        """A stream's slot while the block runs."""
        self.open_stream(key, what, request_id)
        try:
            yield
        finally:
            self.close_stream(key)

    def refuse(
        self, limit: str, message: str, what: str, key: ClientKey | None = None, request_id: RequestId | None = None
    ) -> HttpError:
        """Count a refusal by ``limit``, log it on ``mcptrio.access``, and make its error."""
        self.refused[limit] += 1
        fields: dict[str, Any] = {"outcome": "refused", "limit": limit}
        if key is not None and key[1] is not None:
            fields["client" if key[0] == "address" else "principal"] = key[1]
        log.info("%s refused: %s", what, limit, extra={"fields": fields})
        seconds = RETRY_AFTER[limit]
        return retry_later(f"{message} ({FLAGS[limit]}); retry later", request_id, seconds, {"limit": limit})

    def report(self) -> dict[str, Any]:
        """What ``/readyz`` shows: each limit, how much of it is in use, and what it refused."""
        return {
            "requests": {"in_flight": self.working, "limit": self.max_requests, "refused": self.refused[MAX_REQUESTS]},
            "streams": {
                "open": self.streams,
                "limit": self.max_streams,
                "limit_per_client": self.max_streams_per_client,
                "refused": self.refused[MAX_STREAMS],
                "refused_per_client": self.refused[MAX_STREAMS_PER_CLIENT],
            },
        }
