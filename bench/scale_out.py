"""Several workers sharing state through Redis (mcptrio only), against the in-memory single
process in the same run:

* echo throughput, 2026-07-28 (10 clients) and legacy sessions on SSE (10 clients), for one
  process in memory, one with ``--state redis://``, and ``--workers 2`` and ``4`` with Redis;
  the CPU of the server side (every worker and redis-server) and of the load client is recorded,
  since on 2 cores they all share the machine;
* 10,000 open ``subscriptions/listen`` streams over 2 workers: RSS per stream, and the time from
  a ``touch`` (a resource change on one worker) to the notification on the last stream; the same
  on one process with the default limits (issue 33: listeners take stream slots, not request
  slots), with a tool call timed among them, and the RSS of an idle connection beside it;
* 1,000 legacy sessions' GET streams over 2 workers, subscribed to the same resource: the same
  two figures (issue 31);
* the p99 of echo calls while 1,000 slow ``sleep`` calls are in flight (2 workers with Redis).

``--suites fanout`` runs the two fan-out phases over 2 workers alone, each with the CPU other
processes used meanwhile.

A throwaway redis-server (Debian's package) on a free port, persistence off, per run of this suite.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from client import (
    LEGACY_VERSION,
    BenchError,
    connect_client,
    cpu_seconds,
    free_port,
    modern_post,
    perf,
    status_kib,
    tool_text,
)
from figures import Figure
from http_load import http_load, record_load
from launch import Impl, Logs, serving
from measure import machine_cpu, percentile, self_cpu
from mixed_load import raise_fd_limit
from results import Results
from settings import HOST, PATH, Settings

CONFIGS = (
    ("mem1", "1 process, in memory", []),
    ("redis1", "1 process, Redis", ["redis"]),
    ("redis2", "2 workers, Redis", ["redis", "--workers", "2"]),
    ("redis4", "4 workers, Redis", ["redis", "--workers", "4"]),
)
WORKLOADS = (("modern", "auto", "2026-07-28 echo, 10 clients"), ("legacy", "sse", "legacy echo on SSE, 10 clients"))
LISTENERS, LEGACY_LISTENERS, SLOW = 10_000, 1_000, 1_000
PER_SOURCE = 100  # listen streams per client address (127.0.0.x): many clients, each under its per-client limit

FIGURES = [
    Figure(f"scale.{config}.{era}.rps", f"{label}: {workload}", "calls/s", "higher")
    for config, label, _ in CONFIGS
    for era, _, workload in WORKLOADS
] + [
    Figure(
        "scale.listen.kib_per_stream",
        "10,000 listen streams over 2 workers: RSS per stream",
        "KiB",
        "lower",
        fmt="{:.1f}",
    ),
    Figure(
        "scale.listen.p50_ms",
        "a change on one worker → the last of 10,000 streams notified, p50",
        "ms",
        "lower",
        fmt="{:.1f}",
    ),
    Figure(
        "scale.listen.p99_ms",
        "a change on one worker → the last of 10,000 streams notified, p99",
        "ms",
        "lower",
        fmt="{:.1f}",
    ),
    Figure(
        "scale.legacy_listen.kib_per_stream",
        "1,000 legacy GET streams over 2 workers: RSS per stream",
        "KiB",
        "lower",
        fmt="{:.1f}",
    ),
    Figure(
        "scale.legacy_listen.p99_ms",
        "a change on one worker → the last of 1,000 legacy GET streams notified, p99",
        "ms",
        "lower",
        fmt="{:.1f}",
    ),
    Figure(
        "scale.listen1.kib_per_stream",
        "10,000 listen streams on 1 process, default limits: RSS per stream",
        "KiB",
        "lower",
        fmt="{:.1f}",
    ),
    Figure(
        "scale.listen1.p99_ms",
        "a change → the last of 10,000 streams notified, 1 process, p99",
        "ms",
        "lower",
        fmt="{:.1f}",
    ),
    Figure(
        "scale.listen1.call_ms",
        "an echo call answered among 10,000 listen streams (1 process, defaults)",
        "ms",
        "lower",
        fmt="{:.2f}",
    ),
    Figure(
        "scale.idle.kib_per_connection",
        "10,000 idle connections on 1 process: RSS per connection",
        "KiB",
        "lower",
        fmt="{:.1f}",
    ),
    Figure(
        "scale.busy.p99_ms",
        "echo p99 while 1,000 slow calls are in flight (2 workers, Redis)",
        "ms",
        "lower",
        fmt="{:.2f}",
    ),
]


@contextlib.contextmanager
def redis_server() -> Any:
    binary = shutil.which("redis-server")
    if binary is None:
        raise BenchError("redis-server not found: apt-get install redis-server")
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="bench-redis-") as directory:
        proc = subprocess.Popen(
            [
                binary,
                "--port",
                str(port),
                "--bind",
                HOST,
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                directory,
                "--loglevel",
                "warning",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            yield f"redis://{HOST}:{port}/0", proc.pid
        finally:
            proc.terminate()
            proc.wait(5)


def _tree(pid: int) -> list[int]:
    """A server and its worker processes."""
    out = [pid]
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_bytes()
            except OSError:
                continue
            if int(stat[stat.rindex(b")") + 2 :].split()[1]) == pid:
                out.append(int(entry.name))
    return out


def _cpu(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        with contextlib.suppress(OSError):
            total += cpu_seconds(pid)
    return total


def _rss(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError, BenchError):
            total += status_kib(pid, "VmRSS")
    return total


def _argv(impl: Impl, extra: list[str], state: str, mode: str, plugins: str = "bench"):
    flags = [state if flag == "redis" else flag for flag in extra]  # the default limits (issue 33)
    if "redis" in extra:
        flags.insert(0, "--state")
    return lambda port: impl.http_argv(port, mode) + ["--plugins", plugins] + flags


async def scale_suite(impl: Impl, settings: Settings, results: Results, logs: Logs, rep: int) -> None:
    with redis_server() as (state, redis_pid):
        for config, _, extra in CONFIGS:
            for era, mode, _ in WORKLOADS:
                async with serving(
                    impl, _argv(impl, extra, state, mode), logs, f"scale-{config}-{era}-{rep}"
                ) as server:
                    pids = _tree(server.pid) + ([redis_pid] if "redis" in extra else [])
                    server_cpu0, client_cpu0 = _cpu(pids), self_cpu()
                    load = await http_load(
                        server.port, None, era, 10, settings.seconds, settings.max_calls, warmup=settings.warmup
                    )
                    load.server_cpu, load.client_cpu = _cpu(pids) - server_cpu0, self_cpu() - client_cpu0
                    record_load(results, f"scale.{config}.{era}", impl.name, rep, load)
        if rep == 0:  # the big-count phases once per run
            await _listen_phase(impl, settings, results, logs, state, "listen", ["redis", "--workers", "2"], redis_pid)
            await _legacy_listen_phase(impl, settings, results, logs, state, redis_pid)
            await _listen_phase(impl, settings, results, logs, state, "listen1", [], redis_pid)
            await _idle_phase(impl, settings, results, logs, state)
            await _busy_phase(impl, settings, results, logs, state)


async def fanout_suite(impl: Impl, settings: Settings, results: Results, logs: Logs, rep: int) -> None:
    """Only the fan-out phases over 2 workers (``--suites fanout``), every repetition."""
    raise_fd_limit(LISTENERS + 2000)
    with redis_server() as (state, redis_pid):
        await _listen_phase(impl, settings, results, logs, state, "listen", ["redis", "--workers", "2"], redis_pid)
        await _legacy_listen_phase(impl, settings, results, logs, state, redis_pid)


class ForeignLoad:
    """The CPU other processes (not this client, not ``pids``) used from now to ``cores()``, in cores."""

    def __init__(self, pids: list[int]) -> None:
        self.pids = pids
        self.at, self.machine = perf(), machine_cpu()[0]
        self.server0, self.client0 = _cpu(pids), self_cpu()

    def cores(self) -> float:
        own = self.server_cpu() + self.client_cpu()
        return max(0.0, machine_cpu()[0] - self.machine - own) / (perf() - self.at)

    def server_cpu(self) -> float:
        """CPU seconds of ``pids`` (the workers, redis-server) since the start."""
        return _cpu(self.pids) - self.server0

    def client_cpu(self) -> float:
        """CPU seconds of this load client since the start."""
        return self_cpu() - self.client0


# -- 10,000 listen streams ---------------------------------------------------------------------------


class Listeners:
    """Every open listen stream's count of notifications, and when the last one of a round came.

    Reading 10,000 sockets is the load client's own work: it uses asyncio protocols (a callback
    per read, no task per stream), so what is timed is mostly the servers'."""

    def __init__(self) -> None:
        self.acks = 0
        self.acked = asyncio.Event()
        self.wanted_acks = 0
        self.refused: list[str] = []
        self.round = 0
        self.reached = 0
        self.count = 0
        self.all_in = asyncio.Event()
        self.last_at = 0.0

    def ack(self) -> None:
        self.acks += 1
        if self.acks >= self.wanted_acks:
            self.acked.set()

    def reach(self) -> None:
        self.reached += 1
        if self.reached == self.count:
            self.last_at = perf()
            self.all_in.set()

    def next_round(self) -> None:
        self.round += 1
        self.reached = 0
        self.all_in.clear()


