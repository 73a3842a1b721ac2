"""Legacy Streamable HTTP (2025-03-26 … 2025-11-25): sessions, JSON and SSE answers, the GET
stream, server→client requests on a POST's stream, priming events — all over the real HTTP server."""

import re

import trio

from mcptrio import SessionLimits
from mcptrio.transports.http import HttpConfig

from ..client import (
    LEGACY,
    SseReader,
    call_tool,
    final_of,
    http_server,
    initialize,
    is_sse,
    legacy_headers,
    messages_of,
    new_client,
    notification,
    parse_sse,
    rpc,
    text_of,
    wait_until,
)

TOKEN = re.compile(r"^[A-Za-z0-9_-]+$")


def get_headers(session_id, **extra):
    headers = {"accept": "text/event-stream", "mcp-session-id": session_id, "mcp-protocol-version": LEGACY}
    headers.update(extra)
    return headers


async def test_initialize_mints_unguessable_distinct_session_ids(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            first = await initialize(client, url)
            second = await initialize(client, url)
    for session_id in (first, second):
        # >= 128 bits: 22 url-safe base64 characters carry 132 bits.
        assert len(session_id) >= 22 and TOKEN.match(session_id), session_id
        assert all(0x21 <= ord(c) <= 0x7E for c in session_id)
    assert first != second


async def test_initialize_answer_carries_session_header_and_result(app):
    async with http_server(app) as url, new_client() as client:
        params = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
        with trio.fail_after(10):
            response = await client.post(url, json=rpc("initialize", params, 0), headers=legacy_headers(version=None))
    assert response.status_code == 200
    assert response.headers["mcp-session-id"]
    final = final_of(response, 0)
    assert final["result"]["serverInfo"]["name"] == "test-server"
    assert final["result"]["protocolVersion"] == LEGACY


async def test_request_without_session_id_is_400(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            await initialize(client, url)
            response = await client.post(url, json=rpc("tools/list", {}, 5), headers=legacy_headers(None))
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == -32600


async def test_unknown_session_id_is_404(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            response = await client.post(
                url, json=rpc("tools/list", {}, 5), headers=legacy_headers("no-such-session-aaaaaaaaaaaaaaaa")
            )
            get = await client.get(url, headers=get_headers("no-such-session-aaaaaaaaaaaaaaaa"))
            delete = await client.delete(url, headers=get_headers("no-such-session-aaaaaaaaaaaaaaaa"))
    assert response.status_code == 404, response.text
    assert get.status_code == 404, get.text
    assert delete.status_code == 404, delete.text


async def test_delete_ends_the_session(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            session_id = await initialize(client, url)
            ok = await client.post(url, json=rpc("ping", {}, 1), headers=legacy_headers(session_id))
            assert ok.status_code == 200
            deleted = await client.delete(url, headers=legacy_headers(session_id))
            after = await client.post(url, json=rpc("ping", {}, 2), headers=legacy_headers(session_id))
            again = await client.delete(url, headers=legacy_headers(session_id))
    assert deleted.status_code in (200, 204), deleted.text
    assert after.status_code == 404, after.text
    assert again.status_code == 404, again.text


async def test_quick_call_is_answered_as_json(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            session_id = await initialize(client, url)
            response = await client.post(
                url, json=call_tool("echo", {"text": "hi"}, 2), headers=legacy_headers(session_id)
            )
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert response.headers["mcp-session-id"] == session_id
    assert response.json() == {"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "hi"}]}}


async def test_progress_turns_the_answer_into_an_sse_stream(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            session_id = await initialize(client, url)
            response = await client.post(
                url, json=call_tool("count", {"steps": 3}, 3, progress_token="tok"), headers=legacy_headers(session_id)
            )
    assert response.status_code == 200
    assert is_sse(response)
    assert response.headers["x-accel-buffering"] == "no"
    messages = messages_of(response)
    progress = [m for m in messages if m.get("method") == "notifications/progress"]
    assert [p["params"]["progress"] for p in progress] == [1, 2, 3]
    assert all(p["params"]["progressToken"] == "tok" for p in progress)
    assert messages[-1] == {"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "counted"}]}}
    assert len(messages) == 4


async def test_2025_11_25_sse_stream_starts_with_a_priming_event(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            session_id = await initialize(client, url)
            response = await client.post(
                url, json=call_tool("count", {"steps": 2}, 3, progress_token=7), headers=legacy_headers(session_id)
            )
    events = parse_sse(response.text)
    first = events[0]
    assert first.id, "the priming event must carry an event id"
    assert first.retry is not None and first.retry > 0
    assert first.data == "", f"priming event must have empty data, got {first.data!r}"
    ids = [event.id for event in events]
    assert all(ids) and len(set(ids)) == len(ids), ids  # every event resumable, ids unique
    assert all(event.data for event in events[1:])


async def test_2025_06_18_sse_stream_has_no_priming_event(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            session_id = await initialize(client, url, version="2025-06-18")
            response = await client.post(
                url,
                json=call_tool("count", {"steps": 2}, 3, progress_token=7),
                headers=legacy_headers(session_id, "2025-06-18"),
            )
    events = parse_sse(response.text)
    assert events and all(event.data for event in events), events
    assert events[-1].message["id"] == 3


async def test_logs_of_a_call_arrive_on_its_stream(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            session_id = await initialize(client, url)
            response = await client.post(url, json=call_tool("chatty", {}, 4), headers=legacy_headers(session_id))
    messages = messages_of(response)
    logs = [m["params"]["level"] for m in messages if m.get("method") == "notifications/message"]
    assert logs == ["debug", "info", "warning", "error"]
    assert text_of(messages[-1]) == "logged"


async def test_get_opens_the_standalone_stream_for_list_changed(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            session_id = await initialize(client, url)
            async with client.stream("GET", url, headers=get_headers(session_id)) as response:
                assert response.status_code == 200
                assert is_sse(response)
                assert response.headers["x-accel-buffering"] == "no"
                reader = SseReader(response)
                priming = await reader.next()
                assert priming is not None and priming.id and priming.data == ""
                # Let the server settle on the open stream first: a notification in the first
                # instant is a separate race (test_http_notifications.py).
                await trio.sleep(0.1)
                await app.notify_tools_changed()
                message = await reader.next_message()
                assert message == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}


async def test_second_concurrent_get_is_409(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            session_id = await initialize(client, url)
            async with client.stream("GET", url, headers=get_headers(session_id)) as first:
                assert first.status_code == 200
                await SseReader(first).next()  # the stream is open on the server
                second = await client.get(url, headers=get_headers(session_id))
                assert second.status_code == 409, second.text
            # The first one closed: a new GET may open the stream again.
            await trio.sleep(0.2)
            async with client.stream("GET", url, headers=get_headers(session_id)) as third:
                assert third.status_code == 200


async def test_concurrent_posts_on_one_session_are_not_cross_wired(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            session_id = await initialize(client, url)
            answers = {}

            async def one(request_id, seconds):
                response = await client.post(
                    url, json=call_tool("sleep", {"seconds": seconds}, request_id), headers=legacy_headers(session_id)
                )
                assert response.status_code == 200
                answers[request_id] = messages_of(response)

            async def echo(request_id, text):
                response = await client.post(
                    url, json=call_tool("echo", {"text": text}, request_id), headers=legacy_headers(session_id)
                )
                answers[request_id] = messages_of(response)

            async with trio.open_nursery() as nursery:
                nursery.start_soon(one, "a", 0.4)
                nursery.start_soon(one, "b", 0.1)
                nursery.start_soon(one, "c", 0.3)
                nursery.start_soon(echo, 17, "seventeen")
    assert set(answers) == {"a", "b", "c", 17}
    for request_id, seconds in (("a", 0.4), ("b", 0.1), ("c", 0.3)):
        messages = answers[request_id]
        assert len(messages) == 1, messages  # nothing of another request on this response
        assert messages[0]["id"] == request_id
        assert text_of(messages[0]) == f"slept {seconds:g}"
    assert answers[17] == [{"jsonrpc": "2.0", "id": 17, "result": {"content": [{"type": "text", "text": "seventeen"}]}}]
    assert app.stats == {"started": 3, "finished": 3, "cancelled": 0}


async def test_elicitation_round_trip_over_http(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            session_id = await initialize(client, url, capabilities={"elicitation": {}})
            async with client.stream(
                "POST", url, json=call_tool("ask_name", {}, "call-1"), headers=legacy_headers(session_id)
            ) as response:
                assert response.status_code == 200
                assert is_sse(response)
                reader = SseReader(response)
                ask = await reader.next_message()
                assert ask["method"] == "elicitation/create", ask
                assert "id" in ask
                assert ask["params"]["message"] == "Your name?"
                answer = {"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"name": "Ada"}}}
                posted = await client.post(url, json=answer, headers=legacy_headers(session_id))
                assert posted.status_code == 202, posted.text
                assert posted.content == b""
                rest = await reader.until_response("call-1")
                assert text_of(rest[-1]) == "hello Ada"
                assert await reader.next() is None  # the stream ends after the response


async def test_elicitation_decline_over_http(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            session_id = await initialize(client, url, capabilities={"elicitation": {}})
            async with client.stream(
                "POST", url, json=call_tool("ask_name", {}, 9), headers=legacy_headers(session_id)
            ) as response:
                reader = SseReader(response)
                ask = await reader.next_message()
                posted = await client.post(
                    url,
                    json={"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "decline"}},
                    headers=legacy_headers(session_id),
                )
                assert posted.status_code == 202
                rest = await reader.until_response(9)
    assert text_of(rest[-1]) == "declined (decline)"


async def test_notifications_are_accepted_with_202(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            session_id = await initialize(client, url)  # asserts 202 for notifications/initialized
            response = await client.post(
                url, json=notification("notifications/roots/list_changed"), headers=legacy_headers(session_id)
            )
    assert response.status_code == 202
    assert response.content == b""


async def test_unsupported_protocol_version_header_is_400(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            session_id = await initialize(client, url)
            response = await client.post(
                url, json=rpc("tools/list", {}, 3), headers=legacy_headers(session_id, "1999-01-01")
            )
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == -32600


async def test_tool_errors_arrive_as_results(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            session_id = await initialize(client, url)
            refused = await client.post(url, json=call_tool("refuse", {}, 1), headers=legacy_headers(session_id))
            exploded = await client.post(url, json=call_tool("explode", {}, 2), headers=legacy_headers(session_id))
    assert refused.status_code == 200
    assert refused.json()["result"]["isError"] is True
    assert exploded.status_code == 200
    assert exploded.json()["result"]["isError"] is True
    assert "/etc/passwd" not in exploded.text


async def test_delete_cancels_the_session_in_flight_requests(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(15):
            session_id = await initialize(client, url)
            answers = []

            async def call():
                answers.append(
                    await client.post(
                        url, json=call_tool("sleep", {"seconds": 30}, 1), headers=legacy_headers(session_id)
                    )
                )

            async with trio.open_nursery() as nursery:
                nursery.start_soon(call)
                await wait_until(lambda: app.stats["started"] == 1, 5, "the call started")
                deleted = await client.delete(url, headers=legacy_headers(session_id))
                assert deleted.status_code == 200
    assert app.stats == {"started": 1, "finished": 0, "cancelled": 1}
    assert '"result"' not in answers[0].text


async def test_delete_ends_the_session_get_stream(app):
    """A terminated session's standalone stream has nothing more to carry: the server ends it
    (otherwise it stays open, probed every keepalive_interval, until the client goes away)."""
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(15):
            session_id = await initialize(client, url)
            async with client.stream("GET", url, headers=get_headers(session_id)) as response:
                reader = SseReader(response)
                await reader.next()
                deleted = await client.delete(url, headers=legacy_headers(session_id))
                assert deleted.status_code == 200
                with trio.move_on_after(3):
                    await reader.rest()
                assert reader.ended, "the GET stream of a deleted session is still open 3 s after DELETE"


async def test_max_sessions_refuses_new_sessions_with_503(app):
    config = HttpConfig(max_sessions=2)
    async with http_server(app, config=config) as url, new_client() as client:
        with trio.fail_after(10):
            first = await initialize(client, url)
            await initialize(client, url)
            params = {"protocolVersion": LEGACY, "capabilities": {}}
            refused = await client.post(url, json=rpc("initialize", params, 3), headers=legacy_headers(version=None))
            assert refused.status_code == 503, refused.text
            assert "retry-after" in refused.headers
            assert "mcp-session-id" not in refused.headers
            await client.delete(url, headers=legacy_headers(first))
            third = await initialize(client, url)  # room again
    assert third


async def test_request_timeout_answers_a_slow_tool_with_an_error_result(app):
    limits = SessionLimits(request_timeout=0.3)
    async with http_server(app, limits=limits) as url, new_client() as client:
        with trio.fail_after(10):
            session_id = await initialize(client, url)
            response = await client.post(
                url, json=call_tool("sleep", {"seconds": 10}, 1), headers=legacy_headers(session_id)
            )
    final = final_of(response, 1)
    assert final["result"]["isError"] is True
    assert "timed out" in text_of(final)
    assert app.stats["cancelled"] == 1


async def test_in_flight_limit_refuses_the_extra_request(app):
    limits = SessionLimits(max_in_flight=1)
    async with http_server(app, limits=limits) as url, new_client() as client:
        with trio.fail_after(10):
            session_id = await initialize(client, url)
            answers = {}

            async def call(request_id, seconds):
                answers[request_id] = await client.post(
                    url, json=call_tool("sleep", {"seconds": seconds}, request_id), headers=legacy_headers(session_id)
                )

            async with trio.open_nursery() as nursery:
                nursery.start_soon(call, "first", 0.5)
                await wait_until(lambda: app.stats["started"] == 1, 5, "the first call started")
                nursery.start_soon(call, "second", 0.1)
    assert text_of(final_of(answers["first"], "first")) == "slept 0.5"
    second = final_of(answers["second"], "second")
    assert "error" in second and "too many requests" in second["error"]["message"], second


async def test_duplicate_in_flight_request_id_is_refused_not_cross_wired(app):
    async with http_server(app) as url, new_client() as client:
        with trio.fail_after(10):
            session_id = await initialize(client, url)
            answers = {}

            async def call(key, tool, arguments):
                answers[key] = await client.post(
                    url, json=call_tool(tool, arguments, "same-id"), headers=legacy_headers(session_id)
                )

            async with trio.open_nursery() as nursery:
                nursery.start_soon(call, "slow", "sleep", {"seconds": 0.5})
                await wait_until(lambda: app.stats["started"] == 1, 5, "the first call started")
                nursery.start_soon(call, "dup", "echo", {"text": "dup"})
    assert text_of(final_of(answers["slow"], "same-id")) == "slept 0.5"
    dup = final_of(answers["dup"], "same-id")
    assert dup["error"]["code"] == -32600, dup
