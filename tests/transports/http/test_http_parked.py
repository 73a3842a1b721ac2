"""Acknowledged listen streams and legacy GET streams on the built-in server are parked: no task
of theirs is left, yet each hears every change in order, counts against the stream limit until its
client leaves, and ends as before (a listen stream with its closing result at shutdown, a GET
stream with its session).  hypercorn keeps them in their requests, as before."""

from __future__ import annotations

import contextlib

import httpx
import pytest
import trio

from mcptrio import App
from mcptrio.transports.http import HttpConfig

from .client import SUBSCRIPTION_ID, SseReader, http_server, initialize, legacy_headers, new_client, wait_until
from .test_http_fanout import URIS, RawListener

STREAMS = 8


def _tasks() -> int:
    """Every task of this Trio run."""

    def count(task: trio.lowlevel.Task) -> int:
        return 1 + sum(count(child) for nursery in task.child_nurseries for child in nursery.child_tasks)

    root = trio.lowlevel.current_root_task()
    assert root is not None
    return count(root)


async def _open_streams(client: httpx.AsyncClient, url: str) -> int:
    response = await client.get(url.replace("/mcp", "/readyz"))
    return int(response.json()["streams"]["open"])


@pytest.mark.parametrize("server", ["builtin", "hypercorn"])
async def test_listen_streams_park_on_the_builtin_server_only(app: App, server: str) -> None:
    quiet = HttpConfig(keepalive_interval=3600)  # (no comment line's task while the tasks are counted)
    async with http_server(app, server=server, config=quiet) as url, new_client() as client:
        with trio.fail_after(20):
            await trio.sleep(0.1)  # (the servers' own tasks settle)
            before = _tasks()
            listeners = [await RawListener.open(url, f"sub-{n}", URIS) for n in range(STREAMS)]
            await trio.sleep(0.1)
            added = _tasks() - before
            if server == "builtin":
                assert added == 0, f"{added} tasks left for {STREAMS} parked streams"
            else:
                assert added >= STREAMS, added
            assert await _open_streams(client, url) == STREAMS
            for uri in URIS:
                await app.notify_resource_updated(uri)
            for listener in listeners:
                await listener.read_until(len(URIS))
                assert listener.updated() == URIS
            for listener in listeners[:3]:
                await listener.stream.aclose()
            await wait_until(lambda: len(app.listeners) == STREAMS - 3, 5, "the closed streams' listeners dropped")
            assert await _open_streams(client, url) == STREAMS - 3, "their stream slots were freed"
            await app.notify_resource_updated(URIS[0])
            for listener in listeners[3:]:
                await listener.read_until(len(URIS) + 1)
                assert listener.updated() == URIS + URIS[:1]
    with trio.fail_after(10):  # the server stopped: each open stream ended with its closing result
        for n, listener in enumerate(listeners[3:], 3):
            while not listener.ended:
                await listener.read()
            last = listener.messages[-1]
            assert last["id"] == f"sub-{n}" and last["result"]["_meta"][SUBSCRIPTION_ID] == f"sub-{n}", last
    assert not app.listeners


async def test_a_parked_stream_that_stops_reading_is_cut_off_alone(app: App) -> None:
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(60):
            stuck = await RawListener.open(url, "stuck", URIS, receive_buffer=4096)
            reader = await RawListener.open(url, "reader", URIS)
            told: list[str] = []
            while len(app.listeners) == 2 and len(told) < 100_000:
                for n in range(500):  # (each change lets the other tasks run, as separate calls' would)
                    await app.notify_resource_updated(URIS[n % len(URIS)])
                    told.append(URIS[n % len(URIS)])
                    await trio.lowlevel.checkpoint()
                await reader.read_until(len(told))
                assert reader.updated() == told
            assert len(app.listeners) == 1, "the stream that stopped reading was cut off"
            assert await _open_streams(client, url) == 1
            await reader.stream.aclose()
            await stuck.stream.aclose()


async def test_legacy_get_streams_park_and_end_with_their_sessions(app: App) -> None:
    quiet = HttpConfig(keepalive_interval=3600)
    async with http_server(app, config=quiet) as url, new_client() as client:
        with trio.fail_after(20):
            sessions = [await initialize(client, url) for _ in range(3)]
            await trio.sleep(0.1)
            before = _tasks()
            async with contextlib.AsyncExitStack() as streams:
                readers = []
                for session_id in sessions:
                    get = client.stream("GET", url, headers=legacy_headers(session_id))
                    response = await streams.enter_async_context(get)
                    assert response.status_code == 200
                    readers.append(SseReader(response))
                await wait_until(lambda: _tasks() == before, 5, "no task left for the parked GET streams")
                assert await _open_streams(client, url) == 3
                await app.notify_tools_changed()
                for reader in readers:
                    message = await reader.next_message()
                    assert message["method"] == "notifications/tools/list_changed", message
                deleted = await client.delete(url, headers=legacy_headers(sessions[0]))
                assert deleted.status_code == 200
                assert await readers[0].next_message() is None, "the session's end ended its stream"
                assert await _open_streams(client, url) == 2
                await app.notify_tools_changed()
                for reader in readers[1:]:
                    message = await reader.next_message()
                    assert message["method"] == "notifications/tools/list_changed", message
            await wait_until(lambda: _tasks() == before, 5, "the closed streams left nothing behind")
            assert await _open_streams(client, url) == 0
