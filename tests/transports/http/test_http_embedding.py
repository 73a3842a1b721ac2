"""Embedding: ``serve_http`` under ``nursery.start`` with a shutdown trigger (drain in-flight work),
on either of its servers, and ``McpHttpApp`` mounted in the user's own hypercorn config."""

import functools

import hypercorn.config
import hypercorn.trio
import pytest
import trio

from mcptrio import SessionLimits
from mcptrio.transports.http import HttpConfig, McpHttpApp, serve_http

from .client import (
    LEGACY,
    SseReader,
    call_tool,
    final_of,
    http_server,
    initialize,
    legacy_headers,
    modern_tool,
    new_client,
    text_of,
    wait_until,
)


@pytest.fixture(params=["builtin", "hypercorn"])
def on(request):
    """The server serve_http runs."""
    return request.param


async def test_serve_http_reports_the_endpoint_url(app, on):
    async with http_server(app, config=HttpConfig(path="/api/v1/mcp"), server=on) as url:
        assert url.startswith("http://127.0.0.1:")
        assert url.endswith("/api/v1/mcp")
        async with new_client() as client:
            with trio.fail_after(10):
                body, headers = modern_tool("echo", {"text": "mounted"}, 1)
                response = await client.post(url, json=body, headers=headers)
                elsewhere = await client.post(url.replace("/api/v1/mcp", "/mcp"), json=body, headers=headers)
    assert text_of(final_of(response)) == "mounted"
    assert elsewhere.status_code == 404


async def test_shutdown_trigger_drains_in_flight_requests(app, on):
    limits = SessionLimits(shutdown_grace=1)
    stop = trio.Event()
    answers = {}
    returned = trio.Event()
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:

            async def server(task_status=trio.TASK_STATUS_IGNORED):
                await serve_http(
                    app,
                    host="127.0.0.1",
                    port=0,
                    limits=limits,
                    shutdown_trigger=stop.wait,
                    http_server=on,
                    task_status=task_status,
                )
                returned.set()

            url = await nursery.start(server)
            async with new_client() as client:
                session_id = await initialize(client, url)

                async def call(request_id, seconds):
                    answers[request_id] = await client.post(
                        url,
                        json=call_tool("sleep", {"seconds": seconds}, request_id),
                        headers=legacy_headers(session_id),
                    )

                async def modern_call(request_id, seconds):
                    body, headers = modern_tool("sleep", {"seconds": seconds}, request_id)
                    answers[request_id] = await client.post(url, json=body, headers=headers)

                async with trio.open_nursery() as calls:
                    calls.start_soon(call, "short", 0.2)
                    calls.start_soon(call, "long", 60)
                    calls.start_soon(modern_call, "modern-long", 60)
                    await wait_until(lambda: app.stats["started"] == 3, 5, "three calls in flight")
                    stop.set()
                    stopped_at = trio.current_time()
                    await trio.sleep(0.4)
                    # While draining, new work is refused.
                    body, headers = modern_tool("echo", {"text": "late"}, "late")
                    try:
                        late = await client.post(url, json=body, headers=headers)
                    except Exception as exc:  # the listener may already be closed: also a refusal
                        late = exc
                    answers["late"] = late
            with trio.move_on_after(10):
                await returned.wait()
            took = trio.current_time() - stopped_at
    assert returned.is_set(), "serve_http did not return after its shutdown trigger"
    assert took < 6, f"serve_http took {took:.1f} s to return with shutdown_grace=1"
    short = final_of(answers["short"], "short")
    assert text_of(short) == "slept 0.2"
    for request_id in ("long", "modern-long"):
        final = final_of(answers[request_id], request_id)
        assert "error" in final, final
        assert "shutting down" in final["error"]["message"], final
    late = answers["late"]
    if not isinstance(late, Exception):
        assert late.status_code == 503, late.text
    assert app.stats == {"started": 3, "finished": 1, "cancelled": 2}


async def test_shutdown_ends_the_standalone_get_stream(app, on):
    stop = trio.Event()
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            url = await nursery.start(
                functools.partial(
                    serve_http,
                    app,
                    host="127.0.0.1",
                    port=0,
                    limits=SessionLimits(shutdown_grace=1),
                    shutdown_trigger=stop.wait,
                    http_server=on,
                )
            )
            async with new_client() as client:
                session_id = await initialize(client, url)
                headers = {"accept": "text/event-stream", "mcp-session-id": session_id, "mcp-protocol-version": LEGACY}
                async with client.stream("GET", url, headers=headers) as response:
                    reader = SseReader(response)
                    await reader.next()  # priming: the stream is open
                    stop.set()
                    with trio.fail_after(5):
                        rest = await reader.rest()
    assert all(event.data == "" or event.data is None for event in rest), rest


