"""Watching running POSTs for a gone client (exchange.py), through the ASGI app on a MockClock.

With a lifespan, one supervisor starts a watcher only for requests still running after
``watch_after``; without one, every POST watches for itself.  Either way a client that goes
away cancels its request, and a quick request never gets a watcher task.
"""

import sys

import orjson
import pytest
import trio

from mcptrio.transports.http import HttpConfig, McpHttpApp

from .asgi_fake import FakeRequest, body_writes
from .client import (
    CLIENT_INFO,
    LEGACY,
    call_tool,
    legacy_headers,
    modern,
    modern_tool,
    notification,
    parse_sse,
    rpc,
    start_lifespan,
)


def watcher_tasks(asgi):
    """Tasks in the supervisor's nursery besides the prober (exchange.py), which runs there for good."""
    return sum("Prober.run" not in task.name for task in asgi.watchers.nursery.child_tasks)


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


async def open_legacy_session(asgi):
    params = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": CLIENT_INFO}
    init = FakeRequest(rpc("initialize", params, "init"), legacy_headers(version=None))
    await init.run(asgi)
    session_id = dict(init.sent[0]["headers"])[b"mcp-session-id"].decode()
    done = FakeRequest(notification("notifications/initialized"), legacy_headers(session_id))
    await done.run(asgi)
    assert done.sent[0]["status"] == 202
    return session_id


async def test_sse_a_quick_answer_is_one_sized_body_with_its_priming_event(app, autojump_clock):
    asgi = McpHttpApp(app, HttpConfig(response_mode="sse"))
    async with trio.open_nursery() as nursery:
        await start_lifespan(nursery, asgi)
        session_id = await open_legacy_session(asgi)
        call = FakeRequest(call_tool("echo", {"text": "hi"}, 7), legacy_headers(session_id))
        await call.run(asgi)
        writes = body_writes(call)
        assert len(writes) == 1 and call.sent[-1]["more_body"] is False
        assert (b"content-type", b"text/event-stream") in call.sent[0]["headers"]
        assert (b"content-length", str(len(writes[0])).encode()) in call.sent[0]["headers"], "no chunked encoding"
        priming, answer = parse_sse(writes[0].decode())
        assert priming.data == "" and priming.id and priming.retry
        assert answer.message["id"] == 7 and answer.message["result"]["content"][0]["text"] == "hi"
        nursery.cancel_scope.cancel()


async def test_sse_a_slow_request_gets_its_priming_event_when_the_watcher_starts(app, autojump_clock):
    config = HttpConfig(response_mode="sse", watch_after=0.05)
    asgi = McpHttpApp(app, config)
    async with trio.open_nursery() as nursery:
        await start_lifespan(nursery, asgi)
        session_id = await open_legacy_session(asgi)
        call = FakeRequest(call_tool("sleep", {"seconds": 5}, 8), legacy_headers(session_id))
        nursery.start_soon(call.run, asgi)
        await trio.sleep(0.01)
        assert call.sent == [], "the start and priming event wait for the first event, probe or the watcher"
        await trio.sleep(2 * config.watch_after + 0.01)
        assert call.sent[0]["type"] == "http.response.start"
        assert (b"content-type", b"text/event-stream") in call.sent[0]["headers"]
        assert not any(name == b"content-length" for name, _ in call.sent[0]["headers"]), "a stream of unknown length"
        first = parse_sse(body_writes(call)[0].decode())[0]
        assert first.data == "" and first.id and first.retry
        await call.done.wait()
        final = [e for w in body_writes(call) for e in parse_sse(w.decode()) if e.data]
        assert final[-1].message["id"] == 8
        nursery.cancel_scope.cancel()


async def test_a_listen_streams_notification_pump_ends_with_its_post(app, autojump_clock):
    """Posted notifications are pumped from the supervisor's nursery; the POST's end stops the pump."""
    asgi = McpHttpApp(app)
    async with trio.open_nursery() as nursery:
        await start_lifespan(nursery, asgi)
        listen = FakeRequest(*modern("subscriptions/listen", {"notifications": {"toolsListChanged": True}}, 1))
        nursery.start_soon(listen.run, asgi)
        await trio.sleep(1)  # acknowledged, and watched by now
        await app.notify_tools_changed()
        await trio.sleep(0.1)
        events = [e.message for w in body_writes(listen) for e in parse_sse(w.decode()) if e.data]
        assert [m["method"] for m in events] == [
            "notifications/subscriptions/acknowledged",
            "notifications/tools/list_changed",
        ]
        assert watcher_tasks(asgi) == 2  # the listen request's watcher and its notification pump
        listen.leave.set()  # the client closes the stream
        with trio.fail_after(1):
            await listen.done.wait()
        await trio.sleep(0.1)
        assert watcher_tasks(asgi) == 0, "neither the watcher nor the pump outlives its POST"
        nursery.cancel_scope.cancel()


