"""Runtime behaviour through the public testing client: one session, in memory."""

import orjson
import pytest
import trio

from mcptrio import App, McpError, SessionLimits
from mcptrio.protocol.versions import LEGACY_VERSIONS
from mcptrio.testing import open_client

from .apps import build_app


def text_of(result):
    return result["content"][0]["text"]


@pytest.mark.parametrize("version", LEGACY_VERSIONS)
async def test_legacy_call_each_version(app, version):
    async with open_client(app, version=version) as client:
        assert client.initialize_result["protocolVersion"] == version
        tools = await client.request("tools/list")
        assert "echo" in [t["name"] for t in tools["tools"]]
        result = await client.call_tool("echo", {"text": "hi"})
        assert text_of(result) == "hi" and not result.get("isError")


async def test_modern_call_without_handshake(app):
    async with open_client(app, era="modern") as client:
        result = await client.call_tool("echo", {"text": "hey"})
        assert text_of(result) == "hey"
        assert result["resultType"] == "complete"
        assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "test-server"
        listing = await client.request("tools/list")
        assert listing["cacheScope"] == "public" and listing["ttlMs"] == 0


async def test_slow_handler_never_delays_ping(app, autojump_clock):
    async with open_client(app) as client:
        await client.start_request("tools/call", {"name": "sleep", "arguments": {"seconds": 1000}})
        started = trio.current_time()
        assert await client.request("ping") == {}
        assert trio.current_time() == started


async def test_cancel_stops_the_worker_and_sends_no_response(app, autojump_clock):
    async with open_client(app) as client:
        request_id, answer = await client.start_request("tools/call", {"name": "sleep", "arguments": {"seconds": 1000}})
        await trio.sleep(1)
        assert app.stats["started"] == 1
        await client.notify("notifications/cancelled", {"requestId": request_id, "reason": "user"})
        assert await client.request("ping") == {}
        await trio.sleep(5000)  # longer than the handler would have slept
        assert app.stats == {"started": 1, "finished": 0, "cancelled": 1}
        with pytest.raises(trio.WouldBlock):
            answer.receive_nowait()
        assert client.unmatched == []
        # unknown and finished ids are ignored; the session keeps serving
        await client.notify("notifications/cancelled", {"requestId": request_id})
        await client.notify("notifications/cancelled", {"requestId": "never-sent"})
        assert text_of(await client.call_tool("echo", {"text": "still here"})) == "still here"


async def test_deadline_gives_an_error_result_naming_the_timeout(autojump_clock):
    app = build_app(limits=SessionLimits(request_timeout=5))
    async with open_client(app) as client:
        started = trio.current_time()
        result = await client.call_tool("sleep", {"seconds": 100})
        assert trio.current_time() - started == pytest.approx(5)
        assert result["isError"] is True and "timed out after 5 s" in text_of(result)
        assert app.stats["cancelled"] == 1


async def test_other_requests_past_their_deadline_get_the_runtimes_json_rpc_error(autojump_clock):
    app = build_app(limits=SessionLimits(request_timeout=5))

    @app.resource("memo://slow")
    async def slow() -> str:
        await trio.sleep(100)
        return "late"

    async with open_client(app) as client:
        answer = await client.response("resources/read", {"uri": "memo://slow"})
    assert answer["error"] == {"code": -32603, "message": "request timed out after 5 s"}


async def test_the_runtime_builds_no_tool_result_a_host_does_not_give_it(autojump_clock):
    class Host(App):
        def timed_out(self, request, timeout):
            return None  # (an App's boundary would answer a tool call with an isError result)

    app = Host("no-tool-results", limits=SessionLimits(request_timeout=5))

    @app.tool()
    async def sleep(seconds: float) -> str:
        await trio.sleep(seconds)
        return "slept"

    async with open_client(app) as client:
        answer = await client.response("tools/call", {"name": "sleep", "arguments": {"seconds": 100}})
    assert answer["error"] == {"code": -32603, "message": "request timed out after 5 s"}


