"""Fast calls among slow ones: sequential ``echo`` calls while many ``sleep`` calls are open.

2026-07-28 over HTTP.  For each count of slow calls in flight (0, 100, 1,000, 10,000; a smoke run
fewer), on a fresh server: that many ``sleep(30000)`` calls are posted, each on a connection of
its own, until the server counts them all started (``sleep_stats``); half a second later the
server's CPU is read over one quiet second (what the open calls cost by themselves), and 300 ``echo`` calls are made one
after another on one more connection: their p50, p99 and max.  The slow calls are then dropped
(the connections closed) with the server.

Three servers, in the same repetition, the order flipping between repetitions and every count
run for all three before the next: mcptrio in its default response mode (``auto``: a slow answer
becomes an event stream, kept probed), mcptrio with ``--response-mode json``, and the SDK in its
default configuration (stateless in this era; JSON answers, an event stream only after 15 s).
mcptrio runs with ``--max-requests 20000``: its default cap (2,000 requests in flight) would turn
the 10,000 away with 503.  The SDK has no such cap.
"""

from __future__ import annotations

import asyncio
import json
import resource
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from client import BenchError, connect_client, cpu_seconds, perf
from figures import Figure
from launch import HttpServer, Impl, Logs, serving
from measure import machine_cpu, percentile, self_cpu
from results import Results
from settings import HOST, PATH, TEXT, Settings

SLEEP_MS = 30_000
SLEEP = {"name": "sleep", "arguments": {"ms": SLEEP_MS}}
OPEN_WITHIN = SLEEP_MS / 1000 - 5  # opening the slow calls took longer: the first would end while measuring
SDK_STREAMS_AFTER = 15.0  # the SDK turns a call still running after this long into an event stream
SETTLE = 0.5  # after the last slow call started: mcptrio (auto) makes its answer an event stream at 0.25 s
# Slow calls in one legacy session: under mcptrio's default cap of requests in flight per session (256).
PER_SESSION = 200
BATCH = 40  # connections opened at once (within any listen backlog: hypercorn's is 100, the SDK's uvicorn's 2048)
# (column, server's --response-mode, impl, results key prefix)
SERVERS = (
    ("mcptrio", "auto", "mcptrio", "mixed"),
    ("mcptrio json", "json", "mcptrio", "mixed.json"),
    ("SDK", "auto", "sdk", "mixed"),
)
STATS = ("p50_ms", "p99_ms", "max_ms", "quiet_cpu_pct")


def figures(settings: Settings) -> list[Figure]:
    """mcptrio (default mode) and the SDK under ``mixed.n<N>.*``; mcptrio in JSON mode under ``mixed.json.n<N>.*``."""
    out = []
    for prefix, who in (("mixed", ""), ("mixed.json", " (mcptrio --response-mode json)")):
        for n in settings.mixed_in_flight:
            label = f"echo while {n:,} sleep calls are open{who}"
            out += [
                Figure(f"{prefix}.n{n}.p50_ms", f"{label}: p50", "ms", "lower", "{:.2f}"),
                Figure(f"{prefix}.n{n}.p99_ms", f"{label}: p99", "ms", "lower", "{:.2f}"),
                Figure(f"{prefix}.n{n}.max_ms", f"{label}: max", "ms", "lower", "{:.2f}"),
                Figure(
                    f"{prefix}.n{n}.quiet_cpu_pct",
                    f"{label}: server CPU with nothing else to do",
                    "% of a core",
                    "lower",
                    "{:.0f}",
                    zero_ok=True,
                ),
            ]
    return out


def raise_fd_limit(wanted: int) -> None:
    """Up to the hard limit: this client holds every slow connection, and the servers it starts inherit it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard == resource.RLIM_INFINITY else min(hard, max(soft, wanted))
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


class OtherLoad:
    """CPU the rest of the machine used meanwhile (not this client, not the server), in cores: on 2 cores,
    a busy neighbour moves a p99 more than anything measured here."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.at, self.machine, self.own = perf(), machine_cpu()[0], self_cpu() + cpu_seconds(pid)

    def cores(self) -> float:
        own = self_cpu() + cpu_seconds(self.pid) - self.own
        return max(0.0, machine_cpu()[0] - self.machine - own) / (perf() - self.at)


class SlowCall(asyncio.Protocol):
    """One open ``sleep`` call: writes its request, then only watches what comes back (probes, an answer)."""

    def __init__(self, request: bytes, calls: SlowCalls) -> None:
        self.request, self.calls = request, calls
        self.head: bytes | None = b""  # None once the status line was read

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        transport.write(self.request)  # type: ignore[attr-defined]

    def data_received(self, data: bytes) -> None:
        self.calls.bytes_in += len(data)
        if self.head is not None:
            self.head += data
            if b"\r\n" in self.head:
                status = self.head.split(b"\r\n", 1)[0]
                if not status.startswith(b"HTTP/1.1 200"):
                    self.calls.refused.append(status.decode(errors="replace"))
                self.head = None

    def connection_lost(self, exc: Exception | None) -> None:
        self.calls.lost += 1