def legacy_get(port: int, session_id: str) -> bytes:
    """The request that opens a legacy session's GET stream."""
    return (
        f"GET {PATH} HTTP/1.1\r\nHost: {HOST}:{port}\r\nAccept: text/event-stream\r\n"
        f"Mcp-Session-Id: {session_id}\r\nMCP-Protocol-Version: {LEGACY_VERSION}\r\n\r\n"
    ).encode()


class ListenStream(asyncio.Protocol):
    def __init__(
        self, group: Listeners, request: bytes, acked_by: bytes | None = b"subscriptions/acknowledged"
    ) -> None:
        self.group = group
        self.request = request
        # What tells the stream is live: a legacy GET stream's priming event; None: its 200 head
        # (a server that sends nothing until it has something to say).
        self.acked_by = acked_by
        self.head = b""
        self.open = False
        self.acked = False
        self.seen = 0
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        if not self.open:
            self.head += data
            if b"\r\n\r\n" not in self.head:
                return
            head, _, data = self.head.partition(b"\r\n\r\n")
            self.open = True
            if not head.startswith(b"HTTP/1.1 200"):
                self.group.refused.append(head.split(b"\r\n", 1)[0].decode(errors="replace"))
                self.group.ack()
                return
            if self.acked_by is None:
                self.acked = True
                self.group.ack()
        if not self.acked and self.acked_by is not None and self.acked_by in data:
            self.acked = True
            self.group.ack()
        found = data.count(b"notifications/resources/updated")
        if found:
            self.seen += found
            if self.seen == self.group.round:
                self.group.reach()


