"""Legacy sessions across workers sharing one real redis-server: initialize on one, everything
else on another.  Each "worker" is a full ``serve_http`` with an App of its own (as in separate
processes: nothing in memory is shared); ``test_workers.py`` runs real processes."""

import contextlib
import functools

import trio

from ..runtime.apps import add_slow_steps, build_app
from ..transports.http.client import (
    LEGACY,
    SseReader,
    call_tool,
    http_server,
    initialize,
    legacy_headers,
    new_client,
    notification,
    resume_headers,
    rpc,
    text_of,
    wait_until,
)


def worker_app():
    app = add_slow_steps(build_app())

    @app.tool()
    async def change_tools() -> str:
        await app.notify_tools_changed()
        return "changed"

    @app.tool()
    async def change_hello() -> str:
        await app.notify_resource_updated("test://hello")
        return "updated"

    return app


@contextlib.asynccontextmanager
async def workers(redis, count=2, **kwargs):
    apps = [worker_app() for _ in range(count)]
    async with contextlib.AsyncExitStack() as stack:
        urls = [await stack.enter_async_context(http_server(app, state=redis.url, **kwargs)) for app in apps]
        yield apps, urls


async def test_a_session_opened_on_one_worker_is_served_by_another(redis):
    async with workers(redis) as (apps, (a, b)), new_client() as client:
        with trio.fail_after(20):
            session_id = await initialize(client, a)  # notifications/initialized went to a as well
            answer = await client.post(
                b, json=call_tool("echo", {"text": "on b"}, 2), headers=legacy_headers(session_id)
            )
            assert answer.status_code == 200 and text_of(answer.json()) == "on b"
            level = await client.post(
                b, json=rpc("logging/setLevel", {"level": "error"}, 3), headers=legacy_headers(session_id)
            )
            assert level.status_code == 200 and level.json()["result"] == {}
            # a reads the level b stored: an info log is no longer sent, only the answer
            chatty = await client.post(a, json=call_tool("chatty", {}, 4), headers=legacy_headers(session_id))
            logged = [m["params"]["level"] for m in _messages(chatty) if m.get("method") == "notifications/message"]
            assert logged == ["error"], logged
            gone = await client.delete(b, headers=legacy_headers(session_id))
            assert gone.status_code == 200
            # a has acted on it before b answers the DELETE: the next request there is 404
            after = await client.post(a, json=call_tool("echo", {"text": "x"}, 5), headers=legacy_headers(session_id))
            assert after.status_code == 404


async def test_an_unknown_session_is_404_on_every_worker(redis):
    async with workers(redis) as (apps, (a, b)), new_client() as client:
        with trio.fail_after(10):
            for url in (a, b):
                response = await client.post(url, json=call_tool("echo", {"text": "x"}), headers=legacy_headers("nope"))
                assert response.status_code == 404


