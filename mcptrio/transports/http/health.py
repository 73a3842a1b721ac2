"""``GET /healthz`` (the process answers) and ``GET /readyz`` (plugins loaded, not draining).

Outside the MCP path, the token check and the Host/Origin check: a probe from a load balancer or
a kubelet names the pod's address as Host, and these answers carry nothing a rebinding attack
could read.  ``/readyz`` turns ``503`` with ``Retry-After`` once a drain starts, so the balancer
stops sending new clients while the requests in flight finish.  ``/readyz`` also shows each
limit of front_door.py, how much of it is in use and how many requests or streams it refused,
and what the app adds (``App.readiness``: a gateway's upstreams), any of which may hold it at
``503`` while it says it is not ready.  Both are cheap enough to poll every second.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from ...app.app import Readiness
    from ..net.front_door import Capacity
    from .exchange import Sink

HEADERS = [(b"content-type", b"application/json"), (b"cache-control", b"no-store")]
ALIVE = orjson.dumps({"status": "ok"})
DRAINING = orjson.dumps({"status": "draining"})


def ready_body(plugins: list[str], capacity: Capacity, readiness: Sequence[Readiness] = ()) -> tuple[bool, bytes]:
    """Whether every report lets the server be ready, and the body that says so."""
    body: dict[str, Any] = {"status": "ready", "plugins": plugins, **capacity.report()}
    ready = True
    for report in readiness:
        key, shown, ok = report()
        body[key] = shown
        ready = ready and ok
    if not ready:
        body["status"] = "not ready"
    return ready, orjson.dumps(body)


async def answer(
    sink: Sink,
    method: str,
    *,
    alive: bool,
    draining: bool,
    plugins: list[str],
    capacity: Capacity,
    readiness: Sequence[Readiness] = (),
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
        ready, body = ready_body(plugins, capacity, readiness)
        status, extra = (200, []) if ready else (503, [(b"retry-after", b"5")])
    await sink.respond(status, body if method == "GET" else b"", HEADERS + extra)