def _source(n: int) -> tuple[str, int]:
    """The client address of the ``n``-th stream: 127.0.0.2, .3, ... each for PER_SOURCE streams."""
    return (f"127.0.{(n // PER_SOURCE) // 250}.{(n // PER_SOURCE) % 250 + 2}", 0)


async def _listen_phase(
    impl: Impl,
    settings: Settings,
    results: Results,
    logs: Logs,
    state: str,
    figure: str,
    extra: list[str],
    redis_pid: int,
) -> None:
    count = 200 if settings.smoke else LISTENERS
    rounds = 5 if settings.smoke else 30
    loop = asyncio.get_running_loop()
    params = {"notifications": {"resourceSubscriptions": ["bench://counter"]}}
    async with serving(impl, _argv(impl, extra, state, "auto"), logs, f"scale-{figure}") as server:
        workers = _tree(server.pid)[1:] or [server.pid]
        before = _rss(workers)
        group = Listeners()
        group.count = count
        transports = []
        for start in range(0, count, 200):  # in batches: a connection storm would only measure the backlog
            batch = range(start, min(count, start + 200))
            group.wanted_acks = batch.stop
            group.acked.clear()
            for n in batch:
                request = modern_post(HOST, server.port, PATH, "subscriptions/listen", params, n)
                transport, _ = await loop.create_connection(
                    lambda r=request: ListenStream(group, r), HOST, server.port, local_addr=_source(n)
                )
                transports.append(transport)
            await asyncio.wait_for(group.acked.wait(), 60)
            if group.refused:
                raise BenchError(f"listen streams refused: {len(group.refused)}× {group.refused[0]}")
        await asyncio.sleep(0.5)
        results.add(f"scale.{figure}.kib_per_stream", impl.name, (_rss(workers) - before) / count)
        toucher = await connect_client(HOST, server.port, PATH, "modern")
        if figure == "listen1":
            started = perf()
            tool_text(await toucher.request("tools/call", {"name": "echo", "arguments": {"text": "x"}}, "echo"))
            results.add("scale.listen1.call_ms", impl.name, (perf() - started) * 1000)
        delays = await _rounds(group, toucher, rounds, ForeignLoad(_tree(server.pid) + [redis_pid]))
        toucher.conn.close()
        for transport in transports:
            transport.close()
    if figure == "listen":
        results.add("scale.listen.p50_ms", impl.name, percentile(delays.delays, 0.5) * 1000)
    delays.record(results, f"scale.{figure}", impl.name, count)


