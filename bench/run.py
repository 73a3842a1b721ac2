"""mcptrio against the official MCP Python SDK: the same workload, interleaved, medians and ratios.

    .venv/bin/python bench/run.py              # the full run: a few minutes
    .venv/bin/python bench/run.py --smoke      # every phase with tiny counts, well under a minute
    .venv/bin/python bench/run.py --only mcptrio

The SDK (``mcp==2.3.0``) runs from its own virtualenv, bench/.venv-sdk, which this script
creates from PyPI on first use.  Every server is a child process on 127.0.0.1; the load client
(bench/client.py) speaks raw JSON-RPC.  Each repetition runs every suite once per server, the
order flipping between repetitions; a figure is the median over repetitions.

Prints a markdown table and writes every sample to bench/results/latest.json.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import platform
import resource
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import orjson

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from client import (  # noqa: E402
    BenchError,
    HttpConnection,
    McpHttpClient,
    StdioServer,
    connect_client,
    cpu_seconds,
    free_port,
    perf,
    rotating,
    status_kib,
    stdio_line,
    tool_text,
    wait_for_http,
)

REPO = BENCH.parent
SDK_VENV = BENCH / ".venv-sdk"
SDK_PIN = "mcp==2.3.0"
SDK_STAMP = SDK_VENV / f".installed-{SDK_PIN}"
RESULTS = BENCH / "results"
WORKDIR = RESULTS  # the servers' working directory: a private temporary one during a run (see run())
HOST = "127.0.0.1"
PATH = "/mcp"
IMPLS = ("mcptrio", "sdk")
TEXT = "hello"  # the echo payload
HTTP_MODES = ("legacy_sse", "legacy_json", "modern")
MODE_NAMES = {"legacy_sse": "legacy SSE", "legacy_json": "legacy JSON", "modern": "2026-07-28"}


# -- settings -----------------------------------------------------------------------------------

@dataclass
class Settings:
    reps: int = 3
    seconds: float = 1.5  # each throughput phase's time bound
    warmup: float = 0.3  # untimed load before each throughput phase
    max_calls: int = 50_000  # each throughput phase's count bound
    concurrency: tuple[int, ...] = (1, 10, 100)
    windows: tuple[int, ...] = (1, 16, 64)
    sessions: int = 1000
    eof_requests: int = 20
    eof_sleep_ms: int = 200
    cancel_sleep_ms: int = 10_000
    cancel_bound: float = 3.0  # how long cancelled work gets to stop before we call it n/a
    smoke: bool = False

    @classmethod
    def smoke_settings(cls) -> "Settings":
        # Time-bound phases of 0.25 s: long enough for /proc/<pid>/stat's 10 ms ticks to see CPU.
        return cls(reps=1, seconds=0.25, warmup=0.05, max_calls=5000, sessions=100, smoke=True)


# -- figures ------------------------------------------------------------------------------------

@dataclass
class Figure:
    key: str
    label: str
    unit: str
    better: str  # "higher" or "lower"
    fmt: str = "{:.0f}"
    zero_ok: bool = False  # a count that can honestly be 0
    delta: bool = False  # a difference of two readings: any sign is possible


def clients(c: int) -> str:
    return f"{c} client" + ("s" if c != 1 else "")


def figure_list(settings: Settings) -> list[Figure]:
    figs = [
        Figure("stdio.startup_ms", "stdio: spawn → initialize answered", "ms", "lower"),
        Figure("stdio.sequential", "stdio echo, sequential", "calls/s", "higher"),
    ]
    figs += [Figure(f"stdio.pipelined_{w}", f"stdio echo, {w} pipelined", "calls/s", "higher")
             for w in settings.windows]
    figs += [
        Figure("stdio.mixed_16", "stdio mixed (echo, tools/list, resources/read, prompts/get), 16 pipelined",
               "calls/s", "higher"),
        Figure("stdio.cpu_us_sequential", "stdio server CPU per call, sequential", "µs", "lower"),
        Figure("stdio.cpu_us_pipelined_64", "stdio server CPU per call, 64 pipelined", "µs", "lower"),
        Figure("stdio.rss_idle_mib", "stdio RSS after initialize", "MiB", "lower", "{:.1f}"),
        Figure("stdio.peak_rss_mib", "stdio peak RSS (VmHWM)", "MiB", "lower", "{:.1f}"),
        Figure("stdio.cancel_stop_ms", "stdio cancel → sleep counted cancelled", "ms", "lower", "{:.1f}"),
        Figure("stdio.cancel_next_ms", "stdio cancel → next ping answered", "ms", "lower", "{:.2f}"),
        Figure("stdio.eof_answered", f"stdio EOF with {settings.eof_requests} sleep({settings.eof_sleep_ms}) "
               "in flight: answered", "of %d" % settings.eof_requests, "higher", zero_ok=True),
        Figure("stdio.eof_exit_ms", "stdio EOF → process exited", "ms", "lower"),
    ]
    for mode in HTTP_MODES:
        name = MODE_NAMES[mode]
        for c in settings.concurrency:
            figs += [
                Figure(f"http.{mode}.c{c}.rps", f"HTTP {name}, {clients(c)}: throughput", "calls/s", "higher"),
                Figure(f"http.{mode}.c{c}.p50_ms", f"HTTP {name}, {clients(c)}: p50 latency", "ms", "lower", "{:.2f}"),
                Figure(f"http.{mode}.c{c}.p99_ms", f"HTTP {name}, {clients(c)}: p99 latency", "ms", "lower", "{:.2f}"),
            ]
        figs.append(Figure(f"http.{mode}.cpu_us", f"HTTP {name} server CPU per call (10 clients)", "µs", "lower"))
    figs += [
        Figure("http.startup_ms", "HTTP: spawn → initialize answered", "ms", "lower"),
        Figure("http.rss_idle_mib", "HTTP RSS after first session", "MiB", "lower", "{:.1f}"),
        Figure("http.peak_rss_mib", "HTTP peak RSS (VmHWM, worst of the 4 servers)", "MiB", "lower", "{:.1f}"),
        Figure("http.sessions_per_s", "legacy sessions opened (initialize + initialized), 10 clients",
               "sessions/s", "higher"),
        Figure("http.session_kib", f"RSS per idle legacy session ({settings.sessions} open)", "KiB", "lower",
               "{:.1f}", delta=True),
        Figure("http.sessions_rss_open_mib", f"RSS with {settings.sessions} idle sessions", "MiB", "lower",
               "{:.1f}"),
        Figure("http.sessions_rss_deleted_mib", f"RSS after DELETEing the {settings.sessions}", "MiB", "lower",
               "{:.1f}"),
        Figure("http.cancel_legacy_stop_ms", "HTTP legacy: close response → sleep counted cancelled", "ms",
               "lower", "{:.1f}"),
        Figure("http.cancel_legacy_next_ms", "HTTP legacy: close response → next echo answered", "ms", "lower",
               "{:.2f}"),
        Figure("http.cancel_modern_stop_ms", "HTTP 2026-07-28: close response → sleep counted cancelled", "ms",
               "lower", "{:.1f}"),
        Figure("http.cancel_modern_next_ms", "HTTP 2026-07-28: close response → next echo answered", "ms", "lower",
               "{:.2f}"),
    ]
    return figs


def baseline_list(settings: Settings) -> list[Figure]:
    figs = []
    for c in settings.concurrency:
        figs += [
            Figure(f"bare.c{c}.rps", f"bare ASGI, {clients(c)}: throughput", "calls/s", "higher"),
            Figure(f"bare.c{c}.p50_ms", f"bare ASGI, {clients(c)}: p50 latency", "ms", "lower", "{:.2f}"),
            Figure(f"bare.c{c}.p99_ms", f"bare ASGI, {clients(c)}: p99 latency", "ms", "lower", "{:.2f}"),
        ]
    figs += [Figure("bare.stdio.pipelined_64", "bare Trio stdio echo loop, 64 pipelined", "calls/s", "higher"),
             Figure("bare.stdio.sequential", "bare Trio stdio echo loop, sequential", "calls/s", "higher")]
    for what, label in TUNED.items():
        figs.append(Figure(f"tuned.{what}.c10.rps", f"{label} on tuned hypercorn (experiment), 10 clients",
                           "calls/s", "higher"))
    return figs


# The hypercorn experiment (servers/hypercorn_tuned.py): what each runs there, at 10 clients.
TUNED = {"bare": "bare ASGI", "legacy_json": "mcptrio legacy JSON", "modern": "mcptrio 2026-07-28"}


class Results:
    """Every sample by figure and server, every phase's raw record, and the notes."""

    def __init__(self) -> None:
        self.samples: dict[str, dict[str, list[float]]] = {}
        self.na: dict[str, dict[str, str]] = {}
        self.phases: list[dict[str, Any]] = []
        self.notes: list[str] = []
        self.source_start: dict[str, str] = {}
        self.source_end: dict[str, str] = {}
        self.load: dict[str, Any] = {}
        self.rep = 0  # the repetition now running: samples are also kept by repetition, for paired ratios
        self.by_rep: dict[str, dict[str, dict[int, float]]] = {}

    def add(self, key: str, impl: str, value: float | None, why_na: str | None = None) -> None:
        if value is None:
            self.na.setdefault(key, {})[impl] = why_na or "n/a"
            return
        self.samples.setdefault(key, {}).setdefault(impl, []).append(float(value))
        self.by_rep.setdefault(key, {}).setdefault(impl, {})[self.rep] = float(value)

    def paired_ratio(self, key: str, impl: str, base_key: str, base_impl: str) -> float | None:
        """Median over repetitions of (key, impl) / (base_key, base_impl) within each repetition:
        slow drift of the machine's speed cancels out of each ratio."""
        mine = self.by_rep.get(key, {}).get(impl, {})
        base = self.by_rep.get(base_key, {}).get(base_impl, {})
        ratios = [mine[rep] / base[rep] for rep in mine if base.get(rep)]
        return statistics.median(ratios) if ratios else None

    def phase(self, **record: Any) -> None:
        self.phases.append(record)

    def note(self, text: str) -> None:
        print(f"  note: {text}", file=sys.stderr, flush=True)
        self.notes.append(text)

    def median(self, key: str, impl: str) -> float | None:
        values = self.samples.get(key, {}).get(impl)
        return statistics.median(values) if values else None


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