@dataclass
class SlowCalls:
    port: int
    request: Callable[[int], bytes]  # the n-th slow call's whole POST
    transports: list[asyncio.BaseTransport] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    lost: int = 0
    bytes_in: int = 0

    async def open(self, count: int, started: Callable[[], Awaitable[int]]) -> None:
        """``count`` slow calls, ``BATCH`` connections at a time; a batch goes once the server counts the one
        before the last ``started`` (no more than two batches wait to be accepted: a burst beyond the listen
        backlog would wait a second for SYN retries).  All must be open well before the first one ends."""
        loop = asyncio.get_running_loop()
        give_up = perf() + OPEN_WITHIN
        for first in range(0, count + BATCH, BATCH):
            batch = range(first, min(count, first + BATCH))
            made = await asyncio.gather(
                *(loop.create_connection(lambda n=n: SlowCall(self.request(n), self), HOST, self.port) for n in batch)
            )
            self.transports += [transport for transport, _ in made]
            while (now := await started()) < min(first, count):
                if self.refused:
                    raise BenchError(f"slow calls refused: {len(self.refused)}× {self.refused[0]}")
                if perf() > give_up:
                    raise BenchError(
                        f"could not hold {count:,} slow calls: {now:,} had started after {OPEN_WITHIN:g} s"
                    )
                await asyncio.sleep(0.002)

    def close(self) -> None:
        for transport in self.transports:
            transport.close()


async def mixed_suite(impls: list[Impl], settings: Settings, results: Results, logs: Logs, rep: int) -> None:
    """One repetition: every count of slow calls, for every server (order flipping by repetition)."""
    raise_fd_limit(2 * max(settings.mixed_in_flight) + 1000)
    by_name = {impl.name: impl for impl in impls}
    servers = [s for s in SERVERS if s[2] in by_name]
    if rep % 2:
        servers.reverse()
    for count in settings.mixed_in_flight:
        for column, mode, name, prefix in servers:
            try:
                await _one(by_name[name], column, mode, prefix, count, settings, results, logs, rep)
            except (TimeoutError, BenchError, OSError) as exc:
                why = f"{type(exc).__name__}: {str(exc)[:120]}"
                results.note(f"{column}, {count} slow calls (rep {rep}): not measured, {why}")
                for stat in STATS:
                    results.add(f"{prefix}.n{count}.{stat}", name, None, why)


async def _one(
    impl: Impl,
    column: str,
    mode: str,
    prefix: str,
    count: int,
    settings: Settings,
    results: Results,
    logs: Logs,
    rep: int,
) -> None:
    extra = ["--max-requests", "20000"] if impl.name == "mcptrio" else []
    argv = lambda port: impl.http_argv(port, mode) + extra  # noqa: E731
    async with serving(impl, argv, logs, f"mixed-{column.replace(' ', '-')}-{count}-{rep}") as server:
        seen = await echo_among_slow(server, "modern", count, settings, column)
    if impl.name == "sdk" and seen.bytes_in:
        results.note(
            f"SDK, {count} slow calls (rep {rep}): opening them took {seen.opened_s:.1f} s, so the first passed "
            f"the SDK's {SDK_STREAMS_AFTER:g} s mark (event stream and pings) while the echo calls ran"
        )
    record_among_slow(results, f"{prefix}.n{count}", impl.name, rep, column, count, seen)


@dataclass
class AmongSlow:
    """What sequential echo calls saw with slow calls open: their latencies (sorted), the server's CPU
    with nothing else to do, how long opening took, the other processes' CPU meanwhile."""

    latencies: list[float]
    quiet_cpu_pct: float
    opened_s: float
    open_s: float
    foreign_cores: float
    bytes_in: int