@pytest.mark.parametrize("token", [7, "tok-1"])
async def test_progress_echoes_the_token_exactly(app, token):
    async with open_client(app) as client:
        result = await client.request(
            "tools/call", {"name": "count", "arguments": {"steps": 3}}, meta={"progressToken": token}
        )
        assert text_of(result) == "counted"
        progress = [n["params"] for n in client.notifications if n["method"] == "notifications/progress"]
        assert [p["progress"] for p in progress] == [1, 2, 3]
        assert all(p["progressToken"] == token and type(p["progressToken"]) is type(token) for p in progress)
        assert progress[0] == {"progressToken": token, "progress": 1, "total": 3, "message": "step 1"}


async def test_no_progress_without_a_token_and_decreasing_is_refused(app):
    async with open_client(app) as client:
        await client.call_tool("count", {"steps": 2})
        assert client.notifications == []
        result = await client.call_tool("backwards")
        assert text_of(result).startswith("refused: progress must increase")


async def test_legacy_log_levels(app):
    async with open_client(app) as client:
        await client.call_tool("chatty")
        levels = [n["params"]["level"] for n in client.notifications]
        assert levels == ["debug", "info", "warning", "error"]
        assert client.notifications[0]["params"]["logger"] == "chatty"
        client.notifications.clear()
        await client.request("logging/setLevel", {"level": "warning"})
        await client.call_tool("chatty")
        assert [n["params"]["level"] for n in client.notifications] == ["warning", "error"]


async def test_modern_logs_only_with_a_level(app):
    async with open_client(app, era="modern") as client:
        await client.call_tool("chatty")
        assert client.notifications == []
        await client.call_tool("chatty", meta={"io.modelcontextprotocol/logLevel": "info"})
        assert [n["params"]["level"] for n in client.notifications] == ["info", "warning", "error"]


# -- server→client requests -------------------------------------------------------------------------


async def answer_name(params):
    assert params["message"] == "Your name?" and params["requestedSchema"]["type"] == "object"
    return {"action": "accept", "content": {"name": "Ann"}}


async def answer_sample(params):
    assert params["maxTokens"] == 10
    return {"role": "assistant", "content": {"type": "text", "text": "hi!"}, "model": "m"}