# -- servers --------------------------------------------------------------------------------------

def ensure_sdk_venv() -> Path:
    """bench/.venv-sdk with the pinned SDK from PyPI (created once, ~15 s); its python."""
    python = SDK_VENV / "bin" / "python"
    if SDK_STAMP.exists() and python.exists():
        return python
    log(f"creating {SDK_VENV.relative_to(REPO)} with {SDK_PIN} from PyPI ...")
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--clear", str(SDK_VENV)], check=True, timeout=120)
    pip = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", SDK_PIN],
                         capture_output=True, text=True, timeout=600)
    if pip.returncode != 0:
        sys.stderr.write(pip.stdout + pip.stderr)
        raise SystemExit(f"bench: could not install {SDK_PIN} into {SDK_VENV} (use --only mcptrio without it)")
    SDK_STAMP.write_text(SDK_PIN + "\n")
    return python


def ensure_gitignore() -> None:
    ignore = BENCH / ".gitignore"
    wanted = [".venv-sdk/", "results/", "__pycache__/", "*.prof"]
    present = ignore.read_text().splitlines() if ignore.exists() else []
    missing = [line for line in wanted if line not in present]
    if missing:
        with ignore.open("a") as f:
            f.write("".join(line + "\n" for line in missing))


@dataclass
class Impl:
    name: str
    python: str
    stdio_argv: list[str]
    http_argv: Callable[[int, str], list[str]]  # (port, mode) -> argv; mode: sse | json | auto
    bare_http_argv: Callable[[int], list[str]]
    env: dict[str, str] = field(default_factory=dict)


