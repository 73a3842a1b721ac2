"""Resumability of legacy SSE streams (2025-11-25): the server closes a request's stream mid-call
(SEP-1699 polling), the client GETs with Last-Event-ID and receives the rest exactly once."""

import functools

import hypercorn.config
import hypercorn.trio
import trio

from mcptrio import App, Context
from mcptrio.transports.http import HttpConfig, McpHttpApp

from ....runtime.apps import build_app
from ..client import (
    LEGACY,
    SseReader,
    call_tool,
    http_server,
    initialize,
    legacy_headers,
    new_client,
    resume_headers,
    text_of,
)


def polling_app() -> App:
    app = build_app()

    @app.tool()
    async def polled(ctx: Context, pause: float = 0.3) -> str:
        await ctx.progress(1, message="before")
        await ctx.close_sse_stream()
        await trio.sleep(pause)
        await ctx.progress(2, message="after")
        return "resumed"

    return app


async def _first_leg(client, url, session_id, request_id, pause):
    """POST the polled tool; read until the server closes the stream. Returns the events seen."""
    async with client.stream(
        "POST",
        url,
        json=call_tool("polled", {"pause": pause}, request_id, progress_token="pt"),
        headers=legacy_headers(session_id),
    ) as response:
        assert response.status_code == 200
        reader = SseReader(response)
        events = await reader.rest()
    return events


def _check_no_loss_no_duplicate(first, second, request_id):
    data_events = [e for e in first + second if e.data]
    messages = [e.message for e in data_events]
    progress = [m["params"]["progress"] for m in messages if m.get("method") == "notifications/progress"]
    responses = [m for m in messages if "method" not in m]
    assert progress == [1, 2], messages
    assert len(responses) == 1 and responses[0]["id"] == request_id, messages
    assert text_of(responses[0]) == "resumed"
    assert messages[-1] is responses[0] or messages[-1] == responses[0]
    ids = [e.id for e in first + second if e.id]
    assert len(ids) == len(set(ids)), f"duplicated event ids: {ids}"


async def test_close_sse_stream_then_resume_while_running():
    app = polling_app()
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            session_id = await initialize(client, url)
            first = await _first_leg(client, url, session_id, "p1", pause=0.5)
            # priming, then progress 1, then the server ended the response (no final answer yet)
            assert first[0].data == "" and first[0].id and first[0].retry
            assert [e.message["params"]["progress"] for e in first if e.data] == [1]
            last_id = [e.id for e in first if e.id][-1]
            async with client.stream("GET", url, headers=resume_headers(session_id, last_id)) as response:
                assert response.status_code == 200
                second = await SseReader(response).rest()  # ends after the final response
    _check_no_loss_no_duplicate(first, second, "p1")
    assert second[-1].message["id"] == "p1"


async def test_a_late_watcher_does_not_take_the_closed_stream_for_a_gone_client():
    """The POST's own response ended (SEP-1699) and the client resumed on a GET before the
    request's watcher started: the disconnect the watcher then hears is that of the closed POST
    response, not of the GET now carrying the stream, so the request goes on."""
    app = polling_app()
    async with http_server(app, config=HttpConfig(watch_after=0.3)) as url, new_client() as client:
        with trio.fail_after(10):
            session_id = await initialize(client, url)
            first = await _first_leg(client, url, session_id, "late", pause=0.6)
            last_id = [e.id for e in first if e.id][-1]
            async with client.stream("GET", url, headers=resume_headers(session_id, last_id)) as response:
                assert response.status_code == 200
                second = await SseReader(response).rest()
    _check_no_loss_no_duplicate(first, second, "late")


async def test_resume_after_the_call_finished_replays_the_rest():
    app = polling_app()
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            session_id = await initialize(client, url)
            first = await _first_leg(client, url, session_id, 42, pause=0.05)
            await trio.sleep(0.4)  # the tool finished while nobody was listening
            last_id = [e.id for e in first if e.id][-1]
            async with client.stream("GET", url, headers=resume_headers(session_id, last_id)) as response:
                assert response.status_code == 200
                second = await SseReader(response).rest()
    _check_no_loss_no_duplicate(first, second, 42)


