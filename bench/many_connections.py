"""Many connections on one worker (mcptrio only), the ``connections`` suite:

* 20,000 idle keep-alive connections, each having made one echo call and waiting for its next
  (``--keep-alive-timeout 600``, so none is closed while the phase runs);
* 5,000 idle legacy sessions, initialized, their connections closed.

For each: the server's RSS per connection or session, and the p99 of echo calls from 10 clients
while they are open, against the same load on the same server before any was opened (target: at
most 2×).  Then one client's sequential calls, for their p99.9 and slowest: a hold-up of a few
milliseconds a few times a second (a look over every connection in one go) hides in the 10
clients' p99 and shows there.  Afterwards a sample of the idle ones is used again, so a count that
the server quietly dropped would fail the phase rather than flatter it.

The counts need file descriptors: the bench raises its own soft limit to the hard one, and the
server raises its own (``mcptrio serve`` does for ``--max-connections``), never the product's
defaults.  Where the hard limit is too low for 20,000 and the spare each process needs, the count
is cut to fit and the report says so.
"""

from __future__ import annotations

import asyncio
import resource

from client import BenchError, HttpConnection, McpHttpClient, connect_client, status_kib
from figures import Figure
from http_load import http_load, record_load
from launch import Impl, Logs, serving
from measure import percentile
from mixed_load import raise_fd_limit
from results import Results
from settings import HOST, PATH, TEXT, Settings

KEEPALIVE, SESSIONS = 20_000, 5_000
SPARE_FILES = 200  # what either process holds besides these connections
BATCH = 200  # connections opened at once: a storm of them would measure the listen backlog
SAMPLE = 100  # every SAMPLE-th idle connection or session is used again at the end

FIGURES = [
    Figure("connections.keepalive.count", "idle keep-alive connections open", "", "higher", fmt="{:,.0f}"),
    Figure(
        "connections.keepalive.kib_per_connection",
        "RSS per idle keep-alive connection",
        "KiB",
        "lower",
        "{:.1f}",
        delta=True,
    ),
    Figure("connections.keepalive.none.p99_ms", "echo p99, 10 clients, none open", "ms", "lower", "{:.2f}"),
    Figure("connections.keepalive.open.p99_ms", "echo p99, 10 clients, all open", "ms", "lower", "{:.2f}"),
    *(
        Figure(
            f"connections.{kind}.{state}.one_{stat}_ms",
            f"{era}echo {label}, one client, {state}",
            "ms",
            "lower",
            "{:.2f}",
        )
        for kind, era in (("keepalive", ""), ("sessions", "legacy "))
        for state in ("none", "open")
        for stat, label in (("p999", "p99.9"), ("max", "slowest"))
    ),
    Figure("connections.sessions.count", "idle legacy sessions open", "", "higher", fmt="{:,.0f}"),
    Figure("connections.sessions.kib_per_session", "RSS per idle legacy session", "KiB", "lower", "{:.1f}", delta=True),
    Figure("connections.sessions.none.p99_ms", "legacy echo p99, 10 clients, none open", "ms", "lower", "{:.2f}"),
    Figure("connections.sessions.open.p99_ms", "legacy echo p99, 10 clients, all open", "ms", "lower", "{:.2f}"),
]


def fitting(wanted: int) -> int:
    """``wanted``, or as many as the file limit lets both ends hold (raised as far as it goes)."""
    raise_fd_limit(wanted + SPARE_FILES)
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return wanted if soft == resource.RLIM_INFINITY else min(wanted, soft - SPARE_FILES)


async def connections_suite(impl: Impl, settings: Settings, results: Results, logs: Logs, rep: int) -> None:
    await _keepalive_phase(impl, settings, results, logs, rep)
    await _sessions_phase(impl, settings, results, logs, rep)


async def _keepalive_phase(impl: Impl, settings: Settings, results: Results, logs: Logs, rep: int) -> None:
    count = 200 if settings.smoke else fitting(KEEPALIVE)
    if count < KEEPALIVE and not settings.smoke:
        results.note(f"the file limit here holds {count:,} idle keep-alive connections, not {KEEPALIVE:,}")
    argv = lambda port: impl.http_argv(port, "auto") + ["--plugins", "bench", "--keep-alive-timeout", "600"]  # noqa: E731
    async with serving(impl, argv, logs, f"connections-keepalive-{rep}") as server:
        await _echo_tails(server.port, "modern", settings, results, impl, rep, "connections.keepalive.none")
        before = status_kib(server.pid, "VmRSS")
        idle: list[McpHttpClient] = []
        for start in range(0, count, BATCH):
            size = min(BATCH, count - start)
            idle += await asyncio.wait_for(asyncio.gather(*(_one_call(server.port) for _ in range(size))), 60)
        await asyncio.sleep(0.5)
        results.add("connections.keepalive.count", impl.name, len(idle))
        results.add(
            "connections.keepalive.kib_per_connection", impl.name, (status_kib(server.pid, "VmRSS") - before) / count
        )
        await _echo_tails(server.port, "modern", settings, results, impl, rep, "connections.keepalive.open")
        for client in idle[::SAMPLE]:  # (each on the connection it opened: a closed one fails here)
            if await asyncio.wait_for(client.call("echo", {"text": TEXT}), 10) != TEXT or client.conn.reconnects:
                raise BenchError("an idle keep-alive connection was not kept")
        for client in idle:
            client.conn.close()


