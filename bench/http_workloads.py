"""The HTTP workloads: echo load in each response mode, 1,000 legacy sessions, cancellation, and the bare-ASGI floor."""

from __future__ import annotations

import asyncio
import functools
import json

from client import BenchError, HttpConnection, McpHttpClient, connect_client, perf, status_kib
from http_load import http_load, record_load
from launch import HttpServer, Impl, Logs, serving
from measure import mib
from results import Results
from scale_out import Listeners, ListenStream, legacy_get
from settings import HOST, PATH, TEXT, Settings


async def http_suite(impl: Impl, settings: Settings, results: Results, logs: Logs, rep: int) -> None:
    name = impl.name
    peak = 0
    # mode name -> (server response mode, era of the requests)
    plan = [("modern", "auto", "modern"), ("legacy_sse", "sse", "legacy"), ("legacy_json", "json", "legacy")]
    for mode, server_mode, era in plan:
        argv = functools.partial(_argv_in_mode, impl, server_mode)
        async with serving(impl, argv, logs, f"{name}-http-{server_mode}-{rep}") as server:
            if mode == "modern":  # the default configuration: start-up and cancellation
                results.add("http.startup_ms", name, server.startup_ms)
            for c in settings.concurrency:
                load = await http_load(
                    server.port, server.pid, era, c, settings.seconds, settings.max_calls, warmup=settings.warmup
                )
                record_load(results, f"http.{mode}.c{c}", name, rep, load)
                if c == 10 and load.calls:
                    results.add(f"http.{mode}.cpu_us", name, load.server_cpu / load.calls * 1e6)
            if mode == "modern":
                await http_cancel(server, impl, settings, results, rep, "legacy")
                await http_cancel(server, impl, settings, results, rep, "modern")
            peak = max(peak, status_kib(server.pid, "VmHWM"))
    # 1,000 sessions on a server of their own (default configuration): no throughput phase runs
    # on a heap they just churned, and their RSS is measured from a fresh start.
    argv = functools.partial(_argv_in_mode, impl, "auto")
    async with serving(impl, argv, logs, f"{name}-http-sessions-{rep}") as server:
        await sessions_phase(server, impl, settings, results, rep)
        peak = max(peak, status_kib(server.pid, "VmHWM"))
    results.add("http.peak_rss_mib", name, mib(peak))


def _argv_in_mode(impl: Impl, server_mode: str, port: int) -> list[str]:
    return impl.http_argv(port, server_mode)


async def open_sessions(conns: list[HttpConnection], total: int) -> list[str]:
    """``total`` legacy sessions opened (initialize + initialized) over ``conns`` at once: their ids."""
    opened: list[str] = []

    async def opener(conn: HttpConnection) -> None:
        while len(opened) < total:
            slot = len(opened)
            opened.append("")  # claimed before the await, so the count is exact
            opened[slot] = await McpHttpClient(conn, PATH).open_session()

    await asyncio.wait_for(asyncio.gather(*(opener(c) for c in conns)), 120)
    return opened


async def sessions_phase(
    server: HttpServer, impl: Impl, settings: Settings, results: Results, rep: int, prefix: str = "http"
) -> None:
    """N idle legacy sessions: how fast they open, what they cost in RSS, what DELETE gives back
    (the figures under ``prefix``)."""
    name = impl.name
    warm = await connect_client(HOST, server.port, PATH, "legacy")  # first-session imports and caches
    await warm.call("echo", {"text": TEXT})
    await warm.delete_session()
    warm.conn.close()
    await asyncio.sleep(0.3)
    results.add(f"{prefix}.rss_idle_mib", name, mib(status_kib(server.pid, "VmRSS")))
    base = status_kib(server.pid, "VmRSS")
    conns = [await HttpConnection(HOST, server.port).connect() for _ in range(10)]
    start = perf()
    opened = await open_sessions(conns, settings.sessions)
    elapsed = perf() - start
    await asyncio.sleep(0.3)
    open_kib = status_kib(server.pid, "VmRSS")

    async def deleter(conn: HttpConnection, ids: list[str]) -> int:
        failed = 0
        for session_id in ids:
            client = McpHttpClient(conn, PATH, session_id=session_id)
            if await client.delete_session() not in (200, 202, 204):
                failed += 1
        return failed

    ids = [i for i in opened if i]
    failed = sum(await asyncio.wait_for(asyncio.gather(*(deleter(c, ids[k::10]) for k, c in enumerate(conns))), 120))
    for c in conns:
        c.close()
    await asyncio.sleep(0.5)
    deleted_kib = status_kib(server.pid, "VmRSS")
    results.add(f"{prefix}.sessions_per_s", name, len(ids) / elapsed)
    results.add(f"{prefix}.session_kib", name, (open_kib - base) / len(ids))
    results.add(f"{prefix}.sessions_rss_open_mib", name, mib(open_kib))
    results.add(f"{prefix}.sessions_rss_deleted_mib", name, mib(deleted_kib))
    results.phase(
        rep=rep,
        impl=name,
        figure=f"{prefix}.sessions",
        sessions=len(ids),
        elapsed_s=elapsed,
        rss_before_kib=base,
        rss_open_kib=open_kib,
        rss_deleted_kib=deleted_kib,
        delete_failed=failed,
    )
    if failed:
        results.note(f"{name}: {failed} of {len(ids)} DELETEs were refused")


