"""The peers suite: mcptrio, the Python SDK, the TypeScript SDK (1.x and 2.x, stateful and stateless) and
FastMCP on the same rows, one kind of figure for every server before the next, the order flipping
between repetitions, so each row compares figures taken seconds apart.

Rows: stdio echo with 64 in flight (and its server CPU per call), spawn → initialize answered over stdio
and HTTP, RSS after initialize; HTTP echo with 1, 10 and 100 clients (throughput, p50, p99), every answer
an event stream in a session (or in no session, stateless); sessions opened per second, RSS per idle
session and RSS per open GET stream (stateful servers); p99 of sequential echo calls with 1,000 slow calls
open (a smoke run fewer).
Figures are under ``peers.*``, one column per server (bench/peer_servers.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
from collections.abc import Callable, Iterator

from client import BenchError, StdioServer, spawn_startup, status_kib
from figures import Figure, clients, load_figures
from http_load import http_load, record_load
from http_workloads import sessions_phase, streams_phase
from launch import Logs, serving
from measure import mib
from mixed_load import OtherLoad, echo_among_slow, raise_fd_limit, record_among_slow
from peer_servers import Peer, ts_ready
from results import Results
from settings import Settings
from stdio_workloads import BARE_STDIO, echo_line, pipelined_64

SESSION_KEYS = (
    "rss_idle_mib",
    "sessions_per_s",
    "session_kib",
    "sessions_rss_open_mib",
    "sessions_rss_deleted_mib",
    "stream_kib",
)


def slow_count(settings: Settings) -> int:
    """The slow calls open under the echo calls: 1,000 (the issue's row), fewer in a smoke run."""
    return 1000 if 1000 in settings.mixed_in_flight else max(settings.mixed_in_flight)


def peer_figures(settings: Settings) -> list[Figure]:
    slow = slow_count(settings)
    figs = [
        Figure("peers.stdio.pipelined_64", "stdio echo, 64 in flight", "calls/s", "higher"),
        Figure("peers.stdio.cpu_us_64", "stdio server CPU per call, 64 in flight", "µs", "lower", "{:.1f}"),
        Figure(
            "peers.stdio.startup_ms",
            f"stdio: spawn → initialize answered (median of {settings.startups} spawns)",
            "ms",
            "lower",
        ),
        Figure("peers.stdio.rss_mib", "stdio RSS after initialize", "MiB", "lower", "{:.1f}"),
    ]
    for c in settings.concurrency:
        figs += load_figures(f"peers.http.c{c}", f"HTTP echo, {clients(c)}")
        figs.append(
            Figure(f"peers.http.c{c}.cpu_us", f"HTTP echo, {clients(c)}: server CPU per call", "µs", "lower", "{:.1f}")
        )
    return figs + [
        Figure(
            "peers.http.startup_ms",
            f"HTTP: spawn → initialize answered (median of {settings.startups} spawns)",
            "ms",
            "lower",
        ),
        Figure(
            "peers.sessions_per_s", "sessions opened (initialize + initialized), 10 clients", "sessions/s", "higher"
        ),
        Figure(
            "peers.session_kib",
            f"RSS per idle session ({settings.sessions} open)",
            "KiB",
            "lower",
            "{:.1f}",
            delta=True,
        ),
        Figure(
            "peers.stream_kib",
            f"RSS per open GET stream ({settings.sessions} sessions, each with its stream)",
            "KiB",
            "lower",
            "{:.1f}",
            delta=True,
        ),
        Figure(f"peers.slow.n{slow}.p50_ms", f"echo while {slow:,} sleep calls are open: p50", "ms", "lower", "{:.2f}"),
        Figure(f"peers.slow.n{slow}.p99_ms", f"echo while {slow:,} sleep calls are open: p99", "ms", "lower", "{:.2f}"),
    ]


def peer_suite(peers: list[Peer], settings: Settings, results: Results, logs: Logs, rep: int) -> None:
    """One repetition of every row, for every server (order flipping by repetition)."""
    missing = ts_ready()
    if missing:
        results.note(f"TypeScript SDK peers not measured: {missing}")
        for peer in peers:
            if peer.typescript:
                for figure in peer_figures(settings):
                    results.add(figure.key, peer.name, None, "not installed")
        peers = [peer for peer in peers if not peer.typescript]
    order = peers if rep % 2 == 0 else peers[::-1]
    for peer in order:
        if peer.stdio:
            with noted(peer, results, rep, "stdio"):
                peer_stdio(peer, settings, results, logs, rep)
    asyncio.run(peer_startups(order, settings, results, logs, rep))
    asyncio.run(peer_http(order, settings, results, logs, rep))


@contextlib.contextmanager
def noted(peer: Peer, results: Results, rep: int, what: str) -> Iterator[None]:
    """One peer's phase: a failure is a note (its figures missing from the table), not the end of the run."""
    try:
        yield
    except (BenchError, OSError, TimeoutError) as exc:
        results.note(f"{peer.column} {what} (rep {rep}): not measured, {type(exc).__name__}: {str(exc)[:160]}")


def peer_stdio(peer: Peer, settings: Settings, results: Results, logs: Logs, rep: int) -> None:
    impl = peer.impl
    server = StdioServer(
        impl.stdio_argv, env=impl.env, stderr=logs.open(f"peers-{impl.name}-stdio-{rep}"), cwd=impl.cwd
    )
    try:
        server.initialize()
        results.add("peers.stdio.rss_mib", impl.name, mib(status_kib(server.pid, "VmRSS")))
        server.pipelined(echo_line(), 16, max_calls=10**9, seconds=settings.warmup)  # warm-up, untimed
        others = OtherLoad(server.pid)
        pipelined_64(server, settings, results, rep, impl.name, "peers.stdio.pipelined_64", "peers.stdio.cpu_us_64")
        results.phase(rep=rep, impl=impl.name, figure="peers.stdio.others", foreign_cores=others.cores())
    finally:
        server.stop()


async def peer_startups(order: list[Peer], settings: Settings, results: Results, logs: Logs, rep: int) -> None:
    """Spawn → initialize answered, over stdio and over HTTP: ``settings.startups`` rounds of one spawn
    of every server, back to back with no load between and the order flipping by round, so a change
    in the machine's speed falls on every column alike; each server's median is the repetition's
    sample."""
    times: dict[tuple[str, str], list[float]] = {}
    for i in range(settings.startups):
        # The floor in the same rounds (Python, Trio and orjson, nothing of MCP): what a row's
        # explanation subtracts (peer_table.py).
        startup_ms, _ = spawn_startup(BARE_STDIO, stderr=logs.open(f"peers-floor-startup-{rep}-{i}"))
        times.setdefault(("floor", "mcptrio"), []).append(startup_ms)
        for peer in order if i % 2 == 0 else order[::-1]:
            impl = peer.impl
            if peer.stdio:
                with noted(peer, results, rep, "stdio start-up"):
                    log = logs.open(f"peers-{impl.name}-stdio-startup-{rep}-{i}")
                    startup_ms, _ = spawn_startup(impl.stdio_argv, env=impl.env, stderr=log, cwd=impl.cwd)
                    times.setdefault(("stdio", peer.name), []).append(startup_ms)
            with noted(peer, results, rep, "HTTP start-up"):
                log_name = f"peers-{peer.name}-http-startup-{rep}-{i}"
                async with serving(impl, http_argv(peer), logs, log_name) as http_server:
                    times.setdefault(("http", peer.name), []).append(http_server.startup_ms)
    for (transport, name), spawns in times.items():
        results.add(f"peers.{transport}.startup_ms", name, statistics.median(spawns))
        results.phase(rep=rep, impl=name, figure=f"peers.{transport}.startup", startup_ms=spawns)


async def peer_http(order: list[Peer], settings: Settings, results: Results, logs: Logs, rep: int) -> None:
    raise_fd_limit(2 * slow_count(settings) + 1000)
    for peer in order:
        with noted(peer, results, rep, "HTTP load"):
            await peer_load(peer, settings, results, logs, rep)
    for peer in order:
        if peer.era == "stateless":
            for key in SESSION_KEYS:
                results.add(f"peers.{key}", peer.name, None, "stateless: no sessions")
            continue
        with noted(peer, results, rep, "sessions"):
            await peer_sessions(peer, settings, results, logs, rep)
        with noted(peer, results, rep, "GET streams"):
            await peer_streams(peer, settings, results, logs, rep)
    for peer in order:
        with noted(peer, results, rep, "slow calls"):
            await peer_slow(peer, settings, results, logs, rep)


def http_argv(peer: Peer) -> Callable[[int], list[str]]:
    return lambda port: peer.impl.http_argv(port, "sse")


async def peer_load(peer: Peer, settings: Settings, results: Results, logs: Logs, rep: int) -> None:
    name = peer.name
    async with serving(peer.impl, http_argv(peer), logs, f"peers-{name}-http-{rep}") as server:
        others = OtherLoad(server.pid)
        for c in settings.concurrency:
            load = await http_load(
                server.port, server.pid, peer.era, c, settings.seconds, settings.max_calls, warmup=settings.warmup
            )
            record_load(results, f"peers.http.c{c}", name, rep, load)
            if load.calls:
                results.add(f"peers.http.c{c}.cpu_us", name, load.server_cpu / load.calls * 1e6)
        results.phase(rep=rep, impl=name, figure="peers.http.others", foreign_cores=others.cores())


async def peer_sessions(peer: Peer, settings: Settings, results: Results, logs: Logs, rep: int) -> None:
    async with serving(peer.impl, http_argv(peer), logs, f"peers-{peer.name}-sessions-{rep}") as server:
        await sessions_phase(server, peer.impl, settings, results, rep, prefix="peers")


async def peer_streams(peer: Peer, settings: Settings, results: Results, logs: Logs, rep: int) -> None:
    async with serving(peer.impl, http_argv(peer), logs, f"peers-{peer.name}-streams-{rep}") as server:
        await streams_phase(server, peer.impl, settings, results, rep, prefix="peers")


async def peer_slow(peer: Peer, settings: Settings, results: Results, logs: Logs, rep: int) -> None:
    count = slow_count(settings)
    async with serving(peer.impl, http_argv(peer), logs, f"peers-{peer.name}-slow-{rep}") as server:
        seen = await echo_among_slow(server, peer.era, count, settings, peer.column)
    record_among_slow(results, f"peers.slow.n{count}", peer.name, rep, peer.column, count, seen)
