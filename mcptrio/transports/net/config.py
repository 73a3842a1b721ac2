"""Settings of the HTTP transports, in one frozen place."""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from .front_door import Network, parse_networks

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def _hosts(hosts: Iterable[str]) -> tuple[str, ...]:
    return tuple(hosts)  # (converter=tuple itself would type the parameter Iterable[_T_co])


@attrs.frozen(kw_only=True)
class HttpConfig:
    """Endpoint, security allow-lists and streaming behaviour of the HTTP server."""

    path: str = "/mcp"
    # Host header names (any port) and Origin hosts that may reach the server: DNS-rebinding defence.
    allowed_hosts: tuple[str, ...] = attrs.field(default=LOOPBACK_HOSTS, converter=_hosts)
    # Full origins ("https://app.example") allowed besides those whose host is in allowed_hosts.
    allowed_origins: tuple[str, ...] = ()
    # Reverse proxies (addresses or networks) whose X-Forwarded-For names the client (front_door.py).
    trusted_proxies: tuple[str, ...] = attrs.field(default=(), converter=_hosts)
    proxy_networks: tuple[Network, ...] = attrs.field(init=False, default=())  # trusted_proxies, parsed
    # "auto": JSON unless the request needs a stream (notifications, server requests, a long wait);
    # "json": always a single JSON body; "sse": always an event stream.
    response_mode: str = "auto"
    # auto mode: a request still running after this long switches to SSE, so a gone client is noticed.
    stream_after: float = 0.25
    # A request still running after this long gets a watcher for a client that goes away
    # (exchange.py); one answered sooner is never watched, which saves a task per request.
    watch_after: float = 0.01
    # Comment lines on running calls' streams: they reveal a client gone without closing its connection
    # (its handler is cancelled), and keep proxies awake.  One task writes them all, spread in time
    # (exchange.py), at most max_probe_rate a second: with more calls open, each is probed less often,
    # but at least every keepalive_interval.  (A client that closes its connection is seen at once.)
    probe_interval: float = 0.5
    max_probe_rate: float = 200.0
    # A legacy request whose client went away after receiving an event id runs on this long
    # (its messages logged for Last-Event-ID) before it is cancelled as abandoned.
    orphan_timeout: float = 120.0
    keepalive_interval: float = 15.0  # comment lines on long-lived streams (GET, subscriptions/listen)
    session_idle_timeout: float = 1800.0  # legacy sessions unused this long are ended
    header_timeout: float = 30.0  # a request head must arrive within this long of its first byte
    keep_alive_timeout: float = 30.0  # an idle connection waits this long for its next request
    body_timeout: float = 30.0  # a request body must arrive within this long (slow clients: 408)
    # What every connection is held to, whichever server runs the endpoint (http/server/rfc9112.py):
    max_head_size: int = 64 * 1024  # request line and headers, in bytes (beyond: 431)
    max_headers: int = 100  # header fields in one request (beyond: 431)
    write_timeout: float = 30.0  # a write the client does not take within this long closes its connection
    # open at once (HTTP; room for every stream and request, and idle ones): beyond, a new one gets 503
    max_connections: int = 25_000
    max_sessions: int = 10_000  # legacy sessions at once; beyond, initialize gets 503 + Retry-After
    # Work and waiting, bounded apart (front_door.py; the sizes: docs/guides/configuration.md).
    max_requests: int = 2_000  # requests whose handlers run at once; beyond, 503 + Retry-After
    max_streams: int = 20_000  # listen, GET and SSE streams and WebSocket connections open at once
    max_streams_per_client: int = 2_000  # of those, per principal (with authorization) or client address
    event_log_size: int = 256  # per legacy session, for Last-Event-ID resumption
    # With shared state: a session's event log in Redis is dropped this long after its last
    # event (and with the session); None: the session idle timeout.
    event_log_age: float | None = None
    stream_buffer: int = 256  # change notifications queued for a stream before a non-reader is cut off
    retry_ms: int = 1000  # SSE "retry" advertised with the priming event (2025-11-25)
    # With shared state: a legacy session's record is read again (and its expiry renewed) when a
    # request comes this long after the last read; changes made meanwhile on other workers
    # (DELETE, logging/setLevel, subscriptions) reach this one through the fan-out at once.
    shared_session_check: float = 1.0
    legacy_sessions: bool = True  # False: only the stateless 2026-07-28 era (initialize gets 400)
    legacy_sse: bool = False  # the 2024-11-05 HTTP+SSE transport at {path}/sse and {path}/messages
    health_path: str | None = "/healthz"  # 200 while the process answers (None: not served)
    ready_path: str | None = "/readyz"  # 200 when ready, 503 while draining (None: not served)

    def __attrs_post_init__(self) -> None:
        # parsed once, here: a bad one is a ValueError naming it
        object.__setattr__(self, "proxy_networks", parse_networks(self.trusted_proxies))
        mcp = self.path.rstrip("/")
        for probe in (self.health_path, self.ready_path):
            if probe is not None and (not probe.startswith("/") or probe.rstrip("/") == mcp):
                raise ValueError(f"health path {probe!r} must start with / and differ from the MCP path {self.path!r}")
