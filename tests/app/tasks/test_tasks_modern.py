"""The 2026-07-28 tasks extension through the public API (in memory; other transports elsewhere)."""

from __future__ import annotations

import re

import pytest
import trio

from mcptrio.testing import open_client

from .apps import EXT, MODERN_CAPS, Trail, make_app

ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def answer_with(content):
    async def handler(params):
        return {"action": "accept", "content": content}

    return handler


def modern(app, **kwargs):
    return open_client(app, era="modern", capabilities=kwargs.pop("capabilities", MODERN_CAPS), **kwargs)


async def create(client, tool, arguments=None):
    result = await client.request("tools/call", {"name": tool, "arguments": arguments or {}}, follow_task=False)
    assert result["resultType"] == "task", result
    return result


async def get(client, task_id):
    return await client.request("tasks/get", {"taskId": task_id}, follow_task=False)


async def test_a_task_is_created_working_then_completed_with_its_result_inlined(autojump_clock):
    async with modern(make_app()) as client:
        created = await create(client, "work", {"seconds": 5})
        assert set(created) >= {"taskId", "status", "createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs"}
        assert "requestState" not in created and "task" not in created and "result" not in created
        assert created["status"] == "working" and len(created["taskId"]) >= 32  # >= 128 random bits
        assert ISO.match(created["createdAt"]) and isinstance(created["ttlMs"], int)
        working = await get(client, created["taskId"])  # durable at once
        assert working["status"] == "working" and working["resultType"] == "complete"
        assert "result" not in working and "error" not in working
        await trio.sleep(5.1)
        done = await get(client, created["taskId"])
    assert done["status"] == "completed"
    assert done["result"]["content"][0]["text"] == "worked 5 s"
    assert "io.modelcontextprotocol/related-task" not in done["result"].get("_meta", {})
    assert done["lastUpdatedAt"] > done["createdAt"]


async def test_the_client_follows_a_task_as_if_it_were_a_call(autojump_clock):
    async with modern(make_app()) as client:
        result = await client.call_tool("work", {"seconds": 3})
    assert result["content"][0]["text"] == "worked 3 s"


async def test_without_the_extension_optional_tools_run_directly_and_required_ones_are_refused():
    async with modern(make_app(), capabilities={}) as client:
        direct = await client.request("tools/call", {"name": "work", "arguments": {"seconds": 0}})
        assert direct["resultType"] == "complete" and "taskId" not in direct
        refused = await client.response("tools/call", {"name": "must_be_task", "arguments": {}})
        assert refused["error"]["code"] == -32021
        assert refused["error"]["data"] == {"requiredCapabilities": {"extensions": {EXT: {}}}}
        for method in ("tasks/get", "tasks/update", "tasks/cancel"):
            assert (await client.response(method, {"taskId": "x"}))["error"]["code"] == -32021
    async with modern(make_app()) as client:
        # the legacy task param is ignored: a sync tool stays sync
        plain = await client.request("tools/call", {"name": "quick", "arguments": {"text": "x"}, "task": {"ttl": 5}})
        assert plain["resultType"] == "complete"


async def test_server_discover_announces_the_extension():
    async with modern(make_app()) as client:
        discovered = await client.request("server/discover")
    assert discovered["capabilities"]["extensions"] == {EXT: {}}
    assert "tasks" not in discovered["capabilities"]


async def test_input_required_then_update_then_completed(autojump_clock):
    async with modern(make_app()) as client:
        created = await create(client, "ask")
        await trio.sleep(0.1)
        waiting = await get(client, created["taskId"])
        assert waiting["status"] == "input_required"
        (key,) = waiting["inputRequests"]
        assert waiting["inputRequests"][key]["method"] == "elicitation/create"
        ack = await client.request(
            "tasks/update",
            {
                "taskId": created["taskId"],
                "inputResponses": {
                    key: {"action": "accept", "content": {"ok": True}},
                    "never-issued": {"action": "decline"},
                },
            },
        )
        assert ack["resultType"] == "complete"
        await trio.sleep(0.1)
        done = await get(client, created["taskId"])
    assert done["status"] == "completed"
    assert done["result"]["content"][0]["text"] == "answer: accept {'ok': True}"


