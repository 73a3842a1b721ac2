"""``GET /healthz`` (the process answers) and ``GET /readyz`` (plugins loaded, not draining).

Outside the MCP path, the token check and the Host/Origin check: a probe from a load balancer or
a kubelet names the pod's address as Host, and these answers carry nothing a rebinding attack
could read.  ``/readyz`` turns ``503`` with ``Retry-After`` once a drain starts, so the balancer
stops sending new clients while the requests in flight finish.  ``/readyz`` also shows each
limit of capacity.py, how much of it is in use and how many requests or streams it refused.
Both are cheap enough to poll every second.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from ..net.capacity import Capacity
    from .exchange import Sink

HEADERS = [(b"content-type", b"application/json"), (b"cache-control", b"no-store")]
ALIVE = orjson.dumps({"status": "ok"})
DRAINING = orjson.dumps({"status": "draining"})


def ready_body(plugins: list[str], capacity: Capacity) -> bytes:
    body: dict[str, Any] = {"status": "ready", "plugins": plugins, **capacity.report()}
    return orjson.dumps(body)


async def answer(
    sink: Sink, method: str, *, alive: bool, draining: bool, plugins: list[str], capacity: Capacity
) -> None:
    """The answer of the health route ``alive`` (``/healthz``) or readiness (``/readyz``)."""
    if method not in ("GET", "HEAD"):
        await sink.respond(405, b"Method Not Allowed", [(b"allow", b"GET, HEAD")])
        return
    if alive:
        status, body, extra = 200, ALIVE, []
    elif draining:
        status, body, extra = 503, DRAINING, [(b"retry-after", b"5")]
    else:
        status, body, extra = 200, ready_body(plugins, capacity), []
    await sink.respond(status, body if method == "GET" else b"", HEADERS + extra)
