"""Idle legacy sessions expire (``session_idle_timeout``); a session in use does not."""

import trio

from mcptrio.transports.http import HttpConfig, McpHttpApp
from mcptrio.transports.http.legacy.sessions import SessionTable

from ..asgi_fake import FakeRequest
from ..client import (
    LEGACY,
    SseReader,
    call_tool,
    http_server,
    initialize,
    legacy_headers,
    messages_of,
    new_client,
    rpc,
    start_lifespan,
    text_of,
)

TINY = HttpConfig(session_idle_timeout=0.2)


async def test_idle_session_expires_then_404(app):
    async with http_server(app, config=TINY) as url, new_client() as client:
        with trio.fail_after(10):
            session_id = await initialize(client, url)
            ok = await client.post(url, json=rpc("ping", {}, 1), headers=legacy_headers(session_id))
            assert ok.status_code == 200
            await trio.sleep(0.5)
            gone = await client.post(url, json=rpc("ping", {}, 2), headers=legacy_headers(session_id))
            fresh = await initialize(client, url)  # a new session works
            ping = await client.post(url, json=rpc("ping", {}, 3), headers=legacy_headers(fresh))
    assert gone.status_code == 404, gone.text
    assert ping.status_code == 200


async def test_expired_session_is_404_for_get_too(app):
    """The first request after the idle timeout is a GET: the session is gone all the same."""
    async with http_server(app, config=TINY) as url, new_client() as client:
        with trio.fail_after(10):
            session_id = await initialize(client, url)
            await trio.sleep(0.5)
            headers = {"accept": "text/event-stream", "mcp-session-id": session_id, "mcp-protocol-version": LEGACY}
            async with client.stream("GET", url, headers=headers) as response:
                status = response.status_code
            after = await client.post(url, json=rpc("ping", {}, 2), headers=legacy_headers(session_id))
    assert status == 404, f"GET on a session idle past session_idle_timeout answered {status}"
    assert after.status_code == 404


async def test_expired_session_is_404_for_delete_too(app):
    async with http_server(app, config=TINY) as url, new_client() as client:
        with trio.fail_after(10):
            session_id = await initialize(client, url)
            await trio.sleep(0.5)
            deleted = await client.delete(url, headers=legacy_headers(session_id))
    assert deleted.status_code == 404, f"DELETE on an expired session answered {deleted.status_code}"


async def test_session_in_regular_use_does_not_expire(app):
    config = HttpConfig(session_idle_timeout=0.4)
    async with http_server(app, config=config) as url, new_client() as client:
        with trio.fail_after(10):
            session_id = await initialize(client, url)
            for n in range(8):  # 1.6 s of use, never 0.4 s idle
                await trio.sleep(0.2)
                response = await client.post(url, json=rpc("ping", {}, n), headers=legacy_headers(session_id))
                assert response.status_code == 200, (n, response.status_code)


async def test_session_with_an_open_get_stream_does_not_expire(app):
    async with http_server(app, config=TINY) as url, new_client() as client:
        with trio.fail_after(10):
            session_id = await initialize(client, url)
            headers = {"accept": "text/event-stream", "mcp-session-id": session_id, "mcp-protocol-version": LEGACY}
            async with client.stream("GET", url, headers=headers) as response:
                reader = SseReader(response)
                await reader.next()
                await trio.sleep(0.5)
                other = await initialize(client, url)
                await app.notify_tools_changed()
                message = await reader.next_message()
                assert message["method"] == "notifications/tools/list_changed"
                ping = await client.post(url, json=rpc("ping", {}, 1), headers=legacy_headers(session_id))
                assert ping.status_code == 200
    assert other != session_id