def make_impls(only: str | None) -> list[Impl]:
    main_python = sys.executable
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSTARTUP", "PYTHONPROFILEIMPORTTIME")}
    impls = []
    if only in (None, "mcptrio"):
        mcptrio_cli = str(Path(main_python).parent / "mcptrio")
        serve = ([mcptrio_cli, "serve", "--plugins", "bench"] if os.path.exists(mcptrio_cli)
                 else [main_python, "-m", "mcptrio", "serve", "--plugins", "bench"])
        impls.append(Impl(
            "mcptrio", main_python, serve,
            lambda port, mode: serve + ["--transport", "http", "--host", HOST, "--port", str(port),
                                        "--response-mode", mode],
            lambda port: [main_python, str(BENCH / "servers" / "bare_asgi.py"), "--server", "hypercorn",
                          "--port", str(port)],
            dict(env),
        ))
    if only in (None, "sdk"):
        sdk_python = str(ensure_sdk_venv())
        server = str(BENCH / "peers" / "sdk_server.py")
        impls.append(Impl(
            "sdk", sdk_python, [sdk_python, server],
            lambda port, mode: [sdk_python, server, "--transport", "http", "--port", str(port)]
            + (["--json-response"] if mode == "json" else []),
            lambda port: [sdk_python, str(BENCH / "servers" / "bare_asgi.py"), "--server", "uvicorn",
                          "--port", str(port)],
            dict(env),
        ))
    return impls


class Logs:
    def __init__(self, directory: Path) -> None:
        self.dir = directory
        self.dir.mkdir(parents=True, exist_ok=True)
        for old in self.dir.glob("*.log"):
            old.unlink()
        self.files: list[Path] = []

    def open(self, name: str):
        path = self.dir / f"{name}.log"
        self.files.append(path)
        return path.open("ab")


def stop_process(proc: subprocess.Popen, grace: float = 3.0) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def mib(kib: int) -> float:
    return kib / 1024


# -- stdio suite ----------------------------------------------------------------------------------

def echo_line() -> Callable[[int], bytes]:
    return stdio_line("tools/call", {"name": "echo", "arguments": {"text": TEXT}})


def stdio_sanity(server: StdioServer) -> None:
    """The same workload on both: tools, resource and prompt answer as expected."""
    tools = {t["name"] for t in server.request("tools/list", {})["result"]["tools"]}
    if not {"echo", "sleep", "sleep_stats"} <= tools:
        raise BenchError(f"tools/list lacks the bench tools: {sorted(tools)}")
    if server.call("echo", {"text": "x y"}) != "x y":
        raise BenchError("echo does not echo")
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
    server = StdioServer(impl.stdio_argv, env=impl.env, stderr=logs.open(f"{name}-stdio-{rep}"), cwd=str(WORKDIR))
    try:
        server.initialize()
        results.add("stdio.startup_ms", name, (perf() - server.spawned_at) * 1000)
        results.add("stdio.rss_idle_mib", name, mib(status_kib(server.pid, "VmRSS")))
        stdio_sanity(server)
        echo = echo_line()
        server.pipelined(echo, 16, max_calls=10**9, seconds=settings.warmup)  # warm-up, untimed

        def measure(key: str, run: Callable[[], tuple[int, float]], cpu_key: str | None = None) -> None:
            cpu0 = cpu_seconds(server.pid)
            ru0 = resource.getrusage(resource.RUSAGE_SELF)
            calls, elapsed = run()
            cpu = cpu_seconds(server.pid) - cpu0
            ru1 = resource.getrusage(resource.RUSAGE_SELF)
            client_cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
            results.add(key, name, calls / elapsed)
            if cpu_key:
                results.add(cpu_key, name, cpu / calls * 1e6)
            results.phase(rep=rep, impl=name, figure=key, calls=calls, elapsed_s=elapsed, server_cpu_s=cpu,
                          client_cpu_s=client_cpu)

        bounds = {"max_calls": settings.max_calls, "seconds": settings.seconds}
        measure("stdio.sequential", lambda: server.sequential(echo, **bounds), "stdio.cpu_us_sequential")
        for window in settings.windows:
            measure(f"stdio.pipelined_{window}", lambda: server.pipelined(echo, window, **bounds),
                    "stdio.cpu_us_pipelined_64" if window == 64 else None)
        mixed = rotating([
            echo,
            stdio_line("tools/list", {}),
            stdio_line("resources/read", {"uri": "bench://info"}),
            stdio_line("prompts/get", {"name": "greet", "arguments": {"name": "Ada"}}),
        ])
        measure("stdio.mixed_16", lambda: server.pipelined(mixed, 16, **bounds))
        stdio_cancel(server, impl, settings, results, rep)
        results.add("stdio.peak_rss_mib", name, mib(status_kib(server.pid, "VmHWM")))
    finally:
        server.stop()
    stdio_eof(impl, settings, results, logs, rep)


def sleep_counters(server: StdioServer) -> dict[str, int]:
    return json.loads(server.call("sleep_stats", {}))


def stdio_cancel(server: StdioServer, impl: Impl, settings: Settings, results: Results, rep: int) -> None:
    before = sleep_counters(server)
    sleep_id = server.new_id()
    server.send({"jsonrpc": "2.0", "id": sleep_id, "method": "tools/call",
                 "params": {"name": "sleep", "arguments": {"ms": settings.cancel_sleep_ms}}})
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
    results.phase(rep=rep, impl=impl.name, figure="stdio.cancel", next_ms=next_ms, stop_ms=stop_ms,
                  cancelled_request_answered=bool(answered))
    if answered:
        results.note(f"{impl.name} stdio: the cancelled request was answered anyway: {str(answered[0])[:160]}")


