"""Tasks under load (mcptrio only: the SDK's server has no tasks): 1,000 concurrent tasks.

Against ``mcptrio serve --plugins bench,bench_tasks`` over Streamable HTTP, 2026-07-28 era, the
client declaring the tasks extension:

* 1,000 ``sleep_task(2000)`` calls, each answered at once with a task; the server's RSS before
  and with all of them running gives the memory per running task;
* while they run, ``tasks/get`` from 10 clients: its latency p50 and p99;
* every task polled to ``completed`` (all 1,000 must be);
* the overhead of a task: ``echo_task`` as a task (create, then ``tasks/get`` until completed)
  against the same tool called directly (a request without the extension), sequential, p50.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import orjson
from client import (
    CLIENT_INFO,
    META_CAPABILITIES,
    META_CLIENT_INFO,
    META_VERSION,
    MODERN_VERSION,
    BenchError,
    HttpConnection,
    McpHttpClient,
    status_kib,
)
from figures import Figure
from launch import Impl, Logs, serving
from measure import percentile
from results import Results
from settings import HOST, PATH, Settings

EXT = "io.modelcontextprotocol/tasks"
TASKS = 1000
SLEEP_MS = 2000
PROBES = 200

FIGURES = [
    Figure("tasks.create_per_s", "tasks created (1,000 sleep_task(2000), 50 connections)", "tasks/s", "higher"),
    Figure("tasks.kib_per_task", "RSS per running task", "KiB", "lower", fmt="{:.1f}"),
    Figure("tasks.get_p50_ms", "tasks/get while 1,000 run, p50", "ms", "lower", fmt="{:.2f}"),
    Figure("tasks.get_p99_ms", "tasks/get while 1,000 run, p99", "ms", "lower", fmt="{:.2f}"),
    Figure("tasks.completed", "of the 1,000 tasks, completed", "tasks", "higher"),
    Figure("tasks.direct_p50_ms", "echo_task called directly, p50 (sequential)", "ms", "lower", fmt="{:.2f}"),
    Figure("tasks.task_p50_ms", "echo_task as a task to its result, p50 (sequential)", "ms", "lower", fmt="{:.2f}"),
]


def _body(request_id: int, method: str, params: dict[str, Any], tasks: bool = True) -> bytes:
    caps = {"extensions": {EXT: {}}} if tasks else {}
    params = {**params, "_meta": {META_VERSION: MODERN_VERSION, META_CAPABILITIES: caps, META_CLIENT_INFO: CLIENT_INFO}}
    return orjson.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})


async def _call(
    client: McpHttpClient, method: str, params: dict[str, Any], name: str | None, tasks: bool = True
) -> dict[str, Any]:
    client.next_id += 1
    response = await client.conn.request(
        "POST", PATH, client._headers(method, name), _body(client.next_id, method, params, tasks)
    )
    if response.status != 200:
        raise BenchError(f"{method}: HTTP {response.status} {response.body[:200]!r}")
    answer = response.answer(client.next_id)
    if "result" not in answer:
        raise BenchError(f"{method}: {str(answer)[:200]}")
    return answer["result"]


async def _clients(port: int, n: int) -> list[McpHttpClient]:
    return [McpHttpClient(await HttpConnection(HOST, port).connect(), PATH, "modern") for _ in range(n)]


async def tasks_suite(impl: Impl, settings: Settings, results: Results, logs: Logs, rep: int) -> None:
    argv = lambda port: impl.http_argv(port, "auto") + ["--plugins", "bench,bench_tasks", "--no-access-log"]  # noqa: E731
    async with serving(impl, argv, logs, f"tasks-{rep}") as server:
        clients = await _clients(server.port, 50)
        try:
            await _call(clients[0], "tools/call", {"name": "echo_task", "arguments": {"text": "warm"}}, "echo_task")
            await asyncio.sleep(0.3)
            before = status_kib(server.pid, "VmRSS")
            count = 200 if settings.smoke else TASKS
            ids: list[str] = []
            started = asyncio.get_running_loop().time()

            async def create(client: McpHttpClient, n: int) -> None:
                for _ in range(n):
                    created = await _call(
                        client, "tools/call", {"name": "sleep_task", "arguments": {"ms": SLEEP_MS}}, "sleep_task"
                    )
                    if created.get("resultType") != "task":
                        raise BenchError(f"sleep_task was not made a task: {str(created)[:200]}")
                    ids.append(created["taskId"])

            await asyncio.gather(*(create(c, count // len(clients)) for c in clients))
            created_in = asyncio.get_running_loop().time() - started
            results.add("tasks.create_per_s", impl.name, len(ids) / created_in)
            results.add("tasks.kib_per_task", impl.name, (status_kib(server.pid, "VmRSS") - before) / len(ids))
            latencies: list[float] = []

            async def probe(client: McpHttpClient) -> None:
                for _ in range(PROBES // 10):
                    task_id = random.choice(ids)
                    sent = asyncio.get_running_loop().time()
                    await _call(client, "tasks/get", {"taskId": task_id}, task_id)
                    latencies.append(asyncio.get_running_loop().time() - sent)

            await asyncio.gather(*(probe(c) for c in clients[:10]))
            lat = sorted(latencies)
            results.add("tasks.get_p50_ms", impl.name, percentile(lat, 0.50) * 1000)
            results.add("tasks.get_p99_ms", impl.name, percentile(lat, 0.99) * 1000)
            await asyncio.sleep(SLEEP_MS / 1000)
            done = 0
            for n, task_id in enumerate(ids):
                for _ in range(50):
                    got = await _call(clients[n % len(clients)], "tasks/get", {"taskId": task_id}, task_id)
                    if got["status"] == "completed":
                        done += 1
                        break
                    await asyncio.sleep(0.05)
            results.add("tasks.completed", impl.name, done)
            await _overhead(clients[0], impl, results)
        finally:
            for c in clients:
                c.conn.close()


async def _overhead(client: McpHttpClient, impl: Impl, results: Results) -> None:
    direct: list[float] = []
    as_task: list[float] = []
    loop = asyncio.get_running_loop()
    params = {"name": "echo_task", "arguments": {"text": "x"}}
    for _ in range(100):
        sent = loop.time()
        await _call(client, "tools/call", params, "echo_task", tasks=False)
        direct.append(loop.time() - sent)
        sent = loop.time()
        created = await _call(client, "tools/call", params, "echo_task")
        while (await _call(client, "tasks/get", {"taskId": created["taskId"]}, created["taskId"]))[
            "status"
        ] != "completed":
            pass
        as_task.append(loop.time() - sent)
    results.add("tasks.direct_p50_ms", impl.name, percentile(sorted(direct), 0.5) * 1000)
    results.add("tasks.task_p50_ms", impl.name, percentile(sorted(as_task), 0.5) * 1000)


def tasks_table(results: Results) -> list[str]:
    if results.median("tasks.completed", "mcptrio") is None:
        return []
    lines = [
        "",
        "### Tasks (mcptrio only: the SDK's server has no tasks), 2026-07-28 over HTTP",
        "",
        "| figure | mcptrio |",
        "| --- | ---: |",
    ]
    for figure in FIGURES:
        value = results.median(figure.key, "mcptrio")
        lines.append(f"| {figure.label} ({figure.unit}) | {'—' if value is None else figure.fmt.format(value)} |")
    return lines