async def answer_roots(params):
    return {"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]}


HANDLERS = {"elicitation/create": answer_name, "sampling/createMessage": answer_sample, "roots/list": answer_roots}
ALL_CAPS = {"elicitation": {}, "sampling": {}, "roots": {}}


async def test_legacy_elicitation_round_trip(app):
    async with open_client(app, capabilities={"elicitation": {}}, handlers=HANDLERS) as client:
        assert text_of(await client.call_tool("ask_name")) == "hello Ann"


async def test_legacy_elicitation_refused_without_capability(app):
    async with open_client(app, handlers=HANDLERS) as client:
        result = await client.call_tool("ask_name")
        assert result["isError"] and "'elicitation' capability" in text_of(result)


async def test_legacy_client_request_timeout(autojump_clock):
    app = build_app(limits=SessionLimits(client_request_timeout=3))

    async def never(params):
        await trio.sleep_forever()

    async with open_client(app, capabilities={"elicitation": {}}, handlers={"elicitation/create": never}) as client:
        started = trio.current_time()
        result = await client.call_tool("ask_name")
        assert trio.current_time() - started == pytest.approx(3)
        assert result["isError"] and "did not answer elicitation/create within 3 s" in text_of(result)
        cancels = [n for n in client.notifications if n["method"] == "notifications/cancelled"]
        assert cancels and cancels[0]["params"]["requestId"].startswith("mcptrio-")


async def test_legacy_sampling_and_roots(app):
    async with open_client(app, capabilities=ALL_CAPS, handlers=HANDLERS) as client:
        assert text_of(await client.call_tool("ask_twice")) == "Ann|hi!|2"


async def test_modern_elicitation_is_multi_round_trip(app):
    async with open_client(app, era="modern", capabilities={"elicitation": {}}, handlers=HANDLERS) as client:
        first = await client.call_tool("ask_name")
        assert first["resultType"] == "input_required"
        [(key, request)] = first["inputRequests"].items()
        assert request["method"] == "elicitation/create" and request["params"]["message"] == "Your name?"
        assert isinstance(first["requestState"], str)
        retry = {
            "name": "ask_name",
            "arguments": {},
            "requestState": first["requestState"],
            "inputResponses": {key: {"action": "accept", "content": {"name": "Bo"}}},
        }
        final = await client.request("tools/call", retry)
        assert final["resultType"] == "complete" and text_of(final) == "hello Bo"


async def test_modern_several_rounds_accumulate_in_state(app):
    async with open_client(app, era="modern", capabilities=ALL_CAPS, handlers=HANDLERS) as client:
        rounds = []
        params = {"name": "ask_twice", "arguments": {}}
        while True:
            result = await client.request("tools/call", params)
            if result["resultType"] == "complete":
                break
            rounds.append(list(result["inputRequests"]))
            answers = {k: await HANDLERS[r["method"]](r["params"]) for k, r in result["inputRequests"].items()}
            params = dict(params, requestState=result["requestState"], inputResponses=answers)
        assert len(rounds) == 3  # elicit, then sample, then roots: only new answers each time
        assert text_of(result) == "Ann|hi!|2"


async def test_modern_tampered_state_is_an_error(app):
    async with open_client(app, era="modern", capabilities={"elicitation": {}}) as client:
        first = await client.call_tool("ask_name")
        state = first["requestState"]
        forged = state[:-3] + ("AAA" if not state.endswith("AAA") else "BBB")
        with pytest.raises(McpError) as info:
            await client.request(
                "tools/call", {"name": "ask_name", "arguments": {}, "requestState": forged, "inputResponses": {}}
            )
        assert info.value.code == -32602 and "verification" in info.value.message


async def test_modern_missing_capability_is_32021(app):
    async with open_client(app, era="modern") as client:
        with pytest.raises(McpError) as info:
            await client.call_tool("ask_name")
        assert info.value.code == -32021
        assert info.value.data == {"requiredCapabilities": {"elicitation": {}}}


# -- errors -----------------------------------------------------------------------------------------


async def test_handler_errors_stay_in_their_request(app):
    async with open_client(app) as client:
        result = await client.call_tool("explode")
        assert result["isError"] and "RuntimeError" in text_of(result)
        assert "secret" not in orjson.dumps(result).decode() and "Traceback" not in text_of(result)
        assert text_of(await client.call_tool("refuse")) == "this tool refuses politely"
        with pytest.raises(McpError) as info:
            await client.call_tool("rpc_error")
        assert (info.value.code, info.value.data) == (-32602, {"field": "x"})
        with pytest.raises(McpError) as info:
            await client.call_tool("no_such_tool")
        assert info.value.code == -32602 and "no_such_tool" in info.value.message
        assert text_of(await client.call_tool("echo", {"text": "ok"})) == "ok"


async def test_bad_arguments_are_an_is_error_result_naming_the_field(app):
    async with open_client(app) as client:
        result = await client.call_tool("echo", {"text": 5})
        assert result["isError"] and "'text'" in text_of(result)
        result = await client.call_tool("echo", {})
        assert result["isError"] and "text" in text_of(result)


@pytest.mark.parametrize(
    "raw, code",
    [
        (b'{"jsonrpc":"2.0","id":1,"method":', -32700),
        (b'{"jsonrpc":"2.0","id":1,"method":"ping","x":"\xff"}', -32700),
        (b"[1, 2]", -32600),
        (b"17", -32600),
        (b'{"id": 3, "method": "ping"}', -32600),
    ],
)
async def test_bad_input_gets_an_error_and_the_session_continues(app, raw, code):
    async with open_client(app, version="2025-06-18") as client:
        await client.send_raw(raw)
        [error] = await client.wait_for_unmatched(1)
        assert error["error"]["code"] == code
        assert await client.request("ping") == {}


async def test_oversize_message_gets_an_error_and_the_session_continues():
    app = build_app(limits=SessionLimits(max_message_size=1000))
    async with open_client(app) as client:
        await client.send_raw(orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping", "x": "y" * 2000}))
        [error] = await client.wait_for_unmatched(1)
        assert error["error"]["code"] == -32600 and "exceeds the limit of 1000 bytes" in error["error"]["message"]
        assert text_of(await client.call_tool("echo", {"text": "fine"})) == "fine"


async def test_duplicate_in_flight_id_never_cross_wires(app, autojump_clock):
    async with open_client(app) as client:
        call = {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {"name": "sleep", "arguments": {"seconds": 1}},
        }
        await client.send(call)
        await client.send(dict(call, params={"name": "echo", "arguments": {"text": "dup"}}))
        await trio.sleep(2)
        answers = [m for m in client.unmatched if m.get("id") == 7]
        assert len(answers) == 2
        assert answers[0]["error"]["code"] == -32600 and "already in flight" in answers[0]["error"]["message"]
        assert text_of(answers[1]["result"]) == "slept 1"
        assert "dup" not in orjson.dumps(client.unmatched).decode()


async def test_in_flight_limit(autojump_clock):
    app = build_app(limits=SessionLimits(max_in_flight=2))
    async with open_client(app) as client:
        for _ in range(2):
            await client.start_request("tools/call", {"name": "sleep", "arguments": {"seconds": 10}})
        with pytest.raises(McpError) as info:
            await client.call_tool("echo", {"text": "x"})
        assert "too many requests in flight (limit 2)" in info.value.message
        await trio.sleep(11)
        assert text_of(await client.call_tool("echo", {"text": "x"})) == "x"


async def test_batch_only_on_2025_03_26(app):
    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "b"}}},
    ]
    async with open_client(app, version="2025-03-26") as client:
        await client.send(batch)
        [reply] = await client.wait_for_unmatched(1)
        assert sorted(m["id"] for m in reply) == [1, 2]
        assert text_of(next(m for m in reply if m["id"] == 2)["result"]) == "b"
    async with open_client(app, version="2025-06-18") as client:
        await client.send(batch)
        [reply] = await client.wait_for_unmatched(1)
        assert reply["error"]["code"] == -32600