def stdio_eof(impl: Impl, settings: Settings, results: Results, logs: Logs, rep: int) -> None:
    """20 sleep(200) in flight, then stdin closes: how many answers come out before the exit."""
    server = StdioServer(impl.stdio_argv, env=impl.env, stderr=logs.open(f"{impl.name}-stdio-eof-{rep}"),
                         cwd=str(WORKDIR))
    try:
        server.initialize()
        ids = set()
        batch = []
        for _ in range(settings.eof_requests):
            request_id = server.new_id()
            ids.add(request_id)
            batch.append(orjson.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                                       "params": {"name": "sleep", "arguments": {"ms": settings.eof_sleep_ms}}}))
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
        results.phase(rep=rep, impl=impl.name, figure="stdio.eof", answered_ok=ok, answers=len(answers),
                      errors=[m.get("error") for m in answers if "error" in m][:3], exit_ms=exit_ms,
                      returncode=server.proc.returncode)
    finally:
        server.stop()


def bare_stdio_suite(settings: Settings, results: Results, logs: Logs, rep: int) -> None:
    argv = [sys.executable, str(BENCH / "servers" / "bare_stdio.py")]
    server = StdioServer(argv, stderr=logs.open(f"bare-stdio-{rep}"))
    try:
        echo = echo_line()
        server.pipelined(echo, 16, max_calls=10**9, seconds=settings.warmup)
        bounds = {"max_calls": settings.max_calls, "seconds": settings.seconds}
        calls, elapsed = server.sequential(echo, **bounds)
        results.add("bare.stdio.sequential", "mcptrio", calls / elapsed)
        calls, elapsed = server.pipelined(echo, 64, **bounds)
        results.add("bare.stdio.pipelined_64", "mcptrio", calls / elapsed)
    finally:
        server.stop()


# -- HTTP suite -----------------------------------------------------------------------------------

class HttpServer:
    def __init__(self, argv: list[str], port: int, env: dict[str, str], log_file: Any) -> None:
        self.port = port
        self.spawned_at = perf()
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log_file, stderr=log_file, env=env,
                                     cwd=str(WORKDIR))
        self.pid = self.proc.pid
        self.ready_at = 0.0

    async def ready(self) -> float:
        self.ready_at = await wait_for_http(HOST, self.port, PATH, perf() + 30, self.proc)
        return (self.ready_at - self.spawned_at) * 1000

    def stop(self) -> None:
        stop_process(self.proc)


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    index = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return sorted_values[index]


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


async def http_load(port: int, pid: int | None, era: str, concurrency: int, seconds: float, max_calls: int,
                    bare: bool = False, warmup: float = 0.0) -> LoadResult:
    """``concurrency`` clients, each on its own connection (and legacy session), calling echo in a loop."""
    clients = await asyncio.gather(*(connect_client(HOST, port, PATH, "modern" if bare else era)
                                     for _ in range(concurrency)))
    try:
        if warmup > 0:
            await _load(clients, warmup, 10**9, bare)
        cpu0 = cpu_seconds(pid) if pid else 0.0
        ru0 = resource.getrusage(resource.RUSAGE_SELF)
        result = await asyncio.wait_for(_load(clients, seconds, max_calls, bare), seconds + 30)
        ru1 = resource.getrusage(resource.RUSAGE_SELF)
        result.server_cpu = (cpu_seconds(pid) - cpu0) if pid else 0.0
        result.client_cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
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
    return LoadResult(len(latencies), sum(error_kinds.values()), elapsed, latencies, 0.0, 0.0, error_kinds,
                      reconnects)


def record_load(results: Results, key: str, impl: str, rep: int, load: LoadResult) -> None:
    lat = sorted(load.latencies)
    if load.calls:
        results.add(f"{key}.rps", impl, load.calls / load.elapsed)
        results.add(f"{key}.p50_ms", impl, percentile(lat, 0.50) * 1000)
        results.add(f"{key}.p99_ms", impl, percentile(lat, 0.99) * 1000)
    else:
        for suffix in ("rps", "p50_ms", "p99_ms"):
            results.add(f"{key}.{suffix}", impl, None, "every request failed")
    if load.errors:
        results.note(f"{impl} {key} (rep {rep}): {load.errors} of {load.calls + load.errors} requests failed: "
                     + "; ".join(f"{n}× {k}" for k, n in load.error_kinds.items()))
    results.phase(rep=rep, impl=impl, figure=key, calls=load.calls, errors=load.errors,
                  error_kinds=load.error_kinds, elapsed_s=load.elapsed, server_cpu_s=load.server_cpu,
                  client_cpu_s=load.client_cpu, reconnects=load.reconnects,
                  latencies_us=[round(x * 1e6) for x in load.latencies])


async def http_suite(impl: Impl, settings: Settings, results: Results, logs: Logs, rep: int) -> None:
    name = impl.name
    peak = 0
    # mode name -> (server response mode, era of the requests)
    plan = [("modern", "auto", "modern"), ("legacy_sse", "sse", "legacy"), ("legacy_json", "json", "legacy")]
    for mode, server_mode, era in plan:
        port = free_port()
        server = HttpServer(impl.http_argv(port, server_mode), port, impl.env,
                            logs.open(f"{name}-http-{server_mode}-{rep}"))
        try:
            startup_ms = await server.ready()
            if mode == "modern":  # the default configuration: start-up and cancellation
                results.add("http.startup_ms", name, startup_ms)
            for c in settings.concurrency:
                load = await http_load(port, server.pid, era, c, settings.seconds, settings.max_calls,
                                       warmup=settings.warmup)
                record_load(results, f"http.{mode}.c{c}", name, rep, load)
                if c == 10 and load.calls:
                    results.add(f"http.{mode}.cpu_us", name, load.server_cpu / load.calls * 1e6)
            if mode == "modern":
                await http_cancel(server, impl, settings, results, rep, "legacy")
                await http_cancel(server, impl, settings, results, rep, "modern")
            peak = max(peak, status_kib(server.pid, "VmHWM"))
        finally:
            server.stop()
    # 1,000 sessions on a server of their own (default configuration): no throughput phase runs
    # on a heap they just churned, and their RSS is measured from a fresh start.
    port = free_port()
    server = HttpServer(impl.http_argv(port, "auto"), port, impl.env, logs.open(f"{name}-http-sessions-{rep}"))
    try:
        await server.ready()
        await sessions_phase(server, impl, settings, results, rep)
        peak = max(peak, status_kib(server.pid, "VmHWM"))
    finally:
        server.stop()
    results.add("http.peak_rss_mib", name, mib(peak))


