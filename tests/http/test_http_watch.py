"""Watching running POSTs for a gone client (watch.py), through the ASGI app on a MockClock.

With a lifespan, one supervisor starts a watcher only for requests still running after
``watch_after``; without one, every POST watches for itself.  Either way a client that goes
away cancels its request, and a quick request never gets a watcher task.
"""

import orjson
import pytest
import trio

from mcptrio.transports.http import HttpConfig, McpHttpApp

from .client import modern_tool

HEADERS = [(b"host", b"127.0.0.1:8000"), (b"content-type", b"application/json"),
           (b"accept", b"application/json, text/event-stream")]


class FakeRequest:
    """One POST through the ASGI app: its body, then ``http.disconnect`` when ``leave`` is set."""

    def __init__(self, body, headers):
        self.scope = {"type": "http", "method": "POST", "path": "/mcp", "query_string": b"",
                      "headers": HEADERS + [(k.lower().encode(), v.encode()) for k, v in headers.items()]}
        self.body = orjson.dumps(body)
        self.leave = trio.Event()
        self.sent = []
        self.done = trio.Event()

    async def receive(self):
        if self.body is not None:
            body, self.body = self.body, None
            return {"type": "http.request", "body": body, "more_body": False}
        await self.leave.wait()
        return {"type": "http.disconnect"}

    async def send(self, message):
        self.sent.append(message)
        if not message.get("more_body", True):
            self.leave.set()  # as hypercorn and uvicorn do once the response is complete

    async def run(self, asgi):
        try:
            await asgi(self.scope, self.receive, self.send)
        finally:
            self.done.set()


async def start_lifespan(nursery, asgi):
    to_app, from_server = trio.open_memory_channel(1)
    started = trio.Event()

    async def send(message):
        if message["type"] == "lifespan.startup.complete":
            started.set()

    nursery.start_soon(asgi, {"type": "lifespan"}, from_server.receive, send)
    await to_app.send({"type": "lifespan.startup"})
    await started.wait()
    return to_app


def watcher_tasks(asgi):
    return len(asgi.watchers.nursery.child_tasks)


@pytest.mark.parametrize("lifespan", [True, False], ids=["supervisor", "per-post"])
async def test_a_client_that_goes_away_cancels_its_request(app, autojump_clock, lifespan):
    asgi = McpHttpApp(app, HttpConfig(response_mode="json"))
    async with trio.open_nursery() as nursery:
        if lifespan:
            await start_lifespan(nursery, asgi)
        assert asgi.watchers.running is lifespan
        request = FakeRequest(*modern_tool("sleep", {"seconds": 60}, 1))
        nursery.start_soon(request.run, asgi)
        await trio.sleep(1)
        assert app.stats == {"started": 1, "finished": 0, "cancelled": 0}
        request.leave.set()
        with trio.fail_after(1):
            await request.done.wait()
        assert app.stats == {"started": 1, "finished": 0, "cancelled": 1}
        assert asgi.requests_in_flight == 0 and not asgi.active
        nursery.cancel_scope.cancel()


async def test_only_requests_still_running_after_watch_after_get_a_watcher(app, autojump_clock):
    asgi = McpHttpApp(app, HttpConfig(response_mode="json", watch_after=0.05))
    async with trio.open_nursery() as nursery:
        await start_lifespan(nursery, asgi)
        quick = FakeRequest(*modern_tool("echo", {"text": "hi"}, 1))
        await quick.run(asgi)
        assert orjson.loads(quick.sent[1]["body"])["result"]["content"][0]["text"] == "hi"
        await trio.sleep(0.2)
        assert watcher_tasks(asgi) == 0, "an answered request was never watched"

        slow = FakeRequest(*modern_tool("sleep", {"seconds": 1}, 2))
        nursery.start_soon(slow.run, asgi)
        await trio.sleep(0.04)
        assert watcher_tasks(asgi) == 0
        await trio.sleep(0.1)  # past watch_after (and the supervisor's next look)
        assert watcher_tasks(asgi) == 1
        await slow.done.wait()
        assert app.stats == {"started": 1, "finished": 1, "cancelled": 0}
        await trio.sleep(0)
        assert watcher_tasks(asgi) == 0, "the watcher ends with its request"
        nursery.cancel_scope.cancel()


async def test_when_the_supervisor_stops_posts_watch_for_themselves(app, autojump_clock):
    asgi = McpHttpApp(app, HttpConfig(response_mode="json"))
    async with trio.open_nursery() as lifespan:
        await start_lifespan(lifespan, asgi)
        assert asgi.watchers.running
        lifespan.cancel_scope.cancel()
    assert not asgi.watchers.running
    async with trio.open_nursery() as nursery:
        request = FakeRequest(*modern_tool("sleep", {"seconds": 60}, 1))
        nursery.start_soon(request.run, asgi)
        await trio.sleep(1)
        request.leave.set()
        with trio.fail_after(1):
            await request.done.wait()
    assert app.stats == {"started": 1, "finished": 0, "cancelled": 1}