class Delays:
    """The times from each change to the last stream told of it, sorted, and the machine's load meanwhile."""

    def __init__(self, delays: list[float], load: ForeignLoad) -> None:
        self.delays, self.foreign_cores = sorted(delays), load.cores()
        # Per change: the servers' CPU (the workers and redis-server) and the client's (reading every stream).
        self.server_ms, self.client_ms = (cpu * 1000 / len(delays) for cpu in (load.server_cpu(), load.client_cpu()))

    def record(self, results: Results, figure: str, impl: str, streams: int) -> None:
        """The p99 as ``<figure>.p99_ms``, and every delay in the phase's record."""
        results.add(f"{figure}.p99_ms", impl, percentile(self.delays, 0.99) * 1000)
        results.phase(
            figure=figure,
            impl=impl,
            streams=streams,
            rounds=len(self.delays),
            delays_us=[round(d * 1e6) for d in self.delays],
            foreign_cores=round(self.foreign_cores, 3),
            server_ms_per_change=round(self.server_ms, 1),
            client_ms_per_change=round(self.client_ms, 1),
        )


async def _rounds(group: Listeners, toucher: Any, rounds: int, load: ForeignLoad) -> Delays:
    """``rounds`` changes, one after the other: from each ``touch`` call to the last stream told of it."""
    delays = []
    for _ in range(rounds):
        group.next_round()
        started = perf()
        tool_text(await toucher.request("tools/call", {"name": "touch", "arguments": {}}, "touch"))
        await asyncio.wait_for(group.all_in.wait(), 60)
        delays.append(group.last_at - started)
        await asyncio.sleep(0.05)
    return Delays(delays, load)