async def test_mcp_http_app_mounted_in_own_hypercorn(app):
    asgi = McpHttpApp(app, HttpConfig(path="/custom/mcp"))
    config = hypercorn.config.Config()
    config.bind = ["127.0.0.1:0"]
    config.accesslog = None
    config.graceful_timeout = 2
    stop = trio.Event()
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            binds = await nursery.start(
                functools.partial(hypercorn.trio.serve, asgi, config, shutdown_trigger=stop.wait)
            )
            url = binds[0] + "/custom/mcp"
            try:
                async with new_client() as client:
                    session_id = await initialize(client, url)
                    legacy = await client.post(
                        url,
                        json=call_tool("count", {"steps": 2}, 1, progress_token="e"),
                        headers=legacy_headers(session_id),
                    )
                    body, headers = modern_tool("echo", {"text": "embedded"}, 2)
                    modern = await client.post(url, json=body, headers=headers)
                    wrong_path = await client.post(binds[0] + "/mcp", json=body, headers=headers)
            finally:
                stop.set()
    assert text_of(final_of(legacy, 1)) == "counted"
    assert text_of(final_of(modern, 2)) == "embedded"
    assert wrong_path.status_code == 404


async def _mounted_shutdown_with_call_in_flight(app, asgi, trigger_factory):
    """Serve ``asgi`` with hypercorn.trio.serve; stop it while a 60 s call is in flight.
    Returns (the call's response or the exception it raised, seconds from stop to return)."""
    config = hypercorn.config.Config()
    config.bind = ["127.0.0.1:0"]
    config.accesslog = None
    config.graceful_timeout = 3
    stop = trio.Event()
    outcome = []
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            binds = await nursery.start(
                functools.partial(hypercorn.trio.serve, asgi, config, shutdown_trigger=trigger_factory(stop))
            )
            url = binds[0] + "/mcp"
            async with new_client() as client:

                async def call():
                    body, headers = modern_tool("sleep", {"seconds": 60}, "s")
                    try:
                        outcome.append(await client.post(url, json=body, headers=headers))
                    except Exception as exc:
                        outcome.append(exc)

                async with trio.open_nursery() as calls:
                    calls.start_soon(call)
                    await wait_until(lambda: app.stats["started"] == 1, 5, "the call started")
                    stop.set()
                    stopped_at = trio.current_time()
        took = trio.current_time() - stopped_at
    return outcome[0], took


async def test_mcp_http_app_mounted_drains_when_the_trigger_calls_its_shutdown(app):
    """The embedding pattern serve_http uses: the hypercorn trigger awaits McpHttpApp.shutdown()."""
    asgi = McpHttpApp(app, HttpConfig(), SessionLimits(shutdown_grace=0.5))

    def trigger_factory(stop):
        async def trigger():
            await stop.wait()
            await asgi.shutdown()

        return trigger

    outcome, took = await _mounted_shutdown_with_call_in_flight(app, asgi, trigger_factory)
    assert not isinstance(outcome, Exception), repr(outcome)
    final = final_of(outcome, "s")
    assert "shutting down" in final["error"]["message"], final
    assert app.stats["cancelled"] == 1
    assert took < 3


async def test_mcp_http_app_shutdown_trigger_helper_drains(app):
    """Mounted in the user's own hypercorn: wrapping hypercorn's trigger with
    ``McpHttpApp.shutdown_trigger`` drains in-flight requests before hypercorn stops (hypercorn
    sends ``lifespan.shutdown`` only after every connection has closed, too late to drain)."""
    asgi = McpHttpApp(app, HttpConfig(), SessionLimits(shutdown_grace=0.5))
    outcome, took = await _mounted_shutdown_with_call_in_flight(
        app, asgi, lambda stop: asgi.shutdown_trigger(stop.wait)
    )
    assert not isinstance(outcome, Exception), (
        f"the in-flight call was cut off with no answer after {took:.1f} s: {outcome!r}"
    )
    final = final_of(outcome, "s")
    assert "shutting down" in final["error"]["message"], final
    assert app.stats["cancelled"] == 1
    assert took < 3
