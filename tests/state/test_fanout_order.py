"""With workers sharing a real Redis, a change made on one is handed to Redis for the others before
it is written to this worker's own listen streams, so the workers fan out at the same time, not
one after the other.  A Redis that does not take it holds this worker's streams back only briefly
(``TELL_WAIT``); each stream hears each change once, in order."""

from __future__ import annotations

import contextlib

import trio
from coredis.tokens import PureToken

from mcptrio import App
from mcptrio.client import connect
from mcptrio.state import parse_state_url
from mcptrio.state.fanout import ResourceUpdated
from mcptrio.state.redis import TELL_WAIT, open_redis_state

from ..transports.http.client import http_server
from ..transports.http.test_http_fanout import RawListener

URIS = ["test://order/1", "test://order/2"]


def touching_app() -> App:
    app = App("worker")

    @app.tool()
    async def touch(uri: str) -> str:
        await app.notify_resource_updated(uri)
        return "touched"

    return app


async def test_redis_takes_a_change_before_this_workers_streams_hear_it_and_each_hears_it_once(redis):
    async with contextlib.AsyncExitStack() as stack:
        here, there = [await stack.enter_async_context(http_server(touching_app(), state=redis.url)) for _ in "ab"]
        admin = await stack.enter_async_context(open_redis_state(parse_state_url(redis.url)))
        touching = await stack.enter_async_context(connect(here, era="modern"))
        with trio.fail_after(20):
            local = await RawListener.open(here, "local", URIS)
            remote = await RawListener.open(there, "remote", URIS)
            await admin.execute(admin.client.client_pause(20_000, PureToken.WRITE))  # Redis holds every write
            async with trio.open_nursery() as nursery:
                started = trio.current_time()
                nursery.start_soon(touching.call_tool, "touch", {"uri": URIS[0]})
                await local.read_until(1)
                waited = trio.current_time() - started
                with trio.move_on_after(0.3):
                    await remote.read_until(1)
                assert remote.updated() == [], "the other worker's stream heard it while Redis held it"
                await admin.execute(admin.client.client_unpause())
                await remote.read_until(1)
            # This worker's stream waited for Redis to take the change first, though not until it did.
            assert TELL_WAIT <= waited < 10, waited
            await touching.call_tool("touch", {"uri": URIS[1]})
            for listener in (local, remote):
                with trio.move_on_after(0.3):  # (anything more would be a change told twice)
                    await listener.read_until(len(URIS) + 1)
                assert listener.updated() == URIS


async def test_this_workers_own_fan_out_happens_even_when_its_caller_is_cancelled_meanwhile(redis):
    told: list[str] = []
    url = parse_state_url(redis.url)
    async with open_redis_state(url) as admin, open_redis_state(url) as state:
        await admin.execute(admin.client.client_pause(20_000, PureToken.WRITE))  # the publish waits
        with trio.fail_after(10):
            with trio.move_on_after(TELL_WAIT / 5) as cancelled:  # (while it waits for Redis)
                await state.tell_first(ResourceUpdated("test://order/1"), "a change", lambda: told.append("here"))
            await admin.execute(admin.client.client_unpause())
    assert cancelled.cancelled_caught and told == ["here"]