async def test_partial_answers_keep_the_task_waiting_on_the_rest(autojump_clock):
    async with modern(make_app()) as client:
        created = await create(client, "ask_two")
        await trio.sleep(0.1)
        assert set((await get(client, created["taskId"]))["inputRequests"]) == {"a", "b"}
        await client.request(
            "tasks/update",
            {"taskId": created["taskId"], "inputResponses": {"a": {"action": "accept", "content": {"v": "1"}}}},
        )
        partial = await get(client, created["taskId"])
        assert partial["status"] == "input_required" and set(partial["inputRequests"]) == {"b"}
        await client.request(
            "tasks/update",
            {"taskId": created["taskId"], "inputResponses": {"b": {"action": "accept", "content": {"v": "2"}}}},
        )
        await trio.sleep(0.1)
        done = await get(client, created["taskId"])
    assert done["result"]["content"][0]["text"] == "1+2"


async def test_follow_task_answers_input_requests_through_the_handlers(autojump_clock):
    handlers = {"elicitation/create": answer_with({"ok": False})}
    async with modern(make_app(), handlers=handlers) as client:
        result = await client.call_tool("ask")
    assert result["content"][0]["text"] == "answer: accept {'ok': False}"


async def test_cancel_while_working_the_handler_sees_cancelled(autojump_clock):
    trail = Trail()
    async with modern(make_app(trail)) as client:
        created = await create(client, "work", {"seconds": 60})
        await trio.sleep(1)
        ack = await client.request("tasks/cancel", {"taskId": created["taskId"]})
        assert ack == {"resultType": "complete", "_meta": ack["_meta"]}
        await trio.sleep(0.1)
        cancelled = await get(client, created["taskId"])
    assert cancelled["status"] == "cancelled"
    assert trail.events == [("work", "started"), ("work", "cancelled")]


async def test_cancel_after_completion_is_acknowledged_and_changes_nothing(autojump_clock):
    async with modern(make_app()) as client:
        created = await create(client, "work", {"seconds": 0})
        await trio.sleep(0.1)
        await client.request("tasks/cancel", {"taskId": created["taskId"]})
        assert (await get(client, created["taskId"]))["status"] == "completed"


async def test_a_tool_error_completes_and_a_protocol_error_fails(autojump_clock):
    async with modern(make_app()) as client:
        refused, crashed = await create(client, "refuse"), await create(client, "crash")
        await trio.sleep(0.1)
        tool_error = await get(client, refused["taskId"])
        failed = await get(client, crashed["taskId"])
    assert tool_error["status"] == "completed" and tool_error["result"]["isError"] is True
    assert failed["status"] == "failed" and "result" not in failed
    assert failed["error"] == {"code": -32603, "message": "the work crashed"}
    assert failed["statusMessage"] == "the work crashed"


async def test_expired_and_unknown_tasks_are_the_same_invalid_params(autojump_clock):
    async with modern(make_app(ttl_ms=10_000)) as client:
        created = await create(client, "work", {"seconds": 0})
        await trio.sleep(9)
        assert (await get(client, created["taskId"]))["status"] == "completed"
        await trio.sleep(2)
        expired = await client.response("tasks/get", {"taskId": created["taskId"]})
        unknown = await client.response("tasks/get", {"taskId": "no-such-task"})
        not_a_string = await client.response("tasks/update", {"taskId": 7, "inputResponses": {}})
    assert expired["error"] == unknown["error"] and expired["error"]["code"] == -32602
    assert not_a_string["error"]["code"] == -32602


async def test_the_reaper_forgets_expired_tasks_and_cancels_running_ones(autojump_clock):
    trail = Trail()
    app = make_app(trail, ttl_ms=5_000, reap_interval=1.0)
    async with modern(app) as client:
        await create(client, "work", {"seconds": 60})
        await trio.sleep(7)
    assert len(app.tasks.store) == 0
    assert trail.events == [("work", "started"), ("work", "cancelled")]


