"""An idle legacy HTTP session costs little memory and gives it back when it ends (tracemalloc,
through the ASGI app itself; only allocations made under mcptrio's code are counted)."""

import gc
import os
import tracemalloc

import orjson
import pytest
import trio

import mcptrio
from mcptrio.transports.http import McpHttpApp

from .client import start_lifespan

HEADERS = [
    (b"host", b"127.0.0.1:8000"),
    (b"content-type", b"application/json"),
    (b"accept", b"application/json, text/event-stream"),
]
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "m", "version": "1"}},
}


async def asgi_call(asgi, method, body=None, extra=()):
    scope = {"type": "http", "method": method, "path": "/mcp", "headers": HEADERS + list(extra), "query_string": b""}
    pending = [{"type": "http.request", "body": orjson.dumps(body) if body is not None else b"", "more_body": False}]
    sent = []

    async def receive():
        if pending:
            return pending.pop()
        await trio.sleep_forever()

    async def send(message):
        sent.append(message)

    await asgi(scope, receive, send)
    return sent[0]["status"], dict(sent[0]["headers"])


async def open_session(asgi):
    status, headers = await asgi_call(asgi, "POST", INIT)
    assert status == 200
    session_id = headers[b"mcp-session-id"]
    status, _ = await asgi_call(
        asgi, "POST", {"jsonrpc": "2.0", "method": "notifications/initialized"}, [(b"mcp-session-id", session_id)]
    )
    assert status == 202
    return session_id


# The package's own files only: a checkout named "mcptrio" (as a clone of the project is) must not
# pull in the tests, the venv's site-packages and everything else under it.
MCPTRIO_CODE = [tracemalloc.Filter(True, os.path.join(os.path.dirname(mcptrio.__file__), "*"), all_frames=True)]


def traced_under_mcptrio() -> int:
    """Bytes alive now that were allocated with mcptrio code on the stack."""
    snapshot = tracemalloc.take_snapshot().filter_traces(MCPTRIO_CODE)
    return sum(stat.size for stat in snapshot.statistics("filename"))


async def flush_trio_deadline_heap() -> None:
    """Trio keeps up to ~1,000 stale entries (exited cancel scopes with deadlines) in its deadline
    heap and prunes them in a batch; churn past that bound so the stale ones from the sessions go."""
    for _ in range(1500):
        with trio.move_on_after(3600):
            await trio.lowlevel.checkpoint()


@pytest.mark.parametrize("lifespan", [True, False], ids=["with-lifespan", "without-lifespan"])
async def test_idle_sessions_cost_under_4kb_and_are_returned_after_delete(lifespan):
    app = mcptrio.App("memory")

    @app.tool()
    async def echo(text: str) -> str:
        return text

    asgi = McpHttpApp(app)
    async with trio.open_nursery() as nursery:
        if lifespan:  # as under a real server: the watchers' supervisor runs in the lifespan task
            await start_lifespan(nursery, asgi)
            assert asgi.watchers.running
        for _ in range(20):  # warm caches and code paths
            await asgi_call(asgi, "DELETE", extra=[(b"mcp-session-id", await open_session(asgi))])
        count = 500
        gc.collect()
        tracemalloc.start(12)
        try:
            before = traced_under_mcptrio()
            ids = [await open_session(asgi) for _ in range(count)]
            gc.collect()
            per_session = (traced_under_mcptrio() - before) / count
            for session_id in ids:
                status, _ = await asgi_call(asgi, "DELETE", extra=[(b"mcp-session-id", session_id)])
                assert status == 200
            del ids
            await flush_trio_deadline_heap()
            gc.collect()
            residue = (traced_under_mcptrio() - before) / count
        finally:
            tracemalloc.stop()
        nursery.cancel_scope.cancel()
    print(f"{per_session:.0f} bytes per idle session, {residue:.0f} bytes left per session after DELETE")
    assert per_session <= 4096
    assert residue <= 256
    assert len(asgi.sessions) == 0 and not app.sessions
