"""Idle legacy sessions expire (``session_idle_timeout``); a session in use does not."""

import trio

from mcptrio.transports.http import HttpConfig
from mcptrio.transports.http.legacy.sessions import SessionTable

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
                other = await initialize(client, url)  # a POST that sweeps expired sessions
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
