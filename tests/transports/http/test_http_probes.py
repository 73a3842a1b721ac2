"""The prober (exchange.py): one task writes the comment lines of every open stream, spread in time.

Through the ASGI app on a MockClock (what each POST was sent, and when), and on the real HTTP server:
a running call's stream is still probed every ``probe_interval`` (within ``max_probe_rate``, and at
least every ``keepalive_interval``), a client that goes away still has its handler cancelled, and a
client that stopped reading holds up no other stream's probes.
"""

import collections

import trio

from mcptrio.transports.http import HttpConfig, McpHttpApp

from .asgi_fake import FakeRequest, body_writes
from .client import http_server, modern, modern_tool, new_client, start_lifespan, wait_until

COMMENT = b":\n\n"


class TimedRequest(FakeRequest):
    """A FakeRequest that notes when each comment line was sent (MockClock time)."""

    def __init__(self, *args):
        super().__init__(*args)
        self.probed_at = []

    async def send(self, message):
        if message["type"] == "http.response.body" and message["body"].endswith(COMMENT):
            self.probed_at.append(trio.current_time())
        await super().send(message)


def slow_calls(count, seconds=60):
    return [TimedRequest(*modern_tool("sleep", {"seconds": seconds}, n)) for n in range(count)]


async def test_one_task_probes_every_open_call_in_turn_spread_in_time(app, autojump_clock):
    """Twenty calls that turned into streams at the same instant are not probed at the same instant:
    each gets a comment every probe_interval, at its own point of the interval."""
    config = HttpConfig(probe_interval=0.5)
    asgi = McpHttpApp(app, config)
    async with trio.open_nursery() as nursery:
        await start_lifespan(nursery, asgi)
        calls = slow_calls(20)
        for call in calls:
            nursery.start_soon(call.run, asgi)
        await trio.sleep(config.stream_after + 0.001)  # every one is an event stream by now
        start = trio.current_time()
        for call in calls:
            assert call.probed_at[0] == config.stream_after, "a comment as the stream opened"
        await trio.sleep(10)
        for call in calls:
            probes = [t for t in call.probed_at if t > start]
            assert 19 <= len(probes) <= 21, probes  # 10 s at 0.5 s
            gaps = [b - a for a, b in zip(probes, probes[1:])]
            assert all(abs(gap - config.probe_interval) < 0.05 for gap in gaps), gaps
        instants = collections.Counter(t for call in calls for t in call.probed_at if t > start + 1)
        assert len(instants) >= 0.8 * sum(instants.values()), "probes spread over the interval, not in bursts"
        assert app.stats == {"started": 20, "finished": 0, "cancelled": 0}
        nursery.cancel_scope.cancel()


async def test_beyond_the_probe_budget_each_call_is_probed_less_often_but_within_keepalive(app, autojump_clock):
    config = HttpConfig(probe_interval=0.5, max_probe_rate=10, keepalive_interval=15.0)
    asgi = McpHttpApp(app, config)
    async with trio.open_nursery() as nursery:
        await start_lifespan(nursery, asgi)
        calls = slow_calls(50, seconds=600)  # 50 calls at 10 probes a second: each every 5 s
        for call in calls:
            nursery.start_soon(call.run, asgi)
        await trio.sleep(1)
        start = trio.current_time()
        await trio.sleep(30)
        probes = sorted(t for call in calls for t in call.probed_at if t > start)
        assert len(probes) <= 10 * 30 + 10, "within the budget"
        for call in calls:
            assert 5 <= len([t for t in call.probed_at if t > start]) <= 7, call.probed_at
        more = slow_calls(400, seconds=600)  # 450 calls: 45 s at the budget, so keepalive_interval rules
        for call in more:
            nursery.start_soon(call.run, asgi)
        await trio.sleep(1)
        start = trio.current_time()
        await trio.sleep(45)
        for call in calls + more:
            times = [start] + [t for t in call.probed_at if t > start] + [trio.current_time()]
            assert max(b - a for a, b in zip(times, times[1:])) <= config.keepalive_interval + 0.1, times
        nursery.cancel_scope.cancel()