async def test_session_is_not_expired_right_after_a_long_request(app):
    """Idle time counts from the end of the last activity: a call longer than the timeout, answered
    a moment ago, leaves a session that was never idle — the next request must find it."""
    config = HttpConfig(session_idle_timeout=0.5)
    async with http_server(app, config=config) as url, new_client() as client:
        with trio.fail_after(10):
            session_id = await initialize(client, url)
            long = await client.post(
                url, json=call_tool("sleep", {"seconds": 1.0}, 1), headers=legacy_headers(session_id)
            )
            assert text_of(messages_of(long)[-1]) == "slept 1"
            right_after = await client.post(url, json=rpc("ping", {}, 2), headers=legacy_headers(session_id))
    assert right_after.status_code == 200, (
        f"session expired {right_after.status_code} immediately after its request finished"
    )


async def test_a_session_ended_elsewhere_is_remembered_as_long_as_a_record_read_before_is_trusted(autojump_clock):
    table = SessionTable(HttpConfig())
    table.end_elsewhere("one", 1.0)
    await trio.sleep(0.5)
    table.end_elsewhere("two", 1.0)
    assert table.ended_elsewhere("one") and table.ended_elsewhere("two") and not table.ended_elsewhere("three")
    await trio.sleep(0.6)
    assert not table.ended_elsewhere("one") and table.ended_elsewhere("two")
    table.end_elsewhere("three", 1.0)
    assert not table.ended_elsewhere("one") and table.ended_elsewhere("three")


INITIALIZE = rpc(
    "initialize", {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
)


class Ended:
    """Session hooks that note which sessions ended."""

    def __init__(self) -> None:
        self.ids: list[str] = []

    def opened(self, session) -> None:
        pass

    def closed(self, session) -> None:
        self.ids.append(session.session_id)


async def open_session(asgi: McpHttpApp) -> str:
    request = FakeRequest(INITIALIZE, {})
    await request.run(asgi)
    start = next(m for m in request.sent if m["type"] == "http.response.start")
    return dict(start["headers"])[b"mcp-session-id"].decode()


async def test_an_idle_session_ends_when_its_time_passes_with_no_other_request(app, autojump_clock):
    """Its hooks run then (a gateway's per-caller upstream closes), not at the next request."""
    ended = Ended()
    app.session_hooks.append(ended)
    asgi = McpHttpApp(app, HttpConfig(session_idle_timeout=60))
    async with trio.open_nursery() as nursery:
        await start_lifespan(nursery, asgi)
        session_id = await open_session(asgi)
        await trio.sleep(59)
        assert ended.ids == [] and len(asgi.sessions) == 1
        await trio.sleep(2)  # (the sweep looks every second)
        assert ended.ids == [session_id] and len(asgi.sessions) == 0
        nursery.cancel_scope.cancel()


async def test_served_without_a_lifespan_the_next_request_ends_the_idle_sessions(app, autojump_clock):
    ended = Ended()
    app.session_hooks.append(ended)
    asgi = McpHttpApp(app, HttpConfig(session_idle_timeout=60))
    first = await open_session(asgi)
    await trio.sleep(120)
    assert ended.ids == []  # (nothing sweeps)
    second = await open_session(asgi)
    assert ended.ids == [first] and second != first and len(asgi.sessions) == 1


async def test_a_session_hook_that_fails_stops_neither_the_sweep_nor_the_other_sessions(app, autojump_clock, caplog):
    class Failing(Ended):
        def closed(self, session) -> None:
            super().closed(session)
            if len(self.ids) == 1:
                raise RuntimeError("a hook that fails")

    ended = Failing()
    app.session_hooks.append(ended)
    asgi = McpHttpApp(app, HttpConfig(session_idle_timeout=60))
    async with trio.open_nursery() as nursery:
        await start_lifespan(nursery, asgi)
        first, second = await open_session(asgi), await open_session(asgi)
        await trio.sleep(62)
        assert sorted(ended.ids) == sorted([first, second]) and len(asgi.sessions) == 0
        third = await open_session(asgi)  # the endpoint serves on, and sweeps on
        await trio.sleep(62)
        assert ended.ids[-1] == third
        nursery.cancel_scope.cancel()
    assert "ending the idle legacy session" in caplog.text