async def http_cancel(server: HttpServer, impl: Impl, settings: Settings, results: Results, rep: int, era: str) -> None:
    """Start sleep(10000), close its response (the HTTP way to cancel), watch the counters."""
    control = await connect_client(HOST, server.port, PATH, era)

    async def counters() -> dict[str, int]:
        return json.loads(await control.call("sleep_stats", {}))

    before = await counters()
    doomed = control.share_session(await HttpConnection(HOST, server.port).connect())
    _, headers, body = doomed.build(
        "tools/call", {"name": "sleep", "arguments": {"ms": settings.cancel_sleep_ms}}, "sleep"
    )
    doomed.conn.send("POST", PATH, headers, body)
    deadline = perf() + 5
    while (await counters())["started"] <= before["started"]:
        if perf() > deadline:
            raise BenchError(f"{impl.name} {era}: sleep never started")
        await asyncio.sleep(0.005)
    await asyncio.sleep(0.05)
    start = perf()
    doomed.conn.close()
    answer = await control.call("echo", {"text": TEXT})
    next_ms = (perf() - start) * 1000
    if answer != TEXT:
        raise BenchError("echo after cancel answered wrongly")
    stop_ms = None
    while perf() - start < settings.cancel_bound:
        if (await counters())["cancelled"] > before["cancelled"]:
            stop_ms = (perf() - start) * 1000
            break
        await asyncio.sleep(0.002)
    if era == "legacy":
        await control.delete_session()
    control.conn.close()
    results.add(f"http.cancel_{era}_next_ms", impl.name, next_ms)
    results.add(
        f"http.cancel_{era}_stop_ms", impl.name, stop_ms, f"work not cancelled within {settings.cancel_bound:g} s"
    )
    results.phase(rep=rep, impl=impl.name, figure=f"http.cancel_{era}", next_ms=next_ms, stop_ms=stop_ms)


async def bare_http_suite(impl: Impl, settings: Settings, results: Results, logs: Logs, rep: int) -> None:
    """The floor: a bare ASGI app with a fixed echo answer on the same HTTP server as ``impl``."""
    async with serving(impl, impl.bare_http_argv, logs, f"{impl.name}-bare-http-{rep}") as server:
        for c in settings.concurrency:
            load = await http_load(
                server.port,
                server.pid,
                "modern",
                c,
                settings.seconds,
                settings.max_calls,
                bare=True,
                warmup=settings.warmup,
            )
            record_load(results, f"bare.c{c}", impl.name, rep, load)


async def streams_phase(
    server: HttpServer, impl: Impl, settings: Settings, results: Results, rep: int, prefix: str
) -> None:
    """``settings.sessions`` legacy sessions, each with its GET stream open (the stream a server
    sends notifications and its own requests on): the RSS each open stream adds to its session."""
    name = impl.name
    conns = [await HttpConnection(HOST, server.port).connect() for _ in range(10)]
    ids = await open_sessions(conns, settings.sessions)
    for conn in conns:
        conn.close()
    await asyncio.sleep(0.3)
    base = status_kib(server.pid, "VmRSS")
    loop = asyncio.get_running_loop()
    group = Listeners()
    group.count = group.wanted_acks = len(ids)
    transports = []
    try:
        for session_id in ids:
            request = legacy_get(server.port, session_id)
            transport, _ = await loop.create_connection(
                lambda r=request: ListenStream(group, r, acked_by=None), HOST, server.port
            )
            transports.append(transport)
        await asyncio.wait_for(group.acked.wait(), 60)
        if group.refused:
            raise BenchError(f"GET streams refused: {len(group.refused)}× {group.refused[0]}")
        await asyncio.sleep(0.5)
        open_kib = status_kib(server.pid, "VmRSS")
    finally:
        for transport in transports:
            transport.close()
    results.add(f"{prefix}.stream_kib", name, (open_kib - base) / len(ids))
    results.phase(
        rep=rep, impl=name, figure=f"{prefix}.streams", streams=len(ids), rss_before_kib=base, rss_open_kib=open_kib
    )