async def test_an_elicitation_answered_on_another_worker_reaches_the_waiting_tool(redis):
    async with workers(redis) as (apps, (a, b)), new_client() as client, new_client() as other:
        with trio.fail_after(20):
            session_id = await initialize(client, a, capabilities={"elicitation": {}})
            async with client.stream(
                "POST", a, json=call_tool("ask_name", {}, "q"), headers=legacy_headers(session_id)
            ) as response:
                reader = SseReader(response)
                ask = await reader.next_message()
                assert ask["method"] == "elicitation/create"
                reply = {"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"name": "Ada"}}}
                posted = await other.post(b, json=reply, headers=legacy_headers(session_id))
                assert posted.status_code == 202
                final = (await reader.until_response("q"))[-1]
    assert text_of(final) == "hello Ada"


async def test_a_cancel_sent_to_another_worker_cancels_the_request_where_it_runs(redis):
    async with workers(redis) as (apps, (a, b)), new_client() as client, new_client() as other:
        with trio.fail_after(20):
            session_id = await initialize(client, a)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(
                    functools.partial(
                        client.post,
                        a,
                        json=call_tool("slow_steps", {"seconds": 30}, "long"),
                        headers=legacy_headers(session_id),
                    )
                )
                await wait_until(lambda: apps[0].stats["started"] == 1, 5, "the call starts on a")
                cancel = notification("notifications/cancelled", {"requestId": "long", "reason": "no"})
                posted = await other.post(b, json=cancel, headers=legacy_headers(session_id))
                assert posted.status_code == 202
                await wait_until(lambda: apps[0].stats["cancelled"] == 1, 5, "the cancel reaches a")
                nursery.cancel_scope.cancel()


async def test_a_stream_resumed_on_another_worker_gets_exactly_what_it_missed(redis):
    async with workers(redis) as (apps, (a, b)), new_client() as client, new_client() as other:
        with trio.fail_after(20):
            session_id = await initialize(client, a)
            body = call_tool("slow_steps", {"seconds": 1.0}, "r", progress_token="p")
            async with client.stream("POST", a, json=body, headers=legacy_headers(session_id)) as response:
                reader = SseReader(response)
                while not (await reader.next()).data:
                    pass
            seen = [e for e in reader.events if e.id]
            assert apps[0].stats["cancelled"] == 0
            async with other.stream("GET", b, headers=resume_headers(session_id, seen[-1].id)) as response:
                assert response.status_code == 200
                rest = await SseReader(response).rest()
    messages = [e.message for e in rest if e.data]
    assert [m["params"]["progress"] for m in messages if "method" in m] == [2]
    assert messages[-1]["id"] == "r" and text_of(messages[-1]) == "done after 1"
    ids = [e.id for e in seen + rest if e.id]
    assert len(ids) == len(set(ids)), ids
    assert apps[0].stats == {"started": 1, "finished": 1, "cancelled": 0}


async def test_a_last_event_id_naming_no_stream_is_404_on_another_worker(redis):
    """(After the log's lag: an event a client has seen may reach the shared log a moment later.)"""
    async with workers(redis) as (_, (a, b)), new_client() as client:
        with trio.fail_after(20):
            session_id = await initialize(client, a)
            started = trio.current_time()
            async with client.stream("GET", b, headers=resume_headers(session_id, "99-1")) as response:
                assert response.status_code == 404
                assert "names no stream" in (await response.aread()).decode()
            assert trio.current_time() - started >= 2.0


async def test_an_answer_finished_while_away_is_replayed_by_another_worker(redis):
    async with workers(redis) as (apps, (a, b)), new_client() as client:
        with trio.fail_after(20):
            session_id = await initialize(client, a)
            body = call_tool("slow_steps", {"seconds": 0.3}, 11, progress_token="p")
            async with client.stream("POST", a, json=body, headers=legacy_headers(session_id)) as response:
                reader = SseReader(response)
                while not (await reader.next()).data:
                    pass
            last = [e.id for e in reader.events if e.id][-1]
            await wait_until(lambda: apps[0].stats["finished"] == 1, 5, "the call finishes on a")
            async with client.stream("GET", b, headers=resume_headers(session_id, last)) as response:
                rest = [e.message for e in await SseReader(response).rest() if e.data]
    assert rest[-1]["id"] == 11 and text_of(rest[-1]) == "done after 0.3"


async def test_a_list_change_on_one_worker_reaches_the_get_stream_on_another(redis):
    async with workers(redis) as (apps, (a, b)), new_client() as client, new_client() as other:
        with trio.fail_after(20):
            session_id = await initialize(client, a)
            headers = {"accept": "text/event-stream", "mcp-session-id": session_id, "mcp-protocol-version": LEGACY}
            async with other.stream("GET", b, headers=headers) as response:
                assert response.status_code == 200
                reader = SseReader(response)
                changed = await client.post(
                    a, json=call_tool("change_tools", {}, 1), headers=legacy_headers(session_id)
                )
                assert text_of(changed.json()) == "changed"
                message = await reader.next_message()
    assert message["method"] == "notifications/tools/list_changed"


def _messages(response):
    from ..transports.http.client import messages_of

    return messages_of(response)


async def test_idle_expiry_holds_across_workers_and_use_on_any_renews_it(redis):
    from mcptrio.transports.http import HttpConfig

    async with workers(redis, config=HttpConfig(session_idle_timeout=0.6)) as (apps, (a, b)), new_client() as client:
        with trio.fail_after(20):
            session_id = await initialize(client, a)
            for _ in range(4):  # used on b every 0.3 s: it stays alive past a's own idle time
                await trio.sleep(0.3)
                used = await client.post(b, json=call_tool("echo", {"text": "x"}), headers=legacy_headers(session_id))
                assert used.status_code == 200
            await trio.sleep(1.0)  # unused on every worker for longer than the timeout
            for url in (a, b):
                gone = await client.post(url, json=call_tool("echo", {"text": "x"}), headers=legacy_headers(session_id))
                assert gone.status_code == 404


async def test_a_resource_update_on_one_worker_reaches_subscribers_on_another(redis):
    """A legacy session subscribed on a, its GET stream on b; a 2026-07-28 listen stream on b;
    the change is made on a."""
    from ..transports.http.client import final_of, modern, modern_tool

    async with workers(redis) as (apps, (a, b)), new_client() as client, new_client() as other, new_client() as third:
        with trio.fail_after(20):
            session_id = await initialize(client, a)
            subscribed = await client.post(
                a, json=rpc("resources/subscribe", {"uri": "test://hello"}, 2), headers=legacy_headers(session_id)
            )
            assert subscribed.status_code == 200 and subscribed.json()["result"] == {}
            get = {"accept": "text/event-stream", "mcp-session-id": session_id, "mcp-protocol-version": LEGACY}
            listen, headers = modern(
                "subscriptions/listen", {"notifications": {"resourceSubscriptions": ["test://hello"]}}, "sub"
            )
            async with (
                other.stream("GET", b, headers=get) as legacy_stream,
                third.stream("POST", b, json=listen, headers=headers) as modern_stream,
            ):
                legacy_reader, modern_reader = SseReader(legacy_stream), SseReader(modern_stream)
                await legacy_reader.next()  # the priming event: the GET stream is attached on b
                assert (await modern_reader.next_message())["method"] == "notifications/subscriptions/acknowledged"
                body, headers = modern_tool("change_hello", {}, 3)
                assert text_of(final_of(await client.post(a, json=body, headers=headers), 3)) == "updated"
                on_legacy = await legacy_reader.next_message()
                on_modern = await modern_reader.next_message()
    assert on_legacy == {
        "jsonrpc": "2.0",
        "method": "notifications/resources/updated",
        "params": {"uri": "test://hello"},
    }
    assert on_modern["method"] == "notifications/resources/updated" and on_modern["params"]["uri"] == "test://hello"