# -- shutdown ---------------------------------------------------------------------------------------


async def test_end_of_input_drains_in_flight_requests(autojump_clock):
    app = build_app(limits=SessionLimits(shutdown_grace=2))
    async with open_client(app) as client:
        _, short = await client.start_request("tools/call", {"name": "sleep", "arguments": {"seconds": 1}})
        _, long = await client.start_request("tools/call", {"name": "sleep", "arguments": {"seconds": 100}})
        await trio.sleep(0.1)
        started = trio.current_time()
    # leaving the block closed the client's input and waited for the server to finish
    assert trio.current_time() - started == pytest.approx(2)  # the grace period
    assert text_of((await short.receive())["result"]) == "slept 1"
    assert "shutting down" in (await long.receive())["error"]["message"]
    assert app.stats == {"started": 2, "finished": 1, "cancelled": 1}


async def test_shutdown_trigger_drains_too(autojump_clock):
    app = build_app(limits=SessionLimits(shutdown_grace=2))
    shutdown = trio.Event()
    async with open_client(app, shutdown=shutdown) as client:
        _, short = await client.start_request("tools/call", {"name": "sleep", "arguments": {"seconds": 1}})
        await trio.sleep(0.1)
        shutdown.set()
        assert text_of((await short.receive())["result"]) == "slept 1"
