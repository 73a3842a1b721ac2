"""Closing the HTTP response cancels that request's handler, in both eras and every response mode."""

import pytest
import trio

from mcptrio.transports.http import HttpConfig

from .client import (
    call_tool,
    http_server,
    initialize,
    legacy_headers,
    modern_tool,
    new_client,
    notification,
    text_of,
    wait_until,
)

CANCEL_WITHIN = 5.0


async def _assert_cancelled_not_finished(app):
    await wait_until(
        lambda: app.stats["cancelled"] == 1,
        CANCEL_WITHIN,
        f"the handler is cancelled after the client closed its response (stats {app.stats})",
    )
    await trio.sleep(0.2)
    assert app.stats == {"started": 1, "finished": 0, "cancelled": 1}


async def _post_and_close_after_headers(client, url, body, headers):
    """Open the response, wait for its headers (the stream has started), then close it."""
    async with client.stream("POST", url, json=body, headers=headers) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        async for _chunk in response.aiter_raw():
            break  # the first bytes (priming event or probe) arrived; now go away


async def _post_and_abandon(client, url, body, headers, after):
    """Start the POST, then abandon it (close the connection) before any answer arrived."""
    with trio.move_on_after(after) as scope:
        response = await client.post(url, json=body, headers=headers)
    assert scope.cancelled_caught, f"answered before the client gave up: {response.status_code} {response.text}"


async def _long_sleep_call(client, url, era):
    """(body, headers) of a sleep(60) call: in a new legacy session, or a 2026-07-28 request."""
    if era == "legacy":
        session_id = await initialize(client, url)
        return call_tool("sleep", {"seconds": 60}, 1), legacy_headers(session_id)
    return modern_tool("sleep", {"seconds": 60}, 1)


async def test_legacy_closing_the_sse_response_cancels_the_handler_after_the_orphan_timeout(app):
    """The priming event gave the client an id to resume from: its disconnect is not a cancel
    until ``orphan_timeout`` passes with no client (test_http_orphan.py has the rest)."""
    async with http_server(app, config=HttpConfig(orphan_timeout=1.0)) as url, new_client() as client:
        with trio.fail_after(20):
            session_id = await initialize(client, url)
            await _post_and_close_after_headers(
                client, url, call_tool("sleep", {"seconds": 60}, 1), legacy_headers(session_id)
            )
            await trio.sleep(0.5)
            assert app.stats["cancelled"] == 0
            await _assert_cancelled_not_finished(app)
            # The session itself lives on.
            response = await client.post(
                url, json=call_tool("echo", {"text": "still here"}, 2), headers=legacy_headers(session_id)
            )
            assert text_of(response.json()) == "still here"


async def test_modern_closing_the_sse_response_cancels_the_handler(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(20):
            body, headers = modern_tool("sleep", {"seconds": 60}, 1)
            await _post_and_close_after_headers(client, url, body, headers)
            await _assert_cancelled_not_finished(app)


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_closing_before_the_stream_started_cancels_the_handler(app, era):
    """auto mode, the client leaves before ``stream_after`` switched the answer to SSE."""
    config = HttpConfig(stream_after=5.0)
    async with http_server(app, config=config) as url, new_client() as client:
        with trio.fail_after(20):
            body, headers = await _long_sleep_call(client, url, era)
            await _post_and_abandon(client, url, body, headers, after=0.5)
            assert app.stats["started"] == 1
            await _assert_cancelled_not_finished(app)


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_json_mode_closing_the_connection_cancels_the_handler(app, era):
    """``response_mode="json"``: no stream, no probes; the client closes its connection while waiting."""
    config = HttpConfig(response_mode="json")
    async with http_server(app, config=config) as url, new_client() as client:
        with trio.fail_after(20):
            body, headers = await _long_sleep_call(client, url, era)
            await _post_and_abandon(client, url, body, headers, after=0.5)
            assert app.stats["started"] == 1
            await _assert_cancelled_not_finished(app)


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_sse_mode_closing_the_response_cancels_the_handler(app, era):
    """(legacy: once the orphan timeout passed, since the priming event carried an id)"""
    config = HttpConfig(response_mode="sse", orphan_timeout=0.5)
    async with http_server(app, config=config) as url, new_client() as client:
        with trio.fail_after(20):
            body, headers = await _long_sleep_call(client, url, era)
            await _post_and_close_after_headers(client, url, body, headers)
            await _assert_cancelled_not_finished(app)


async def test_json_mode_quick_call_still_answers(app):
    config = HttpConfig(response_mode="json")
    async with http_server(app, config=config) as url, new_client() as client:
        with trio.fail_after(10):
            body, headers = modern_tool("count", {"steps": 2}, 1, progress_token="x")
            response = await client.post(url, json=body, headers=headers)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert text_of(response.json()) == "counted"


async def test_legacy_cancelled_notification_cancels_the_handler(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(20):
            session_id = await initialize(client, url)
            answers = []

            async def call():
                answers.append(
                    await client.post(
                        url, json=call_tool("sleep", {"seconds": 60}, "long"), headers=legacy_headers(session_id)
                    )
                )

            async with trio.open_nursery() as nursery:
                nursery.start_soon(call)
                await wait_until(lambda: app.stats["started"] == 1, 5, "the sleep tool started")
                cancel = notification("notifications/cancelled", {"requestId": "long", "reason": "user"})
                posted = await client.post(url, json=cancel, headers=legacy_headers(session_id))
                assert posted.status_code == 202
            await _assert_cancelled_not_finished(app)
    # A cancelled request is never answered: its response carries no JSON-RPC response for it.
    [response] = answers
    assert response.status_code in (200, 202)
    assert '"result"' not in response.text and '"error"' not in response.text, response.text