async def sessions_phase(server: HttpServer, impl: Impl, settings: Settings, results: Results, rep: int) -> None:
    """N idle legacy sessions: how fast they open, what they cost in RSS, what DELETE gives back."""
    name = impl.name
    warm = await connect_client(HOST, server.port, PATH, "legacy")  # first-session imports and caches
    await warm.call("echo", {"text": TEXT})
    await warm.delete_session()
    warm.conn.close()
    await asyncio.sleep(0.3)
    results.add("http.rss_idle_mib", name, mib(status_kib(server.pid, "VmRSS")))
    base = status_kib(server.pid, "VmRSS")
    total = settings.sessions
    opened: list[str] = []
    conns = [await HttpConnection(HOST, server.port).connect() for _ in range(10)]

    async def opener(conn: HttpConnection) -> None:
        while len(opened) < total:
            slot = len(opened)
            opened.append("")  # claimed before the await, so the count is exact
            opened[slot] = await McpHttpClient(conn, PATH).open_session()

    start = perf()
    await asyncio.wait_for(asyncio.gather(*(opener(c) for c in conns)), 120)
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
    results.add("http.sessions_per_s", name, len(ids) / elapsed)
    results.add("http.session_kib", name, (open_kib - base) / len(ids))
    results.add("http.sessions_rss_open_mib", name, mib(open_kib))
    results.add("http.sessions_rss_deleted_mib", name, mib(deleted_kib))
    results.phase(rep=rep, impl=name, figure="http.sessions", sessions=len(ids), elapsed_s=elapsed,
                  rss_before_kib=base, rss_open_kib=open_kib, rss_deleted_kib=deleted_kib, delete_failed=failed)
    if failed:
        results.note(f"{name}: {failed} of {len(ids)} DELETEs were refused")


async def http_cancel(server: HttpServer, impl: Impl, settings: Settings, results: Results, rep: int,
                      era: str) -> None:
    """Start sleep(10000), close its response (the HTTP way to cancel), watch the counters."""
    control = await connect_client(HOST, server.port, PATH, era)

    async def counters() -> dict[str, int]:
        return json.loads(await control.call("sleep_stats", {}))

    before = await counters()
    doomed = control.share_session(await HttpConnection(HOST, server.port).connect())
    _, headers, body = doomed.build("tools/call", {"name": "sleep", "arguments": {"ms": settings.cancel_sleep_ms}},
                                    "sleep")
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
    results.add(f"http.cancel_{era}_stop_ms", impl.name, stop_ms,
                f"work not cancelled within {settings.cancel_bound:g} s")
    results.phase(rep=rep, impl=impl.name, figure=f"http.cancel_{era}", next_ms=next_ms, stop_ms=stop_ms)


async def bare_http_suite(impl: Impl, settings: Settings, results: Results, logs: Logs, rep: int) -> None:
    port = free_port()
    server = HttpServer(impl.bare_http_argv(port), port, impl.env, logs.open(f"{impl.name}-bare-http-{rep}"))
    try:
        await server.ready()
        for c in settings.concurrency:
            load = await http_load(port, server.pid, "modern", c, settings.seconds, settings.max_calls, bare=True,
                                   warmup=settings.warmup)
            record_load(results, f"bare.c{c}", impl.name, rep, load)
    finally:
        server.stop()


async def tuned_hypercorn_suite(impl: Impl, settings: Settings, results: Results, logs: Logs, rep: int) -> None:
    """The experiment: the bare app and mcptrio on hypercorn without two per-request costs."""
    for what, era in (("bare", "modern"), ("legacy_json", "legacy"), ("modern", "modern")):
        port = free_port()
        argv = [impl.python, str(BENCH / "servers" / "hypercorn_tuned.py")]
        if what == "bare":
            argv += ["bare", "--host", HOST, "--port", str(port)]
        else:
            argv += ["mcptrio", "serve", "--plugins", "bench", "--transport", "http", "--host", HOST,
                     "--port", str(port), "--response-mode", "json" if what == "legacy_json" else "auto"]
        server = HttpServer(argv, port, impl.env, logs.open(f"tuned-{what}-{rep}"))
        try:
            await server.ready()
            load = await http_load(port, server.pid, era, 10, settings.seconds, settings.max_calls,
                                   bare=what == "bare", warmup=settings.warmup)
            record_load(results, f"tuned.{what}.c10", impl.name, rep, load)
        finally:
            server.stop()


# -- the run ------------------------------------------------------------------------------------

def source_state(mcptrio_dir: Path = REPO / "mcptrio",
                 bench_dir: Path = REPO / "plugins" / "bench" / "mcptrio_bench") -> dict[str, str]:
    """The commit and a digest of mcptrio's sources and the bench plugin, uncommitted edits included."""
    import hashlib

    digest = hashlib.sha1()
    for name, root in (("mcptrio", mcptrio_dir), ("mcptrio_bench", bench_dir)):
        for path in sorted(root.rglob("*.py")):
            digest.update(f"{name}/{path.relative_to(root)}".encode() + b"\0" + path.read_bytes())
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True)
    return {"commit": commit.stdout.strip() or "unknown", "sources_sha1": digest.hexdigest()[:12]}


