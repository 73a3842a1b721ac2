"""How much one process takes on over HTTP and WebSocket: work, and streams that only wait.

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
import logging
from collections.abc import Iterator
from typing import Any

from ...auth.principal import ClientKey
from .refusal import HttpError, retry_later

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

    def start_work(self, count: int, request_id: Any = None) -> None:
        """``count`` requests begin; an ``HttpError`` (503) when they would pass ``max_requests``."""
        if self.working + count > self.max_requests:
            raise self.refuse(
                MAX_REQUESTS, f"server busy: {self.max_requests} requests in flight", "request", request_id=request_id
            )
        self.working += count

    def end_work(self, count: int) -> None:
        self.working -= count

    def open_stream(self, key: ClientKey, what: str, request_id: Any = None) -> None:
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
    def stream(self, key: ClientKey, what: str, request_id: Any = None) -> Iterator[None]:
        """A stream's slot while the block runs."""
        self.open_stream(key, what, request_id)
        try:
            yield
        finally:
            self.close_stream(key)

    def refuse(
        self, limit: str, message: str, what: str, key: ClientKey | None = None, request_id: Any = None
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
