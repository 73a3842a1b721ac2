"""Tasks over real transports: Streamable HTTP (both eras), WebSocket and stdio."""

from __future__ import annotations

import json
import sys

import trio
from trio_websocket import open_websocket_url

from mcptrio.testing import open_process_client

from ...transports.http.client import (
    CLIENT_INFO,
    final_of,
    http_server,
    initialize,
    legacy_headers,
    modern,
    new_client,
    notification,
    rpc,
    ws_server,
)
from .apps import MODERN_CAPS, make_app


async def poll_http(http, url, task_id, until="completed", **kwargs):
    with trio.fail_after(10):
        while True:
            body, headers = modern("tasks/get", {"taskId": task_id}, 9, capabilities=MODERN_CAPS, **kwargs)
            got = final_of(await http.post(url, json=body, headers=headers))["result"]
            if got["status"] == until:
                return got
            await trio.sleep(0.05)


async def test_modern_http_with_the_mcp_name_header_of_the_task():
    async with http_server(make_app()) as url, new_client() as http:
        body, headers = modern(
            "tools/call", {"name": "work", "arguments": {"seconds": 0.2}}, 1, capabilities=MODERN_CAPS
        )
        created = final_of(await http.post(url, json=body, headers=headers))["result"]
        assert created["resultType"] == "task"
        done = await poll_http(http, url, created["taskId"])
        assert done["result"]["content"][0]["text"] == "worked 0.2 s"
        # the routing header must name the task (SEP-2663): missing or different is -32020, HTTP 400
        for wrong in ({"mcp-name": "another-task"}, None):
            body, headers = modern(
                "tasks/get",
                {"taskId": created["taskId"]},
                2,
                capabilities=MODERN_CAPS,
                headers=wrong,
                omit=("mcp-name",) if wrong is None else (),
            )
            refused = await http.post(url, json=body, headers=headers)
            assert refused.status_code == 400 and refused.json()["error"]["code"] == -32020


async def test_legacy_http_session_tasks_result_blocks_until_done():
    async with http_server(make_app()) as url, new_client() as http:
        session_id = await initialize(http, url)
        params = {"name": "work", "arguments": {"seconds": 0.3}, "task": {}}
        created = final_of(await http.post(url, json=rpc("tools/call", params, 1), headers=legacy_headers(session_id)))
        task_id = created["result"]["task"]["taskId"]
        result = await http.post(
            url, json=rpc("tasks/result", {"taskId": task_id}, 2), headers=legacy_headers(session_id)
        )
        assert final_of(result)["result"]["content"][0]["text"] == "worked 0.3 s"
        # another session is told the task does not exist
        other = await initialize(http, url)
        refused = await http.post(url, json=rpc("tasks/get", {"taskId": task_id}, 3), headers=legacy_headers(other))
        assert final_of(refused)["error"]["code"] == -32602


async def test_websocket_both_eras():
    async with ws_server(make_app()) as url:
        with trio.fail_after(10):
            async with open_websocket_url(url, subprotocols=["mcp"]) as ws:
                params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": CLIENT_INFO}
                await ws.send_message(json.dumps(rpc("initialize", params, 0)))
                await ws.get_message()
                await ws.send_message(json.dumps(notification("notifications/initialized")))
                await ws.send_message(
                    json.dumps(rpc("tools/call", {"name": "work", "arguments": {"seconds": 0.1}, "task": {}}, 1))
                )
                task_id = json.loads(await ws.get_message())["result"]["task"]["taskId"]
                await ws.send_message(json.dumps(rpc("tasks/result", {"taskId": task_id}, 2)))
                while True:  # (status notifications may come first)
                    message = json.loads(await ws.get_message())
                    if message.get("id") == 2:
                        break
                assert message["result"]["content"][0]["text"] == "worked 0.1 s"
                body, _ = modern(
                    "tools/call", {"name": "work", "arguments": {"seconds": 0}}, 3, capabilities=MODERN_CAPS
                )
                await ws.send_message(json.dumps(body))
                created = json.loads(await ws.get_message())["result"]
                assert created["resultType"] == "task"


async def test_stdio_with_the_everything_plugin_a_client_follows_the_task():
    command = [sys.executable, "-m", "mcptrio", "serve", "--plugins", "everything"]
    async with open_process_client(command, era="modern", capabilities=MODERN_CAPS) as client:
        created = await client.request(
            "tools/call", {"name": "slow_compute", "arguments": {"seconds": 0.2}}, follow_task=False
        )
        assert created["resultType"] == "task"
        result = await client.call_tool("slow_compute", {"seconds": 0.1})
        assert result["content"][0]["text"] == "Computed after 0.1 s"
    assert client.end.process.returncode == 0