async def test_tasks_result_and_tasks_list_do_not_exist_in_this_era():
    async with modern(make_app()) as client:
        for method in ("tasks/result", "tasks/list"):
            assert (await client.response(method, {"taskId": "x"}))["error"]["code"] == -32601


async def test_the_number_of_running_tasks_is_bounded(autojump_clock):
    async with modern(make_app(max_running=2)) as client:
        await create(client, "work", {"seconds": 10})
        await create(client, "work", {"seconds": 10})
        over = await client.response("tools/call", {"name": "work", "arguments": {"seconds": 10}})
        assert over["error"]["code"] == -31503 and over["error"]["data"] == {"retryAfter": 1}
        await trio.sleep(10.1)
        await create(client, "work", {"seconds": 1})  # room again


async def test_mrtr_first_then_a_task_with_the_gathered_answer(autojump_clock):
    trail = Trail()
    async with modern(make_app(trail)) as client:
        first = await client.request("tools/call", {"name": "gather_then_task", "arguments": {}}, follow_task=False)
        assert first["resultType"] == "input_required" and "taskId" not in first
        second = await client.request(
            "tools/call",
            {
                "name": "gather_then_task",
                "arguments": {},
                "requestState": first["requestState"],
                "inputResponses": {"name": {"action": "accept", "content": {"name": "Ada"}}},
            },
            follow_task=False,
        )
        assert second["resultType"] == "task" and "requestState" not in second and "inputRequests" not in second
        await trio.sleep(0.1)
        done = await get(client, second["taskId"])
    assert done["result"]["content"][0]["text"] == "hello Ada"
    assert trail.events == [
        ("gather_then_task", "before start_task"),
        ("gather_then_task", "before start_task"),
        ("gather_then_task", "in the task"),
    ]


async def test_a_client_comes_back_by_id_on_a_new_connection(autojump_clock):
    app = make_app()
    async with modern(app) as first:
        created = await create(first, "work", {"seconds": 2})
    await trio.sleep(3)
    async with modern(app) as second:
        done = await get(second, created["taskId"])
    assert done["status"] == "completed"


async def test_listen_streams_carry_task_notifications_for_the_ids_asked(autojump_clock):
    async with modern(make_app()) as client:
        created = await create(client, "work", {"seconds": 1})
        listen_id, _ = await client.start_request(
            "subscriptions/listen", {"notifications": {"taskIds": [created["taskId"], "not-mine"]}}
        )
        (ack,) = await client.wait_for_notification("notifications/subscriptions/acknowledged")
        assert ack["params"]["notifications"] == {"taskIds": [created["taskId"]]}
        await trio.sleep(1.5)
        (note,) = await client.wait_for_notification("notifications/tasks")
    assert note["params"]["taskId"] == created["taskId"] and note["params"]["status"] == "completed"
    assert note["params"]["result"]["content"][0]["text"] == "worked 1 s"


async def test_listening_for_tasks_without_the_extension_is_refused():
    async with modern(make_app(), capabilities={}) as client:
        refused = await client.response("subscriptions/listen", {"notifications": {"taskIds": ["x"]}})
    assert refused["error"]["code"] == -32021


def test_task_options_are_checked_when_declared():
    app = make_app()
    with pytest.raises(ValueError):
        app.tool(task="sometimes")
    with pytest.raises(ValueError):
        app.tool(task="optional", task_timeout=0)


async def test_a_task_timeout_fails_the_task(autojump_clock):
    app = make_app()

    @app.tool(task="optional", task_timeout=2)
    async def too_slow() -> str:
        await trio.sleep(10)
        return "never"

    async with modern(app) as client:
        created = await create(client, "too_slow")
        await trio.sleep(3)
        failed = await get(client, created["taskId"])
    assert failed["status"] == "failed" and "ran out of time" in failed["error"]["message"]