async def test_resume_from_the_priming_id_replays_everything_after_it():
    app = polling_app()
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            session_id = await initialize(client, url)
            first = await _first_leg(client, url, session_id, 5, pause=0.05)
            await trio.sleep(0.3)
            priming_id = first[0].id
            async with client.stream("GET", url, headers=resume_headers(session_id, priming_id)) as response:
                second = await SseReader(response).rest()
    progress = [e.message["params"]["progress"] for e in second if e.data and "method" in e.message]
    assert progress == [1, 2]
    assert second[-1].message["id"] == 5


async def test_standalone_stream_resumes_with_missed_notifications(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            session_id = await initialize(client, url)
            get = {"accept": "text/event-stream", "mcp-session-id": session_id, "mcp-protocol-version": LEGACY}
            async with client.stream("GET", url, headers=get) as response:
                priming = await SseReader(response).next()
            assert priming.id and priming.data == ""
            await trio.sleep(0.3)  # the server has seen the GET go away
            await app.notify_tools_changed()
            await app.notify_prompts_changed()
            async with client.stream("GET", url, headers=resume_headers(session_id, priming.id)) as response:
                assert response.status_code == 200
                reader = SseReader(response)
                missed = [await reader.next_message(), await reader.next_message()]
                await trio.sleep(0.1)  # settle on the resumed stream (the first instant: test_http_notifications.py)
                await app.notify_resources_changed()
                live = await reader.next_message()
    assert [m["method"] for m in missed] == ["notifications/tools/list_changed", "notifications/prompts/list_changed"]
    assert live["method"] == "notifications/resources/list_changed"


async def test_last_event_id_of_another_session_never_replays_its_events():
    app = polling_app()
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(15):
            alice = await initialize(client, url)
            bob = await initialize(client, url)
            # Give both sessions the same stream numbering; Alice's call leaves unsent events in her log.
            alice_events = await _first_leg(client, url, alice, "alice-call", pause=0.05)
            await client.post(url, json=call_tool("echo", {"text": "bob"}, "bob-call"), headers=legacy_headers(bob))
            await trio.sleep(0.3)
            alice_ids = [e.id for e in alice_events if e.id]
            seen = []
            for event_id in alice_ids:
                async with client.stream("GET", url, headers=resume_headers(bob, event_id)) as response:
                    assert response.status_code in (200, 400, 404, 409), response.status_code
                    if response.status_code == 200:
                        reader = SseReader(response)
                        with trio.move_on_after(0.5):
                            while (event := await reader.next()) is not None:
                                seen.append(event)
            # And Alice's own resume still has her events (they were not consumed by Bob's attempts).
            async with client.stream("GET", url, headers=resume_headers(alice, alice_ids[-1])) as response:
                alice_rest = await SseReader(response).rest()
    leaked = [e for e in seen if e.data and ("alice-call" in e.data or '"pt"' in e.data)]
    assert not leaked, f"Bob's GET replayed Alice's events: {leaked}"
    assert [e.message for e in alice_rest if e.data][-1]["id"] == "alice-call"


async def test_resume_with_unknown_session_is_404():
    app = polling_app()
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            response = await client.get(url, headers=resume_headers("x" * 32, "2-1"))
    assert response.status_code == 404


async def test_malformed_last_event_id_is_400(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            session_id = await initialize(client, url)
            response = await client.get(url, headers=resume_headers(session_id, "not-an-id"))
    assert response.status_code == 400


async def test_per_session_stream_table_stays_bounded():
    """Every POST is tracked for Last-Event-ID; the table must not grow without bound."""
    app = build_app()
    asgi = McpHttpApp(app, HttpConfig(event_log_size=4))
    config = hypercorn.config.Config()
    config.bind = ["127.0.0.1:0"]
    config.accesslog = None
    stop = trio.Event()
    async with trio.open_nursery() as nursery:
        binds = await nursery.start(functools.partial(hypercorn.trio.serve, asgi, config, shutdown_trigger=stop.wait))
        url = binds[0] + "/mcp"
        try:
            async with new_client() as client:
                with trio.fail_after(15):
                    session_id = await initialize(client, url)
                    for n in range(30):
                        response = await client.post(
                            url, json=call_tool("echo", {"text": str(n)}, n), headers=legacy_headers(session_id)
                        )
                        assert response.status_code == 200
            [session] = list(asgi.sessions)
            assert len(session.streams) <= 4 + 1, (
                f"{len(session.streams)} exchanges kept for Last-Event-ID with event_log_size=4"
            )
        finally:
            stop.set()
