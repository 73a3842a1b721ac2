"""Tasks with the official MCP Python SDK (``mcp`` 2.3.0) as the client, over stdio.

What the SDK supports, measured here: its types cover the 2025-11-25 experimental tasks
(``CallToolRequestParams.task``, ``CreateTaskResult``, ``tasks/get``, ``tasks/result``,
``tasks/list``, ``tasks/cancel``), but its client checks every ``tools/call`` answer against
``CallToolResult`` and so refuses the ``CreateTaskResult`` that starts a task; it has nothing
for the 2026-07-28 extension (no ``tasks/update``, no ``resultType: "task"``).  So: a task is
started on the SDK's own connection through its dispatcher, and everything after goes through
the SDK's typed task requests, which validate our answers; an ordinary ``call_tool`` of a
task-capable tool is an ordinary call.  The 2026-07-28 flow is covered by mcptrio's own client
(tests/tasks) and the conformance suite's ``tasks-*`` scenarios.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mcp_types as types
import trio

from .test_sdk_stdio import Answers, answers, open_stdio  # noqa: F401 - the fixture


async def send(client: Any, request: Any, result_type: Any) -> Any:
    return await client.session.send_request(request, result_type)


async def start_task(client: Any, name: str, arguments: dict[str, Any], ttl: int | None = None) -> dict[str, Any]:
    """tools/call with the task param, answered by CreateTaskResult (which the SDK's call_tool refuses)."""
    params = {"name": name, "arguments": arguments, "task": {} if ttl is None else {"ttl": ttl}}
    raw = await client.session._dispatcher.send_raw_request("tools/call", params, {})
    return types.CreateTaskResult.model_validate(raw).task


async def test_the_sdk_follows_a_2025_11_25_task_to_its_result(tmp_path: Path, answers: Answers) -> None:
    async with open_stdio(tmp_path, answers) as (client, _):
        caps = client.server_capabilities
        assert caps is not None and caps.tasks is not None and caps.tasks.requests is not None
        plain = await client.call_tool("slow_compute", {"seconds": 0})  # no task param: an ordinary call
        assert plain.content[0].text == "Computed after 0 s"
        task = await start_task(client, "slow_compute", {"seconds": 0.3}, ttl=60_000)
        assert task.status == "working" and task.ttl == 60_000
        got = await send(
            client, types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=task.task_id)), types.GetTaskResult
        )
        assert got.task_id == task.task_id and got.status in ("working", "completed")
        result = await send(
            client,
            types.GetTaskPayloadRequest(params=types.GetTaskPayloadRequestParams(task_id=task.task_id)),
            types.CallToolResult,
        )
        assert result.content[0].text == "Computed after 0.3 s"
        listed = await send(client, types.ListTasksRequest(), types.ListTasksResult)
        assert [(t.task_id, t.status) for t in listed.tasks] == [(task.task_id, "completed")]


async def test_the_sdk_cancels_a_2025_11_25_task(tmp_path: Path, answers: Answers) -> None:
    async with open_stdio(tmp_path, answers) as (client, _):
        task = await start_task(client, "slow_compute", {"seconds": 30})
        await trio.sleep(0.2)
        cancelled = await send(
            client,
            types.CancelTaskRequest(params=types.CancelTaskRequestParams(task_id=task.task_id)),
            types.CancelTaskResult,
        )
        assert cancelled.status == "cancelled"