def frames_above(outer: str) -> int:
    """Frames between the caller and the nearest enclosing frame running function ``outer``."""
    frame, count = sys._getframe(2), 0
    while frame.f_code.co_name != outer:
        frame, count = frame.f_back, count + 1
    return count


@pytest.mark.parametrize("mode", ["json", "sse"])
async def test_the_answer_leaves_from_the_top_of_the_posts_task_once_its_request_is_done(app, autojump_clock, mode):
    """A server's writes pass through the scheduler several times per answer, and each
    trip resumes every frame of the await chain; the answer is sent as the POST's task unwinds,
    so it pays for one frame of mcptrio instead of twenty, and the request has already left
    the in-flight counts when the client can read the answer and send the next one."""
    asgi = McpHttpApp(app, HttpConfig(response_mode=mode))
    seen = []

    class Observed(FakeRequest):
        async def send(self, message):
            if message["type"] == "http.response.body":
                seen.append(
                    (
                        frames_above("__call__"),
                        asgi.requests_in_flight,
                        session.dispatcher.in_flight() if session else 0,
                    )
                )
            await super().send(message)

    async with trio.open_nursery() as nursery:
        await start_lifespan(nursery, asgi)
        session_id = await open_legacy_session(asgi)
        session = asgi.sessions.get(session_id)
        await Observed(call_tool("echo", {"text": "hi"}, 1), legacy_headers(session_id)).run(asgi)
        session = None
        await Observed(*modern_tool("echo", {"text": "hi"}, 2)).run(asgi)
        nursery.cancel_scope.cancel()
    assert seen == [(1, 0, 0), (1, 0, 0)]


async def test_a_sink_holds_the_final_answer_only_for_the_task_that_owns_it():
    """A GET's sink may carry a resumed POST's answer, written by that POST's task: sent at once."""
    from mcptrio.transports.http.exchange import Sink

    sent = []

    async def send(message):
        sent.append(message["type"])

    owned, borrowed = Sink(send), Sink(send)
    owned.owner_sends_final = True
    await owned.respond(200, b"{}", [], final=True)
    assert sent == [], "held for the owner's send_final"
    await owned.write(b"late", end=True)
    assert sent == [], "the response has ended: nothing more is written"
    await owned.send_final()
    assert sent == ["http.response.start", "http.response.body"]
    await owned.send_final()
    assert len(sent) == 2, "sent once"
    sent.clear()
    borrowed.hold_start(200, [])
    await borrowed.write(b"data: {}\n\n", end=True, final=True)
    assert sent == ["http.response.start", "http.response.body"]


@pytest.mark.parametrize("lifespan", [True, False], ids=["supervisor", "per-post"])
@pytest.mark.parametrize("timeout", [1.0, 0.004], ids=["armed-by-the-watcher", "shorter-than-watch_after"])
async def test_a_slow_request_times_out_at_its_own_deadline(app, autojump_clock, lifespan, timeout):
    """Quick requests never register a deadline with Trio; the watcher arms it at its original time."""
    from mcptrio.runtime.limits import SessionLimits

    asgi = McpHttpApp(app, HttpConfig(response_mode="json"), SessionLimits(request_timeout=timeout))
    async with trio.open_nursery() as nursery:
        if lifespan:
            await start_lifespan(nursery, asgi)
        request = FakeRequest(*modern_tool("sleep", {"seconds": 60}, 1))
        started = trio.current_time()
        await request.run(asgi)
        assert trio.current_time() - started == pytest.approx(timeout)
        answer = orjson.loads(body_writes(request)[0])
        assert answer["result"]["isError"] is True and "timed out" in answer["result"]["content"][0]["text"]
        assert app.stats["cancelled"] == 1
        nursery.cancel_scope.cancel()


async def test_a_listen_stream_gets_keepalive_comments_not_twice_a_second_probes(app, autojump_clock):
    """A call's stream is probed every probe_interval (a gone client's work is cancelled sooner);
    a listen stream does no such work: a comment every keepalive_interval keeps proxies awake."""
    asgi = McpHttpApp(app, HttpConfig(probe_interval=0.5, keepalive_interval=15.0))
    async with trio.open_nursery() as nursery:
        await start_lifespan(nursery, asgi)
        listen = FakeRequest(*modern("subscriptions/listen", {"notifications": {"toolsListChanged": True}}, 1))
        call = FakeRequest(*modern_tool("sleep", {"seconds": 60}, 2))
        nursery.start_soon(listen.run, asgi)
        nursery.start_soon(call.run, asgi)
        await trio.sleep(10)
        comments = lambda request: sum(w.count(b":\n\n") for w in body_writes(request))  # noqa: E731
        # One as the stream opened, perhaps its first turn (at a random point of its first 15 s).
        assert comments(listen) <= 2 and comments(call) >= 15
        before = comments(listen)
        await trio.sleep(30)
        assert comments(listen) - before == 2
        nursery.cancel_scope.cancel()
