"""2025-11-25 experimental tasks in legacy sessions: the same tools, that revision's wire."""

from __future__ import annotations

import trio

from mcptrio.testing import open_client

from .apps import EXT, Trail, make_app

RELATED = "io.modelcontextprotocol/related-task"
CAPS = {"elicitation": {}, "extensions": {EXT: {}}}  # (the extension means nothing in this revision)


def legacy(app, **kwargs):
    return open_client(
        app,
        era="legacy",
        version=kwargs.pop("version", "2025-11-25"),
        capabilities=kwargs.pop("capabilities", CAPS),
        **kwargs,
    )


async def call_as_task(client, tool, arguments=None, ttl=None):
    task = {} if ttl is None else {"ttl": ttl}
    result = await client.request("tools/call", {"name": tool, "arguments": arguments or {}, "task": task})
    assert set(result) >= {"task"}, result
    return result["task"]


async def test_capabilities_and_tool_listing_name_task_support():
    async with legacy(make_app()) as client:
        caps = client.initialize_result["capabilities"]
        tools = {t["name"]: t for t in (await client.request("tools/list"))["tools"]}
    assert caps["tasks"] == {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
    assert "extensions" not in caps
    assert tools["work"]["execution"] == {"taskSupport": "optional"}
    assert tools["must_be_task"]["execution"] == {"taskSupport": "required"}
    assert "execution" not in tools["quick"]


async def test_older_revisions_have_no_tasks():
    async with legacy(make_app(), version="2025-06-18") as client:
        assert "tasks" not in client.initialize_result["capabilities"]
        assert (await client.response("tasks/get", {"taskId": "x"}))["error"]["code"] == -32601
        # the task param means nothing there: the call runs as an ordinary one
        result = await client.request("tools/call", {"name": "work", "arguments": {"seconds": 0}, "task": {}})
        assert result["content"][0]["text"] == "worked 0 s"


async def test_create_get_result_with_this_revisions_fields(autojump_clock):
    async with legacy(make_app()) as client:
        task = await call_as_task(client, "work", {"seconds": 2}, ttl=60_000)
        assert task["status"] == "working" and task["ttl"] == 60_000 and "pollInterval" in task
        assert "ttlMs" not in task
        got = await client.request("tasks/get", {"taskId": task["taskId"]})
        assert got["status"] == "working" and got["ttl"] == 60_000
        started = trio.current_time()
        result = await client.request("tasks/result", {"taskId": task["taskId"]})  # blocks until the end
        assert trio.current_time() - started >= 1.9
    assert result["content"][0]["text"] == "worked 2 s"
    assert result["_meta"][RELATED] == {"taskId": task["taskId"]}


async def test_status_notifications_reach_the_session(autojump_clock):
    async with legacy(make_app()) as client:
        task = await call_as_task(client, "work", {"seconds": 1})
        await trio.sleep(1.5)
        notes = await client.wait_for_notification("notifications/tasks/status")
    assert notes[-1]["params"]["taskId"] == task["taskId"] and notes[-1]["params"]["status"] == "completed"


async def test_tool_support_is_enforced_with_method_not_found():
    async with legacy(make_app()) as client:
        never = await client.response("tools/call", {"name": "quick", "arguments": {"text": "x"}, "task": {}})
        required = await client.response("tools/call", {"name": "must_be_task", "arguments": {}})
    assert never["error"]["code"] == -32601 and required["error"]["code"] == -32601


async def test_a_tool_error_fails_the_task_and_tasks_result_returns_what_the_call_would_have(autojump_clock):
    async with legacy(make_app()) as client:
        refused = await call_as_task(client, "refuse")
        crashed = await call_as_task(client, "crash")
        await trio.sleep(0.1)
        assert (await client.request("tasks/get", {"taskId": refused["taskId"]}))["status"] == "failed"
        result = await client.request("tasks/result", {"taskId": refused["taskId"]})
        assert result["isError"] is True
        error = await client.response("tasks/result", {"taskId": crashed["taskId"]})
    assert error["error"]["code"] == -32603 and error["error"]["message"] == "the work crashed"


async def test_cancel_settles_at_once_and_a_terminal_task_cannot_be_cancelled(autojump_clock):
    trail = Trail()
    async with legacy(make_app(trail)) as client:
        task = await call_as_task(client, "work", {"seconds": 30})
        await trio.sleep(0.5)
        cancelled = await client.request("tasks/cancel", {"taskId": task["taskId"]})
        assert cancelled["status"] == "cancelled"  # before the answer, as 2025-11-25 requires
        await trio.sleep(0.1)
        again = await client.response("tasks/cancel", {"taskId": task["taskId"]})
        assert (await client.request("tasks/get", {"taskId": task["taskId"]}))["status"] == "cancelled"
    assert again["error"]["code"] == -32602
    assert trail.events == [("work", "started"), ("work", "cancelled")]


async def test_elicitation_inside_a_task_goes_to_the_client_tagged_with_the_task(autojump_clock):
    seen = []

    async def elicit(params):
        seen.append(params)
        await trio.sleep(1)
        return {"action": "accept", "content": {"ok": True}}

    async with legacy(make_app(), handlers={"elicitation/create": elicit}) as client:
        task = await call_as_task(client, "ask")
        await trio.sleep(0.5)
        assert (await client.request("tasks/get", {"taskId": task["taskId"]}))["status"] == "input_required"
        result = await client.request("tasks/result", {"taskId": task["taskId"]})
    assert result["content"][0]["text"] == "answer: accept {'ok': True}"
    assert seen[0]["_meta"][RELATED] == {"taskId": task["taskId"]}


async def test_tasks_are_the_sessions_own(autojump_clock):
    app = make_app()
    async with legacy(app) as mine, legacy(app) as other:
        task = await call_as_task(mine, "work", {"seconds": 5})
        for method in ("tasks/get", "tasks/result", "tasks/cancel"):
            refused = await other.response(method, {"taskId": task["taskId"]})
            unknown = await other.response(method, {"taskId": "no-such-task"})
            assert refused["error"] == unknown["error"] and refused["error"]["code"] == -32602
        assert (await other.request("tasks/list"))["tasks"] == []
        listed = (await mine.request("tasks/list"))["tasks"]
    assert [t["taskId"] for t in listed] == [task["taskId"]]


async def test_when_the_session_ends_its_running_tasks_are_cancelled(autojump_clock):
    trail = Trail()
    app = make_app(trail)
    async with legacy(app) as client:
        await call_as_task(client, "work", {"seconds": 60})
        await trio.sleep(0.5)
    await trio.sleep(0.5)
    assert trail.events == [("work", "started"), ("work", "cancelled")]
    assert not app.tasks.live