async def _legacy_listen_phase(
    impl: Impl, settings: Settings, results: Results, logs: Logs, state: str, redis_pid: int
) -> None:
    """1,000 legacy sessions subscribed to ``bench://counter``, each with its GET stream open."""
    count = 100 if settings.smoke else LEGACY_LISTENERS
    rounds = 5 if settings.smoke else 30
    loop = asyncio.get_running_loop()
    async with serving(impl, _argv(impl, ["redis", "--workers", "2"], state, "auto"), logs, "scale-legacy") as server:
        workers = _tree(server.pid)[1:] or [server.pid]
        sessions = []
        for _ in range(count):
            client = await connect_client(HOST, server.port, PATH, "legacy")
            await client.request("resources/subscribe", {"uri": "bench://counter"})
            client.conn.close()
            if client.session_id is None:
                raise BenchError("a legacy session was opened with no Mcp-Session-Id")
            sessions.append(client.session_id)
        before = _rss(workers)
        group = Listeners()
        group.count = group.wanted_acks = count
        transports = []
        for n, session_id in enumerate(sessions):
            request = legacy_get(server.port, session_id)
            transport, _ = await loop.create_connection(
                lambda r=request: ListenStream(group, r, acked_by=b"id: "), HOST, server.port, local_addr=_source(n)
            )
            transports.append(transport)
        await asyncio.wait_for(group.acked.wait(), 60)
        if group.refused:
            raise BenchError(f"GET streams refused: {len(group.refused)}× {group.refused[0]}")
        await asyncio.sleep(0.5)
        results.add("scale.legacy_listen.kib_per_stream", impl.name, (_rss(workers) - before) / count)
        toucher = await connect_client(HOST, server.port, PATH, "modern")
        delays = await _rounds(group, toucher, rounds, ForeignLoad(_tree(server.pid) + [redis_pid]))
        toucher.conn.close()
        for transport in transports:
            transport.close()
    delays.record(results, "scale.legacy_listen", impl.name, count)


async def _idle_phase(impl: Impl, settings: Settings, results: Results, logs: Logs, state: str) -> None:
    """Connections that send nothing (within the head timeout): what one costs before any request."""
    count = 200 if settings.smoke else LISTENERS
    async with serving(impl, _argv(impl, [], state, "auto"), logs, "scale-idle") as server:
        before = _rss([server.pid])
        writers = []
        for n in range(count):
            _, writer = await asyncio.open_connection(HOST, server.port, local_addr=_source(n))
            writers.append(writer)
        await asyncio.sleep(0.5)
        results.add("scale.idle.kib_per_connection", impl.name, (_rss([server.pid]) - before) / count)
        for writer in writers:
            writer.close()


# -- fast calls among 1,000 slow ones -----------------------------------------------------------------


async def _busy_phase(impl: Impl, settings: Settings, results: Results, logs: Logs, state: str) -> None:
    count = 100 if settings.smoke else SLOW
    async with serving(impl, _argv(impl, ["redis", "--workers", "2"], state, "auto"), logs, "scale-busy") as server:
        writers = []
        for n in range(count):
            reader, writer = await asyncio.open_connection(HOST, server.port)
            writer.write(
                modern_post(
                    HOST, server.port, PATH, "tools/call", {"name": "sleep", "arguments": {"ms": 60_000}}, n, "sleep"
                )
            )
            writers.append(writer)
        await asyncio.sleep(1.0)  # every slow call has started (and turned into a stream)
        load = await http_load(
            server.port, None, "modern", 10, settings.seconds, settings.max_calls, warmup=settings.warmup
        )
        for writer in writers:
            writer.close()
    record_load(results, "scale.busy", impl.name, 0, load)


def scale_table(results: Results) -> list[str]:
    base = {era: results.median(f"scale.mem1.{era}.rps", "mcptrio") for era, _, _ in WORKLOADS}
    if base["modern"] is None:
        return []
    lines = [
        "",
        "### Several workers sharing Redis (mcptrio only), against 1 process in memory in the same run",
        "",
        "| figure | mcptrio | against 1 process in memory |",
        "| --- | ---: | ---: |",
    ]
    for figure in FIGURES:
        value = results.median(figure.key, "mcptrio")
        era = figure.key.split(".")[2] if figure.key.count(".") == 3 else None
        ratio = f"{value / base[era]:.2f}×" if value and era in base and base[era] else ""
        lines.append(
            f"| {figure.label} ({figure.unit}) | {'—' if value is None else figure.fmt.format(value)} | {ratio} |"
        )
    return lines