async def test_a_client_that_stopped_reading_holds_up_no_other_streams_probes(app, autojump_clock):
    """A probe waits on its own client only: one whose socket is full never gets a second probe
    queued behind the first, and the others are probed as usual."""
    config = HttpConfig(probe_interval=0.5)
    asgi = McpHttpApp(app, config)
    stuck_writes = []

    class StoppedReading(TimedRequest):
        async def send(self, message):
            if self.probed_at and message["type"] == "http.response.body":
                stuck_writes.append(trio.current_time())
                await trio.sleep_forever()  # as a server's send_all with the socket's buffer full
            await super().send(message)

    async with trio.open_nursery() as nursery:
        await start_lifespan(nursery, asgi)
        stuck = StoppedReading(*modern_tool("sleep", {"seconds": 60}, 0))
        others = slow_calls(3)
        for call in [stuck, *others]:
            nursery.start_soon(call.run, asgi)
        await trio.sleep(10)
        assert len(stuck_writes) == 1, "no probe queues behind the one that cannot be written"
        for call in others:
            assert len(call.probed_at) >= 19
        nursery.cancel_scope.cancel()


async def test_a_call_that_ends_leaves_the_ring_and_a_gone_client_is_still_cancelled(app, autojump_clock):
    asgi = McpHttpApp(app, HttpConfig(probe_interval=0.5))
    async with trio.open_nursery() as nursery:
        await start_lifespan(nursery, asgi)
        short, gone = slow_calls(2, seconds=3)
        nursery.start_soon(short.run, asgi)
        nursery.start_soon(gone.run, asgi)
        await trio.sleep(1)
        assert len(asgi.watchers.prober.calls.members) == 2
        gone.leave.set()  # the client closes its connection
        with trio.fail_after(1):
            await gone.done.wait()
        assert app.stats["cancelled"] == 1
        await short.done.wait()
        assert body_writes(short)[-1].endswith(b"\n\n") and b'"result"' in body_writes(short)[-1]
        await trio.sleep(0)
        assert not asgi.watchers.prober.calls.members, "neither stays in the prober's ring"
        nursery.cancel_scope.cancel()


async def test_listen_streams_share_the_prober_at_keepalive_interval(app, autojump_clock):
    asgi = McpHttpApp(app, HttpConfig(probe_interval=0.5, keepalive_interval=15.0))
    async with trio.open_nursery() as nursery:
        await start_lifespan(nursery, asgi)
        listens = [
            TimedRequest(*modern("subscriptions/listen", {"notifications": {"toolsListChanged": True}}, n))
            for n in range(30)
        ]
        for listen in listens:
            nursery.start_soon(listen.run, asgi)
        await trio.sleep(1)
        start = trio.current_time()
        await trio.sleep(60)
        for listen in listens:
            assert len([t for t in listen.probed_at if t > start]) == 4  # every 15 s
        assert len(collections.Counter(t for listen in listens for t in listen.probed_at if t > start)) == 120
        nursery.cancel_scope.cancel()


async def test_over_real_http_a_streamed_call_gets_comments_and_closing_it_cancels_the_handler(app):
    """Real sockets and clock: comment lines arrive on the stream, and the close is seen."""
    config = HttpConfig(stream_after=0.05, probe_interval=0.05)
    async with http_server(app, config=config) as url, new_client() as client:
        with trio.fail_after(20):
            body, headers = modern_tool("sleep", {"seconds": 60}, 1)
            async with client.stream("POST", url, json=body, headers=headers) as response:
                assert response.headers["content-type"].startswith("text/event-stream")
                comments = 0
                async for chunk in response.aiter_raw():
                    comments += chunk.count(COMMENT)
                    if comments >= 3:
                        break
            await wait_until(lambda: app.stats["cancelled"] == 1, 10, f"the handler is cancelled ({app.stats})")
    assert app.stats["finished"] == 0


def test_a_ring_keeps_no_reference_to_streams_that_ended():
    """Turns of ended streams are skipped, and dropped before they pile up (a stream holds its
    response's machinery): many short slow calls must not keep theirs alive for an interval."""
    import gc
    import weakref

    from mcptrio.transports.http.exchange import Ring

    class Stream:
        pass

    ring = Ring(15.0)
    streams = [Stream() for _ in range(1000)]
    refs = [weakref.ref(stream) for stream in streams]
    for stream in streams:
        ring.add(stream, 0.0)
    for stream in streams[:-1]:
        ring.discard(stream)
    del streams, stream
    gc.collect()
    assert sum(ref() is not None for ref in refs) <= 66, "at most the live one and a few turns not yet dropped"
    assert [ref() for ref in refs][-1] is not None
    assert ring.due(15.0) == [refs[-1]()]