def machine_cpu() -> tuple[float, float]:
    """(busy, steal) CPU seconds of the whole machine since boot, from /proc/stat."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields[:8]
    tick = os.sysconf("SC_CLK_TCK")
    return (user + nice + system + irq + softirq) / tick, steal / tick


def own_cpu() -> float:
    """CPU seconds of this runner and of every server it has reaped."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


def snapshot_sources(workdir: Path) -> Path:
    """A private copy of mcptrio and the bench plugin, byte-compiled, for every mcptrio server of
    this run: others edit the work tree meanwhile, and one run must measure one version.  Put first
    on PYTHONPATH it shadows the editable install (whose finder comes after the path finder)."""
    import compileall
    import shutil

    snapshot = workdir / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(REPO / "mcptrio", snapshot / "mcptrio", ignore=ignore)
    shutil.copytree(REPO / "plugins" / "bench" / "mcptrio_bench", snapshot / "mcptrio_bench", ignore=ignore)
    compileall.compile_dir(str(snapshot), quiet=1)
    return snapshot


def run(settings: Settings, only: str | None, logs_dir: Path) -> Results:
    import shutil
    import tempfile

    ensure_gitignore()
    global WORKDIR
    WORKDIR = Path(tempfile.mkdtemp(prefix="mcptrio-bench-"))
    try:
        return _run(settings, only, logs_dir)
    finally:
        shutil.rmtree(WORKDIR, ignore_errors=True)



def _run(settings: Settings, only: str | None, logs_dir: Path) -> Results:
    results = Results()
    snapshot = snapshot_sources(WORKDIR)
    results.source_start = source_state(snapshot / "mcptrio", snapshot / "mcptrio_bench")  # what was measured
    impls = make_impls(only)
    for impl in impls:
        if impl.name == "mcptrio":
            impl.env["PYTHONPATH"] = str(snapshot)
    busy0, steal0 = machine_cpu()
    own0 = own_cpu()
    wall0 = perf()
    logs = Logs(logs_dir)
    for rep in range(settings.reps):
        results.rep = rep
        order = impls if rep % 2 == 0 else impls[::-1]
        log(f"repetition {rep + 1}/{settings.reps}: {' → '.join(i.name for i in order)}")
        for impl in order:
            t = perf()
            stdio_suite(impl, settings, results, logs, rep)
            log(f"  {impl.name} stdio suite: {perf() - t:.1f} s")
        for impl in order:
            # The bare app right before the MCP server on the same HTTP server: "% of bare" compares
            # figures taken seconds apart, not minutes (the machine's speed drifts).
            t = perf()
            asyncio.run(bare_http_suite(impl, settings, results, logs, rep))
            asyncio.run(http_suite(impl, settings, results, logs, rep))
            log(f"  {impl.name} HTTP suite with its bare floor: {perf() - t:.1f} s")
        for impl in order:
            if impl.name == "mcptrio":
                t = perf()
                bare_stdio_suite(settings, results, logs, rep)
                asyncio.run(tuned_hypercorn_suite(impl, settings, results, logs, rep))
                log(f"  {impl.name} stdio floor and hypercorn experiment: {perf() - t:.1f} s")
    busy1, steal1 = machine_cpu()
    foreign = max(0.0, (busy1 - busy0) - (own_cpu() - own0))
    wall = perf() - wall0
    results.load = {"foreign_cpu_s": foreign, "foreign_cores": foreign / wall, "steal_s": steal1 - steal0,
                    "wall_s": wall, "loadavg_end": open("/proc/loadavg").read().split()[:3]}
    if foreign / wall > 0.1 or (steal1 - steal0) / wall > 0.05:
        results.note(f"other processes used {foreign:.0f} CPU-s ({100 * foreign / wall:.0f}% of one core on average; "
                     f"steal {steal1 - steal0:.0f} s) while this ran on {os.cpu_count()} cores: the figures are "
                     "noisier than on a quiet machine")
    results.source_end = source_state()
    if results.source_end["sources_sha1"] != results.source_start["sources_sha1"]:
        results.note(f"mcptrio's work tree changed during the run ({results.source_start['sources_sha1']} → "
                     f"{results.source_end['sources_sha1']}); every mcptrio server ran the copy taken at the start "
                     f"({results.source_start['commit']} + uncommitted edits, sources {results.source_start['sources_sha1']})")
    for path in logs.files:
        text = path.read_text(errors="replace") if path.exists() else ""
        tracebacks = text.count("Traceback")
        if tracebacks:
            results.note(f"server log {path}: {tracebacks} traceback(s)")
    return results


def fmt(figure: Figure, value: float | None, na: str | None) -> str:
    if value is None:
        return f"n/a ({na})" if na else "n/a"
    return figure.fmt.format(value)


def ratio_text(a: float | None, b: float | None, figure: Figure) -> str:
    if a is None or b is None or b == 0:
        return "n/a"
    r = a / b
    good = r >= 1 if figure.better == "higher" else r <= 1
    return f"{r:.2f}" + ("" if abs(r - 1) < 0.05 else (" ✓" if good else " ✗"))