async def _one_call(port: int) -> McpHttpClient:
    client = await connect_client(HOST, port, PATH, "modern")
    if await client.call("echo", {"text": TEXT}) != TEXT:
        raise BenchError("echo answered a different text")
    return client


async def _sessions_phase(impl: Impl, settings: Settings, results: Results, logs: Logs, rep: int) -> None:
    count = 100 if settings.smoke else SESSIONS
    argv = lambda port: impl.http_argv(port, "json") + ["--plugins", "bench"]  # noqa: E731
    async with serving(impl, argv, logs, f"connections-sessions-{rep}") as server:
        await _echo_tails(server.port, "legacy", settings, results, impl, rep, "connections.sessions.none")
        before = status_kib(server.pid, "VmRSS")
        conns = [await HttpConnection(HOST, server.port).connect() for _ in range(10)]
        ids: list[str] = []

        async def opener(conn: HttpConnection) -> None:
            while len(ids) < count:
                ids.append("")  # (claimed before the await: the count is exact)
                slot = len(ids) - 1
                ids[slot] = await McpHttpClient(conn, PATH).open_session()

        await asyncio.wait_for(asyncio.gather(*(opener(conn) for conn in conns)), 300)
        for conn in conns:
            conn.close()
        await asyncio.sleep(0.5)
        results.add("connections.sessions.count", impl.name, len(ids))
        results.add(
            "connections.sessions.kib_per_session", impl.name, (status_kib(server.pid, "VmRSS") - before) / count
        )
        await _echo_tails(server.port, "legacy", settings, results, impl, rep, "connections.sessions.open")
        conn = await HttpConnection(HOST, server.port).connect()
        for session_id in ids[::SAMPLE]:
            if await McpHttpClient(conn, PATH, session_id=session_id).call("echo", {"text": TEXT}) != TEXT:
                raise BenchError("an idle legacy session was not kept")
        conn.close()


async def _echo_tails(
    port: int, era: str, settings: Settings, results: Results, impl: Impl, rep: int, key: str
) -> None:
    load = await http_load(port, None, era, 10, settings.seconds, settings.max_calls, warmup=settings.warmup)
    record_load(results, key, impl.name, rep, load)
    one = await http_load(port, None, era, 1, settings.seconds, settings.max_calls, warmup=settings.warmup)
    latencies = sorted(one.latencies)
    if latencies:
        results.add(f"{key}.one_p999_ms", impl.name, percentile(latencies, 0.999) * 1000)
        results.add(f"{key}.one_max_ms", impl.name, latencies[-1] * 1000)


def connections_table(results: Results) -> list[str]:
    rows = []
    for kind, per in (("keepalive", "connection"), ("sessions", "session")):
        count = results.median(f"connections.{kind}.count", "mcptrio")
        if count is None:
            continue
        kib = results.median(f"connections.{kind}.kib_per_{per}", "mcptrio")
        none = results.median(f"connections.{kind}.none.p99_ms", "mcptrio")
        loaded = results.median(f"connections.{kind}.open.p99_ms", "mcptrio")
        ratio = loaded / none if loaded and none else None
        verdict = "n/a" if ratio is None else f"{ratio:.2f}× {'✓' if ratio <= 2 else '✗'}"
        label = "idle keep-alive connections" if kind == "keepalive" else "idle legacy sessions"
        one = " | ".join(
            "/".join(
                f"{results.median(f'connections.{kind}.{state}.one_{stat}_ms', 'mcptrio') or 0:.2f}"
                for stat in ("p999", "max")
            )
            + " ms"
            for state in ("none", "open")
        )
        p99s = f"{none or 0:.2f} ms | {loaded or 0:.2f} ms"
        rows.append(f"| {count:,.0f} {label} | {kib or 0:.1f} KiB | {p99s} | {verdict} | {one} |")
    if not rows:
        return []
    return [
        "",
        "### Many connections on one worker (mcptrio only; target: p99 with them open ≤ 2× with none)",
        "",
        "| open | RSS per one | echo p99, none open | echo p99, all open | ratio "
        "| one client's p99.9/slowest, none open | the same, all open |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
        *rows,
    ]
