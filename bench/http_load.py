"""The HTTP load phase: N clients calling echo in a loop, each on its own connection; its samples recorded."""

from __future__ import annotations

import asyncio
import ssl
from dataclasses import dataclass

from client import BenchError, McpHttpClient, connect_client, perf, tool_text
from measure import CpuMeter, percentile
from results import Results
from settings import HOST, PATH, TEXT

RETRYABLE = (BenchError, OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError)


@dataclass
class LoadResult:
    calls: int
    errors: int
    elapsed: float
    latencies: list[float]
    server_cpu: float
    client_cpu: float
    error_kinds: dict[str, int]
    reconnects: int


async def http_load(
    port: int,
    pid: int | None,
    era: str,
    concurrency: int,
    seconds: float,
    max_calls: int,
    bare: bool = False,
    warmup: float = 0.0,
    extra_headers: tuple[tuple[str, str], ...] = (),
    tls: ssl.SSLContext | None = None,
) -> LoadResult:
    """``concurrency`` clients, each on its own connection (and legacy session), calling echo in a loop."""
    clients = await asyncio.gather(
        *(connect_client(HOST, port, PATH, "modern" if bare else era, extra_headers, tls) for _ in range(concurrency))
    )
    try:
        if warmup > 0:
            await _load(clients, warmup, 10**9, bare)
        meter = CpuMeter(pid)
        result = await asyncio.wait_for(_load(clients, seconds, max_calls, bare), seconds + 30)
        result.server_cpu, result.client_cpu = meter.read()
        return result
    finally:
        if era == "legacy" and not bare:
            await asyncio.gather(*(_delete_quietly(c) for c in clients))
        for c in clients:
            c.conn.close()


async def _delete_quietly(client: McpHttpClient) -> None:
    try:
        if client.conn.writer is None:
            await client.conn.connect()
        await asyncio.wait_for(client.delete_session(), 5)
    except RETRYABLE + (asyncio.TimeoutError,):
        pass


async def _load(clients: list[McpHttpClient], seconds: float, max_calls: int, bare: bool) -> LoadResult:
    latencies: list[float] = []
    error_kinds: dict[str, int] = {}
    issued = 0
    reconnects0 = sum(c.conn.reconnects for c in clients)
    start = perf()
    deadline = start + seconds
    params = {"name": "echo", "arguments": {"text": TEXT}}

    async def worker(client: McpHttpClient) -> None:
        nonlocal issued
        while issued < max_calls and perf() < deadline:
            issued += 1
            request_id, headers, body = client.build("tools/call", params, "echo")
            sent = perf()
            try:
                response = await client.conn.request("POST", PATH, headers, body)
                if response.status != 200:
                    raise BenchError(f"HTTP {response.status}")
                if bare:  # the same parse and check as an MCP answer, so the floor includes the client's part
                    if tool_text(response.answer(1)) != TEXT:
                        raise BenchError("bare: not the fixed echo answer")
                elif tool_text(response.answer(request_id)) != TEXT:
                    raise BenchError("echo answered a different text")
                latencies.append(perf() - sent)
            except RETRYABLE as exc:
                kind = f"{type(exc).__name__}: {str(exc)[:80]}"
                error_kinds[kind] = error_kinds.get(kind, 0) + 1
                client.conn.close()
                await client.conn.connect()  # same session, new connection

    await asyncio.gather(*(worker(c) for c in clients))
    elapsed = perf() - start
    reconnects = sum(c.conn.reconnects for c in clients) - reconnects0
    return LoadResult(len(latencies), sum(error_kinds.values()), elapsed, latencies, 0.0, 0.0, error_kinds, reconnects)


def record_load(results: Results, key: str, impl: str, rep: int, load: LoadResult) -> None:
    """``{key}.rps``, ``.p50_ms`` and ``.p99_ms`` of one load phase (n/a if every request failed)."""
    lat = sorted(load.latencies)
    if load.calls:
        results.add(f"{key}.rps", impl, load.calls / load.elapsed)
        results.add(f"{key}.p50_ms", impl, percentile(lat, 0.50) * 1000)
        results.add(f"{key}.p99_ms", impl, percentile(lat, 0.99) * 1000)
    else:
        for suffix in ("rps", "p50_ms", "p99_ms"):
            results.add(f"{key}.{suffix}", impl, None, "every request failed")
    if load.errors:
        results.note(
            f"{impl} {key} (rep {rep}): {load.errors} of {load.calls + load.errors} requests failed: "
            + "; ".join(f"{n}× {k}" for k, n in load.error_kinds.items())
        )
    results.phase(
        rep=rep,
        impl=impl,
        figure=key,
        calls=load.calls,
        errors=load.errors,
        error_kinds=load.error_kinds,
        elapsed_s=load.elapsed,
        server_cpu_s=load.server_cpu,
        client_cpu_s=load.client_cpu,
        reconnects=load.reconnects,
        latencies_us=[round(x * 1e6) for x in load.latencies],
    )
