"""A broken legacy stream is not a cancel (2025-11-25 transport: a disconnection "SHOULD NOT be
interpreted as the client cancelling its request").  Tried as a client on a flaky network would:
call a slow tool, read the first event id, drop the connection, GET with Last-Event-ID.  Only
``notifications/cancelled`` or the orphan timeout cancels such a request; 2026-07-28 keeps
disconnect = cancel."""

import trio

from mcptrio.transports.http import HttpConfig

from ....runtime.apps import add_slow_steps, build_app
from ..client import (
    SseReader,
    call_tool,
    http_server,
    initialize,
    legacy_headers,
    modern_tool,
    new_client,
    notification,
    resume_headers,
    text_of,
    wait_until,
)


def flaky_app():
    return add_slow_steps(build_app())


async def first_event_then_drop(client, url, session_id, request_id, seconds):
    """POST the call, read its stream up to the first progress event, and drop the connection."""
    body = call_tool("slow_steps", {"seconds": seconds}, request_id, progress_token="p")
    async with client.stream("POST", url, json=body, headers=legacy_headers(session_id)) as response:
        assert response.status_code == 200
        reader = SseReader(response)
        while True:
            event = await reader.next()
            assert event is not None, "the stream ended before its first progress event"
            if event.data:
                break
    ids = [e.id for e in reader.events if e.id]
    assert ids, "no event id reached the client"
    return ids[-1]


async def test_a_dropped_legacy_stream_keeps_its_call_running_and_a_resume_gets_the_rest():
    app = flaky_app()
    async with http_server(app) as url, new_client() as client, new_client() as other:
        with trio.fail_after(15):
            session_id = await initialize(client, url)
            last_id = await first_event_then_drop(client, url, session_id, "flaky", 1.5)
            await trio.sleep(0.3)  # the server has heard the disconnect by now
            assert app.stats["cancelled"] == 0
            async with other.stream("GET", url, headers=resume_headers(session_id, last_id)) as response:
                assert response.status_code == 200
                rest = [e for e in await SseReader(response).rest() if e.data]
    messages = [e.message for e in rest]
    assert [m["params"]["progress"] for m in messages if "method" in m] == [2]
    assert text_of(messages[-1]) == "done after 1.5" and messages[-1]["id"] == "flaky"
    assert app.stats == {"started": 1, "finished": 1, "cancelled": 0}


async def test_an_answer_that_came_while_nobody_listened_is_replayed():
    app = flaky_app()
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(15):
            session_id = await initialize(client, url)
            last_id = await first_event_then_drop(client, url, session_id, 7, 0.4)
            await wait_until(lambda: app.stats["finished"] == 1, 5, "the call finishes with nobody listening")
            async with client.stream("GET", url, headers=resume_headers(session_id, last_id)) as response:
                rest = [e.message for e in await SseReader(response).rest() if e.data]
    assert rest[-1]["id"] == 7 and text_of(rest[-1]) == "done after 0.4"


async def test_an_orphan_is_cancelled_after_the_orphan_timeout():
    app = flaky_app()
    async with http_server(app, config=HttpConfig(orphan_timeout=0.5)) as url, new_client() as client:
        with trio.fail_after(15):
            session_id = await initialize(client, url)
            await first_event_then_drop(client, url, session_id, 1, 30)
            await trio.sleep(0.2)
            assert app.stats["cancelled"] == 0, "cancelled before its orphan timeout"
            await wait_until(lambda: app.stats["cancelled"] == 1, 5, "the orphan is cancelled")
    assert app.stats["finished"] == 0


async def test_a_resumed_stream_that_drops_again_waits_a_fresh_orphan_timeout():
    app = flaky_app()
    async with http_server(app, config=HttpConfig(orphan_timeout=0.6)) as url, new_client() as client:
        with trio.fail_after(15):
            session_id = await initialize(client, url)
            last_id = await first_event_then_drop(client, url, session_id, 1, 30)
            await trio.sleep(0.4)
            with trio.move_on_after(0.5):  # carried by a GET past the first timeout's end
                async with client.stream("GET", url, headers=resume_headers(session_id, last_id)) as response:
                    assert response.status_code == 200
                    await SseReader(response).rest()
            assert app.stats["cancelled"] == 0
            await wait_until(lambda: app.stats["cancelled"] == 1, 5, "cancelled a timeout after the GET left")


async def test_notifications_cancelled_still_cancels_an_orphan():
    app = flaky_app()
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(15):
            session_id = await initialize(client, url)
            await first_event_then_drop(client, url, session_id, "c", 30)
            cancel = notification("notifications/cancelled", {"requestId": "c", "reason": "changed my mind"})
            response = await client.post(url, json=cancel, headers=legacy_headers(session_id))
            assert response.status_code == 202
            await wait_until(lambda: app.stats["cancelled"] == 1, 5, "the cancel reaches the orphan")


async def test_a_stream_broken_before_any_event_id_cancels():
    """Without an event id the client has nothing to resume from: a disconnect is a cancel."""
    app = flaky_app()
    async with http_server(app, config=HttpConfig(response_mode="json")) as url, new_client() as client:
        with trio.fail_after(15):
            session_id = await initialize(client, url)
            with trio.move_on_after(0.3):
                await client.post(url, json=call_tool("sleep", {"seconds": 30}, 3), headers=legacy_headers(session_id))
            await wait_until(lambda: app.stats["cancelled"] == 1, 5, "the call is cancelled")


async def test_the_2026_era_keeps_disconnect_as_cancel():
    app = flaky_app()
    async with http_server(app, config=HttpConfig(response_mode="sse")) as url, new_client() as client:
        with trio.fail_after(15):
            body, headers = modern_tool("slow_steps", {"seconds": 30}, 9, progress_token="p")
            async with client.stream("POST", url, json=body, headers=headers) as response:
                reader = SseReader(response)
                assert (await reader.next_message())["method"] == "notifications/progress"
            await wait_until(lambda: app.stats["cancelled"] == 1, 5, "the modern call is cancelled")