def report(results: Results, settings: Settings, impls: list[str]) -> str:
    arrow = {"higher": "↑", "lower": "↓"}
    lines = [
        f"### mcptrio ({results.source_start.get('commit', '?')}) vs official MCP Python SDK ({SDK_PIN}) — "
        f"median of {settings.reps} interleaved repetitions",
        "",
        "| figure | mcptrio | SDK | ratio mcptrio/SDK |",
        "| --- | ---: | ---: | ---: |",
    ]
    for figure in figure_list(settings):
        a, b = results.median(figure.key, "mcptrio"), results.median(figure.key, "sdk")
        na = results.na.get(figure.key, {})
        lines.append(f"| {figure.label} ({figure.unit} {arrow[figure.better]}) | "
                     f"{fmt(figure, a, na.get('mcptrio')) if 'mcptrio' in impls else '—'} | "
                     f"{fmt(figure, b, na.get('sdk')) if 'sdk' in impls else '—'} | {ratio_text(a, b, figure)} |")
    lines += [
        "",
        "↑ higher is better, ↓ lower is better; ✓/✗ mark a ratio at least 5% in mcptrio's favour/against it.",
        "",
        "### Against a bare ASGI app on the same HTTP server (the floor: server + client, no MCP)",
        "",
        "| figure | bare hypercorn | mcptrio legacy JSON | % | mcptrio 2026-07-28 | % |"
        " bare uvicorn | SDK legacy JSON | % | SDK 2026-07-28 | % |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    # (row label, figure suffix, format, show the share of bare)
    for label, suffix, digits, share in (("calls/s", "rps", "{:.0f}", True), ("p50 ms", "p50_ms", "{:.2f}", False)):
        for c in settings.concurrency:
            row = [f"{clients(c)}, {label}"]
            for impl in ("mcptrio", "sdk"):
                bare = results.median(f"bare.c{c}.{suffix}", impl)
                row.append("—" if bare is None else digits.format(bare))
                for mode in ("legacy_json", "modern"):
                    value = results.median(f"http.{mode}.c{c}.{suffix}", impl)
                    row.append("—" if value is None else digits.format(value))
                    if not share:
                        row.append("")
                    else:
                        row.append("—" if value is None or not bare else f"{100 * value / bare:.0f}%")
            lines.append("| " + " | ".join(row) + " |")
    lines += tuned_table(results)
    if "mcptrio" in impls and "sdk" in impls:
        lines += targets_table(results, settings)
    bare_stdio = results.median("bare.stdio.pipelined_64", "mcptrio")
    mine = results.median("stdio.pipelined_64", "mcptrio")
    if bare_stdio and mine:
        lines += ["", f"stdio, 64 pipelined: bare Trio echo loop {bare_stdio:.0f} calls/s, mcptrio {mine:.0f} calls/s "
                  f"({100 * mine / bare_stdio:.0f}% of bare)."]
    if results.notes:
        lines += ["", "Notes:"] + [f"- {n}" for n in results.notes]
    return "\n".join(lines)


def targets_table(results: Results, settings: Settings) -> list[str]:
    """Issue 5's targets, each with the figure of this run that shows it."""
    m = functools.partial(results.median, impl="mcptrio")
    smoke = ["(a --smoke run: 0.25 s phases and 100 sessions say that every figure is measured, not how good it is)", ""]
    lines = ["", "### The targets (issue 5), from this run", ""] + (smoke if settings.smoke else []) + [
        "| target | this run (medians) | median of per-repetition ratios | met |",
        "| --- | ---: | ---: | :---: |"]

    def row(target: str, value: float | None, text: str, ok: bool | None, paired: float | None = None,
            paired_text: str = "") -> None:
        shown = "n/a" if value is None else text.format(value)
        pair = "" if paired is None else paired_text.format(paired)
        lines.append(f"| {target} | {shown} | {pair} | {'—' if ok is None else ('✓' if ok else '✗')} |")

    def vs_sdk(key: str) -> tuple[float | None, float | None]:
        a, b = m(key), results.median(key, "sdk")
        return (a / b if a is not None and b else None), results.paired_ratio(key, "mcptrio", key, "sdk")

    ratio, paired = vs_sdk("stdio.pipelined_64")
    row("stdio, 64 in flight: ≥ 5× the SDK", ratio, "{:.1f}×", ratio is not None and ratio >= 5, paired, "{:.1f}×")
    cpu = m("stdio.cpu_us_pipelined_64")
    row("stdio server CPU per call (64 in flight): ≤ 150 µs", cpu, "{:.0f} µs", cpu is not None and cpu <= 150)
    ratio, paired = vs_sdk("http.legacy_sse.c10.rps")
    row("HTTP legacy SSE, 10 clients: ≥ 2× the SDK", ratio, "{:.2f}×", ratio is not None and ratio >= 2, paired, "{:.2f}×")
    for mode in ("legacy_json", "modern"):
        ratio, paired = vs_sdk(f"http.{mode}.c10.rps")
        row(f"HTTP {MODE_NAMES[mode]}, 10 clients: ≥ 1.2× the SDK", ratio, "{:.2f}×",
            ratio is not None and ratio >= 1.2, paired, "{:.2f}×")
        value, bare = m(f"http.{mode}.c10.rps"), m("bare.c10.rps")
        share = value / bare if value is not None and bare else None
        row(f"HTTP {MODE_NAMES[mode]}, 10 clients: ≥ 80% of bare ASGI on hypercorn", share, "{:.0%}",
            share is not None and share >= 0.8,
            results.paired_ratio(f"http.{mode}.c10.rps", "mcptrio", "bare.c10.rps", "mcptrio"), "{:.0%}")
    worst_p99 = max((v for v in (m(f"http.{mode}.c10.p99_ms") for mode in HTTP_MODES) if v is not None), default=None)
    row("p99 latency, 10 clients (worst HTTP mode): ≤ 25 ms", worst_p99, "{:.1f} ms",
        worst_p99 is not None and worst_p99 <= 25)
    spawn = m("stdio.startup_ms")
    row("spawn → first response: ≤ 350 ms", spawn, "{:.0f} ms", spawn is not None and spawn <= 350)
    kib = m("http.session_kib")
    row("idle legacy HTTP session (RSS): ≤ 4 KiB", kib, "{:.1f} KiB", kib is not None and kib <= 4)
    rate = m("http.sessions_per_s")
    row("sessions opened per second: ≥ 1,000", rate, "{:.0f}/s", rate is not None and rate >= 1000)
    ping = m("stdio.cancel_next_ms")
    row("ping answered after a cancel: ≤ 2 ms", ping, "{:.2f} ms", ping is not None and ping <= 2)
    stops = [m(key) for key in ("stdio.cancel_stop_ms", "http.cancel_legacy_stop_ms", "http.cancel_modern_stop_ms")]
    row("cancelled work stops (stdio, legacy HTTP, 2026-07-28 HTTP): slowest", max(stops) if None not in stops else None,
        "{:.1f} ms", None not in stops)
    answered, total = m("stdio.eof_answered"), settings.eof_requests
    row(f"stdin EOF with {total} in flight: 0 lost", answered, "{:.0f} of %d answered" % total, answered == total)
    bare = m("bare.c10.rps")
    if rate is not None and bare:
        # Opening a session is two POSTs on a kept-alive connection: what the floor allows.
        lines += ["", f"Sessions: each is two POSTs (initialize, notifications/initialized), so {rate:.0f}/s is "
                  f"{2 * rate:.0f} POSTs/s, {2 * rate / bare:.0%} of what the bare ASGI app answers with "
                  f"10 clients on the same hypercorn in this run ({bare:.0f}/s)."]
    return lines


def tuned_table(results: Results) -> list[str]:
    """The hypercorn experiment beside the stock figures of the same run (10 clients)."""
    if results.median("tuned.bare.c10.rps", "mcptrio") is None:
        return []

    def text(value: float | None, digits: str = "{:.0f}") -> str:
        return "—" if value is None else digits.format(value)

    def ratio(a: float | None, b: float | None) -> str:
        return "—" if a is None or not b else f"{a / b:.2f}×"

    tuned_bare = results.median("tuned.bare.c10.rps", "mcptrio")
    stock_bare = results.median("bare.c10.rps", "mcptrio")
    lines = ["", "### The hypercorn experiment (bench/servers/hypercorn_tuned.py: not how mcptrio ships), 10 clients",
             "", "| calls/s | stock hypercorn | % of bare | tuned hypercorn | % of bare | SDK (uvicorn) |"
             " mcptrio/SDK, stock | mcptrio/SDK, tuned |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    rows = (("bare ASGI", "bare.c10.rps", "tuned.bare.c10.rps"),
            ("legacy JSON", "http.legacy_json.c10.rps", "tuned.legacy_json.c10.rps"),
            ("2026-07-28", "http.modern.c10.rps", "tuned.modern.c10.rps"))
    for label, stock_key, tuned_key in rows:
        stock, tuned = results.median(stock_key, "mcptrio"), results.median(tuned_key, "mcptrio")
        sdk = results.median(stock_key, "sdk")
        stock_pct = "" if label == "bare ASGI" or stock is None or not stock_bare else f"{100 * stock / stock_bare:.0f}%"
        tuned_pct = "" if label == "bare ASGI" or tuned is None or not tuned_bare else f"{100 * tuned / tuned_bare:.0f}%"
        ratios = ("", "") if label == "bare ASGI" else (ratio(stock, sdk), ratio(tuned, sdk))
        lines.append(f"| {label} | {text(stock)} | {stock_pct} | {text(tuned)} | {tuned_pct} | {text(sdk)} | "
                     f"{ratios[0]} | {ratios[1]} |")
    return lines


def save(results: Results, settings: Settings, impls: list[str], out: Path, wall: float) -> None:
    figures = []
    for figure in figure_list(settings) + baseline_list(settings):
        entry: dict[str, Any] = {"key": figure.key, "label": figure.label, "unit": figure.unit,
                                 "better": figure.better, "zero_ok": figure.zero_ok,
                                 "delta": figure.delta, "samples": {}, "median": {},
                                 "na": results.na.get(figure.key, {})}
        for impl in impls:
            values = results.samples.get(figure.key, {}).get(impl)
            if values:
                entry["samples"][impl] = values
                entry["median"][impl] = statistics.median(values)
        a, b = entry["median"].get("mcptrio"), entry["median"].get("sdk")
        entry["ratio"] = a / b if a is not None and b else None
        figures.append(entry)
    document = {
        "meta": {
            "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "wall_s": wall,
            "settings": {k: v for k, v in settings.__dict__.items()},
            "servers": impls,
            "sdk": SDK_PIN,
            "mcptrio_source": {"start": results.source_start, "end": results.source_end},
            "machine_load": results.load,
            "python": platform.python_version(),
            "machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
            "bare_baselines": {"mcptrio": "hypercorn (Trio worker) + bare ASGI app; bare Trio stdio loop",
                               "sdk": "uvicorn (asyncio) + bare ASGI app"},
        },
        "figures": figures,
        "notes": results.notes,
        "phases": results.phases,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(orjson.dumps(document, option=orjson.OPT_INDENT_2))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--smoke", action="store_true", help="every phase with tiny counts (well under a minute)")
    parser.add_argument("--only", choices=IMPLS, help="measure one server only (mcptrio needs no SDK venv)")
    parser.add_argument("--reps", type=int, help="repetitions (default 3; smoke 1)")
    parser.add_argument("--seconds", type=float, help="time bound of each throughput phase (default 1.5)")
    parser.add_argument("--sessions", type=int, help="idle legacy sessions to open (default 1000)")
    parser.add_argument("--out", type=Path, default=RESULTS / "latest.json", help="where the samples go")
    args = parser.parse_args(argv)
    settings = Settings.smoke_settings() if args.smoke else Settings()
    if args.reps:
        settings.reps = args.reps
    if args.seconds:
        settings.seconds = args.seconds
    if args.sessions:
        settings.sessions = args.sessions
    impls = [args.only] if args.only else list(IMPLS)
    start = perf()
    results = run(settings, args.only, args.out.parent / "logs")
    wall = perf() - start
    save(results, settings, impls, args.out, wall)
    print(report(results, settings, impls))
    print(f"\n{wall:.0f} s; every sample in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