async def echo_among_slow(server: HttpServer, era: str, count: int, settings: Settings, column: str) -> AmongSlow:
    """``count`` slow calls open on ``server``, each on a connection of its own (in legacy sessions, at most
    ``PER_SESSION`` to a session, the control client's the first), then the quiet CPU and the echo calls;
    the slow calls are dropped after."""
    control = await connect_client(HOST, server.port, PATH, era)
    owners = [control]
    if era == "legacy":
        owners += [await connect_client(HOST, server.port, PATH, era) for _ in range((count - 1) // PER_SESSION)]
    slow = SlowCalls(server.port, lambda n: owners[n % len(owners)].raw_post("tools/call", SLEEP, "sleep"))
    try:

        async def started() -> int:
            return json.loads(await control.call("sleep_stats", {}))["started"]

        opened_at = perf()
        await slow.open(count, started)
        opened_s = perf() - opened_at
        await asyncio.sleep(SETTLE)
        cpu0 = cpu_seconds(server.pid)
        await asyncio.sleep(settings.mixed_quiet)
        quiet_cpu = (cpu_seconds(server.pid) - cpu0) / settings.mixed_quiet * 100
        for _ in range(settings.mixed_warmup):
            await control.call("echo", {"text": TEXT})
        latencies = []
        others = OtherLoad(server.pid)
        for _ in range(settings.mixed_echoes):
            sent = perf()
            if await control.call("echo", {"text": TEXT}) != TEXT:
                raise BenchError(f"{column}: echo answered a different text")
            latencies.append(perf() - sent)
        foreign = others.cores()
        stats = json.loads(await control.call("sleep_stats", {}))
        open_s = perf() - opened_at
    finally:
        for owner in owners:
            owner.conn.close()
        slow.close()
    if stats["completed"] or stats["cancelled"] or slow.lost:
        raise BenchError(
            f"while measuring, {stats['completed']} slow calls completed, {stats['cancelled']} were "
            f"cancelled, {slow.lost} connections were closed by the server"
        )
    return AmongSlow(sorted(latencies), quiet_cpu, opened_s, open_s, foreign, slow.bytes_in)


def record_among_slow(
    results: Results, key: str, impl: str, rep: int, column: str, count: int, seen: AmongSlow
) -> None:
    """``{key}.p50_ms``, ``.p99_ms``, ``.max_ms`` and ``.quiet_cpu_pct``, and the phase."""
    latencies = seen.latencies
    results.add(f"{key}.p50_ms", impl, percentile(latencies, 0.5) * 1000)
    results.add(f"{key}.p99_ms", impl, percentile(latencies, 0.99) * 1000)
    results.add(f"{key}.max_ms", impl, latencies[-1] * 1000)
    results.add(f"{key}.quiet_cpu_pct", impl, seen.quiet_cpu_pct)
    results.phase(
        rep=rep,
        impl=impl,
        figure=key,
        server=column,
        slow_calls=count,
        opened_s=seen.opened_s,
        open_s=seen.open_s,
        quiet_cpu_pct=seen.quiet_cpu_pct,
        bytes_from_slow_calls=seen.bytes_in,
        foreign_cores=seen.foreign_cores,
        latencies_us=[round(x * 1e6) for x in latencies],
    )


def mixed_table(results: Results, settings: Settings) -> list[str]:
    rows = []
    for count in settings.mixed_in_flight:
        cells = [f"{count:,}"]
        for _, _, name, prefix in SERVERS:
            for stat in STATS:
                value = results.median(f"{prefix}.n{count}.{stat}", name)
                na = results.na.get(f"{prefix}.n{count}.{stat}", {}).get(name)
                cells.append(
                    "n/a"
                    if na
                    else "—"
                    if value is None
                    else (f"{value:.0f}" if stat == "quiet_cpu_pct" else f"{value:.2f}")
                )
        mine, sdk = results.median(f"mixed.n{count}.p99_ms", "mcptrio"), results.median(f"mixed.n{count}.p99_ms", "sdk")
        cells.append(f"{mine / sdk:.2f}" if mine is not None and sdk else "—")
        rows.append("| " + " | ".join(cells) + " |")
    if not any(key.startswith("mixed.") for key in results.samples):
        return []
    head = " | ".join(f"{column} {stat}" for column, _, _, _ in SERVERS for stat in ("p50", "p99", "max", "CPU %"))
    return (
        [
            "",
            f"### Fast calls among slow ones (2026-07-28 over HTTP): {settings.mixed_echoes} sequential echo "
            f"calls while N sleep({SLEEP_MS}) calls are open, ms (median of repetitions)",
            "",
            f"| slow calls open | {head} | p99 mcptrio/SDK |",
            "| ---: |" + " ---: |" * (4 * len(SERVERS) + 1),
        ]
        + rows
        + [
            "",
            "CPU %: the server's CPU over one second with the slow calls open and nothing else to do "
            "(% of one core). mcptrio: default mode (auto); mcptrio json: --response-mode json; SDK: its default. "
            "n/a: see the notes for why." + _neighbours(results),
        ]
    )


def _neighbours(results: Results) -> str:
    """How busy the rest of the machine was while the echo calls ran (2 cores: it moves every p99)."""
    foreign = sorted(p["foreign_cores"] for p in results.phases if "foreign_cores" in p and p["figure"][:6] == "mixed.")
    if not foreign:
        return ""
    return (
        f" Other processes' CPU during the echo calls: median {percentile(foreign, 0.5):.2f} cores, "
        f"above 0.2 cores in {sum(f > 0.2 for f in foreign)} of {len(foreign)} measurements."
    )
