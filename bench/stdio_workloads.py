"""The stdio workloads: sanity, sequential/pipelined/mixed echo, cancellation, stdin EOF, and the bare stdio floor."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

import orjson
from client import BenchError, StdioServer, perf, rotating, spawn_startup, status_kib, stdio_line
from launch import Impl, Logs
from measure import CpuMeter, mib
from results import Results
from settings import BENCH, TEXT, Settings


def echo_line(tool: str = "echo") -> Callable[[int], bytes]:
    return stdio_line("tools/call", {"name": tool, "arguments": {"text": TEXT}})


def stdio_sanity(server: StdioServer) -> None:
    """The same workload on both: tools, resource and prompt answer as expected."""
    tools = {t["name"] for t in server.request("tools/list", {})["result"]["tools"]}
    if not {"echo", "echo_sync", "sleep", "sleep_stats"} <= tools:
        raise BenchError(f"tools/list lacks the bench tools: {sorted(tools)}")
    if server.call("echo", {"text": "x y"}) != "x y" or server.call("echo_sync", {"text": "x y"}) != "x y":
        raise BenchError("echo or echo_sync does not echo")
    contents = server.request("resources/read", {"uri": "bench://info"})["result"]["contents"]
    if "server" not in json.loads(contents[0]["text"]):
        raise BenchError(f"bench://info: {contents}")
    prompt = server.request("prompts/get", {"name": "greet", "arguments": {"name": "Ada"}})["result"]
    if prompt["messages"][0]["content"]["text"] != "Hello, Ada!":
        raise BenchError(f"greet: {prompt}")
    counters = json.loads(server.call("sleep_stats", {}))
    if set(counters) != {"started", "completed", "cancelled"}:
        raise BenchError(f"sleep_stats: {counters}")


def stdio_suite(impl: Impl, settings: Settings, results: Results, logs: Logs, rep: int) -> None:
    name = impl.name
    server = StdioServer(impl.stdio_argv, env=impl.env, stderr=logs.open(f"{name}-stdio-{rep}"), cwd=impl.cwd)
    try:
        server.initialize()
        results.add("stdio.startup_ms", name, server.startup_ms)
        results.add("stdio.rss_idle_mib", name, mib(status_kib(server.pid, "VmRSS")))
        stdio_sanity(server)
        echo = echo_line()
        server.pipelined(echo, 16, max_calls=10**9, seconds=settings.warmup)  # warm-up, untimed

        def measure(key: str, run: Callable[[], tuple[int, float]], cpu_key: str | None = None) -> None:
            meter = CpuMeter(server.pid)
            calls, elapsed = run()
            cpu, client_cpu = meter.read()
            results.add(key, name, calls / elapsed)
            if cpu_key:
                results.add(cpu_key, name, cpu / calls * 1e6)
            results.phase(
                rep=rep,
                impl=name,
                figure=key,
                calls=calls,
                elapsed_s=elapsed,
                server_cpu_s=cpu,
                client_cpu_s=client_cpu,
            )

        bounds = settings.bounds()
        measure("stdio.sequential", lambda: server.sequential(echo, **bounds), "stdio.cpu_us_sequential")
        for window in settings.windows:
            measure(
                f"stdio.pipelined_{window}",
                lambda: server.pipelined(echo, window, **bounds),
                "stdio.cpu_us_pipelined_64" if window == 64 else None,
            )
        mixed = rotating(
            [
                echo,
                stdio_line("tools/list", {}),
                stdio_line("resources/read", {"uri": "bench://info"}),
                stdio_line("prompts/get", {"name": "greet", "arguments": {"name": "Ada"}}),
            ]
        )
        measure("stdio.mixed_16", lambda: server.pipelined(mixed, 16, **bounds))
        echo_sync = echo_line("echo_sync")  # the same echo as a plain def: a worker thread per call
        measure("stdio.sync_sequential", lambda: server.sequential(echo_sync, **bounds), "stdio.cpu_us_sync_sequential")
        measure(
            "stdio.sync_pipelined_64",
            lambda: server.pipelined(echo_sync, 64, **bounds),
            "stdio.cpu_us_sync_pipelined_64",
        )
        stdio_cancel(server, impl, settings, results, rep)
        results.add("stdio.peak_rss_mib", name, mib(status_kib(server.pid, "VmHWM")))
    finally:
        server.stop()
    stdio_eof(impl, settings, results, logs, rep)


def stdio_startup(impl: Impl, settings: Settings, results: Results, logs: Logs, rep: int) -> None:
    """Spawn → initialize answered for a server with every feature, as a plugin and as a file
    (``settings.startups`` fresh processes each; their median is this repetition's sample), and
    the CPU it used until then."""
    for figure, argv in (("stdio.startup_everything", impl.everything_argv), ("stdio.startup_file", impl.file_argv)):
        startups(impl, figure, argv, settings, results, logs, rep)


def startups(
    impl: Impl, figure: str, argv: list[str] | None, settings: Settings, results: Results, logs: Logs, rep: int
) -> None:
    if argv is None:
        results.add(f"{figure}_ms", impl.name, None, "no such server")
        return
    times, cpus = [], []
    for i in range(settings.startups):
        startup_ms, cpu_ms = spawn_startup(
            argv, env=impl.env, stderr=logs.open(f"{impl.name}-{figure}-{rep}-{i}"), cwd=impl.cwd
        )
        times.append(startup_ms)
        cpus.append(cpu_ms)
    results.add(f"{figure}_ms", impl.name, statistics.median(times))
    results.phase(rep=rep, impl=impl.name, figure=figure, startup_ms=times, cpu_ms=cpus)


def sleep_counters(server: StdioServer) -> dict[str, int]:
    return json.loads(server.call("sleep_stats", {}))


def stdio_cancel(server: StdioServer, impl: Impl, settings: Settings, results: Results, rep: int) -> None:
    before = sleep_counters(server)
    sleep_id = server.new_id()
    server.send(
        {
            "jsonrpc": "2.0",
            "id": sleep_id,
            "method": "tools/call",
            "params": {"name": "sleep", "arguments": {"ms": settings.cancel_sleep_ms}},
        }
    )
    deadline = perf() + 5
    while sleep_counters(server)["started"] <= before["started"]:
        if perf() > deadline:
            raise BenchError("sleep(10000) never started")
        time.sleep(0.005)
    time.sleep(0.05)  # the sleep is well under way
    start = perf()
    server.notify("notifications/cancelled", {"requestId": sleep_id, "reason": "bench: cancel"})
    ping = server.request("ping", {})
    next_ms = (perf() - start) * 1000
    if "result" not in ping:
        raise BenchError(f"ping after cancel: {ping}")
    stop_ms = None
    while perf() - start < settings.cancel_bound:
        if sleep_counters(server)["cancelled"] > before["cancelled"]:
            stop_ms = (perf() - start) * 1000
            break
        time.sleep(0.002)
    answered = [m for m in server.stray if m.get("id") == sleep_id]
    results.add("stdio.cancel_next_ms", impl.name, next_ms)
    results.add("stdio.cancel_stop_ms", impl.name, stop_ms, f"not cancelled within {settings.cancel_bound:g} s")
    results.phase(
        rep=rep,
        impl=impl.name,
        figure="stdio.cancel",
        next_ms=next_ms,
        stop_ms=stop_ms,
        cancelled_request_answered=bool(answered),
    )
    if answered:
        results.note(f"{impl.name} stdio: the cancelled request was answered anyway: {str(answered[0])[:160]}")


def stdio_eof(impl: Impl, settings: Settings, results: Results, logs: Logs, rep: int) -> None:
    """20 sleep(200) in flight, then stdin closes: how many answers come out before the exit."""
    server = StdioServer(impl.stdio_argv, env=impl.env, stderr=logs.open(f"{impl.name}-stdio-eof-{rep}"), cwd=impl.cwd)
    try:
        server.initialize()
        ids = set()
        batch = []
        for _ in range(settings.eof_requests):
            request_id = server.new_id()
            ids.add(request_id)
            batch.append(
                orjson.dumps(
                    {
                        "jsonrpc": "2.0",
                        "id": request_id,
                        "method": "tools/call",
                        "params": {"name": "sleep", "arguments": {"ms": settings.eof_sleep_ms}},
                    }
                )
            )
        server.write(b"\n".join(batch) + b"\n")
        server.close_stdin()
        start = perf()
        messages = server.drain_until_eof(10.0)
        try:
            server.proc.wait(10.0)
            exit_ms = (perf() - start) * 1000
        except subprocess.TimeoutExpired:
            exit_ms = None
        answers = [m for m in messages if m.get("id") in ids]
        ok = sum(1 for m in answers if "result" in m and not m["result"].get("isError"))
        results.add("stdio.eof_answered", impl.name, ok)
        results.add("stdio.eof_exit_ms", impl.name, exit_ms, "did not exit within 10 s")
        results.phase(
            rep=rep,
            impl=impl.name,
            figure="stdio.eof",
            answered_ok=ok,
            answers=len(answers),
            errors=[m.get("error") for m in answers if "error" in m][:3],
            exit_ms=exit_ms,
            returncode=server.proc.returncode,
        )
    finally:
        server.stop()


# The floor: the interpreter, Trio and orjson answering each line at once, nothing of MCP.
BARE_STDIO = [sys.executable, str(BENCH / "servers" / "bare_stdio.py")]


def bare_stdio_suite(settings: Settings, results: Results, logs: Logs, rep: int) -> None:
    server = StdioServer(BARE_STDIO, stderr=logs.open(f"bare-stdio-{rep}"))
    try:
        server.initialize()  # (answered as any request: the interpreter, Trio and orjson, nothing more)
        results.add("bare.stdio.startup_ms", "mcptrio", server.startup_ms)
        echo = echo_line()
        server.pipelined(echo, 16, max_calls=10**9, seconds=settings.warmup)
        bounds = settings.bounds()
        calls, elapsed = server.sequential(echo, **bounds)
        results.add("bare.stdio.sequential", "mcptrio", calls / elapsed)
        pipelined_64(
            server, settings, results, rep, "mcptrio", "bare.stdio.pipelined_64", "bare.stdio.cpu_us_pipelined_64"
        )
    finally:
        server.stop()


def pipelined_64(
    server: StdioServer, settings: Settings, results: Results, rep: int, impl: str, key: str, cpu_key: str
) -> None:
    """Echo with 64 in flight: calls/s under ``key``, the server's CPU per call (µs) under ``cpu_key``."""
    meter = CpuMeter(server.pid)
    calls, elapsed = server.pipelined(echo_line(), 64, **settings.bounds())
    cpu, client_cpu = meter.read()
    results.add(key, impl, calls / elapsed)
    results.add(cpu_key, impl, cpu / calls * 1e6)
    results.phase(
        rep=rep, impl=impl, figure=key, calls=calls, elapsed_s=elapsed, server_cpu_s=cpu, client_cpu_s=client_cpu
    )
