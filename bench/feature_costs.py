"""Every feature of issues 13-17 (the product's issues 7-11) off against on, from one run, with the
target its issue named: the middleware pipeline, OpenTelemetry, the access log, JWT authorization,
Redis state and several workers, tasks.  Each "on" figure comes from the same repetitions as its
"off" one (variants.py, scale_out.py, tasks_load.py, mixed_load.py); a row whose suites did not run
says so.
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Callable

from results import Results

# (feature, on, off, what is compared, target: (text, test of the ratio on/off) or None to report it)
Target = tuple[str, Callable[[float], bool]] | None
RATIO_ROWS: list[tuple[str, str, str, str, Target]] = [
    (
        "3 no-op middleware (issue 13)",
        "variant.noop_middleware_3.c10.rps",
        "http.modern.c10.rps",
        "2026-07-28 echo, 10 clients, calls/s",
        ("≥ 95% (cost ≤ 5%)", lambda r: r >= 0.95),
    ),
    (
        "OpenTelemetry, API only: the default (issue 13)",
        "variant.otel_api.c10.rps",
        "variant.otel_off.c10.rps",
        "the same, against --no-telemetry",
        ("≥ 97% (cost ≤ 3%)", lambda r: r >= 0.97),
    ),
    (
        "OpenTelemetry, SDK + batch exporters (issue 13)",
        "variant.otel_sdk.c10.rps",
        "variant.otel_off.c10.rps",
        "the same, against --no-telemetry",
        None,
    ),
    (
        "the access log (on by default over HTTP)",
        "variant.access_log.c10.rps",
        "http.modern.c10.rps",
        "2026-07-28 echo, 10 clients, calls/s",
        None,
    ),
    (
        "JWT authorization, keys cached (issue 14)",
        "variant.auth_jwt.c10.rps",
        "http.modern.c10.rps",
        "2026-07-28 echo, 10 clients, calls/s",
        ("≥ 90%", lambda r: r >= 0.90),
    ),
    (
        "Redis state, 1 worker (issue 16)",
        "scale.redis1.modern.rps",
        "scale.mem1.modern.rps",
        "2026-07-28 echo, 10 clients, against memory",
        ("≥ 80%", lambda r: r >= 0.80),
    ),
    (
        "Redis state, 1 worker (issue 16)",
        "scale.redis1.legacy.rps",
        "scale.mem1.legacy.rps",
        "legacy echo on SSE, 10 clients, against memory",
        ("≥ 80%", lambda r: r >= 0.80),
    ),
    (
        "2 workers with Redis (issue 16)",
        "scale.redis2.modern.rps",
        "scale.redis1.modern.rps",
        "2026-07-28 echo, against 1 worker with Redis",
        None,
    ),  # ≥ 1.8× "when the load client runs elsewhere": here it shares the 2 cores (reported)
    (
        "a task instead of a direct call (issue 15)",
        "tasks.task_p50_ms",
        "tasks.direct_p50_ms",
        "echo_task, sequential, p50 to the result",
        None,
    ),
    (
        "a plain def tool instead of async def (issue 26)",
        "stdio.sync_sequential",
        "stdio.sequential",
        "stdio echo, sequential, calls/s",
        None,
    ),
    (
        "a plain def tool instead of async def (issue 26)",
        "stdio.cpu_us_sync_sequential",
        "stdio.cpu_us_sequential",
        "stdio server CPU per call, sequential, µs",
        None,
    ),
    (
        "a plain def tool instead of async def (issue 26)",
        "stdio.sync_pipelined_64",
        "stdio.pipelined_64",
        "stdio echo, 64 pipelined, calls/s",
        None,
    ),
]

# (feature, figure, unit format, target: (text, test of the value) or None)
VALUE_ROWS: list[tuple[str, str, str, Target]] = [
    ("JWT authorization (issue 14): a token not seen before", "variant.auth_jwt.verify_us", "{:.0f} µs", None),
    ("tasks (issue 15): RSS per running task, 1,000 running", "tasks.kib_per_task", "{:.1f} KiB", None),
    ("tasks (issue 15): tasks/get p50 while 1,000 run", "tasks.get_p50_ms", "{:.2f} ms", None),
    ("tasks (issue 15): tasks/get p99 while 1,000 run", "tasks.get_p99_ms", "{:.2f} ms", None),
    (
        "10,000 listen streams over 2 workers (issue 16): RSS per stream",
        "scale.listen.kib_per_stream",
        "{:.1f} KiB",
        ("≤ 8 KiB", lambda v: v <= 8),
    ),
    (
        "10,000 listen streams (issue 16): a change → the last stream notified, p99",
        "scale.listen.p99_ms",
        "{:.0f} ms",
        ("≤ 50 ms", lambda v: v <= 50),
    ),
    (
        "1,000 legacy GET streams over 2 workers (issue 31): RSS per stream",
        "scale.legacy_listen.kib_per_stream",
        "{:.1f} KiB",
        ("≤ 8 KiB", lambda v: v <= 8),
    ),
    (
        "1,000 legacy GET streams (issue 31): a change → the last stream notified, p99",
        "scale.legacy_listen.p99_ms",
        "{:.0f} ms",
        ("≤ 50 ms", lambda v: v <= 50),
    ),
    (
        "10,000 listen streams on 1 process, default limits (issue 33): RSS per stream",
        "scale.listen1.kib_per_stream",
        "{:.1f} KiB",
        None,
    ),
    (
        "10,000 idle connections on 1 process (issue 33): RSS per connection",
        "scale.idle.kib_per_connection",
        "{:.1f} KiB",
        None,
    ),
    (
        "an echo call among 10,000 listen streams, 1 process, default limits (issue 33)",
        "scale.listen1.call_ms",
        "{:.2f} ms",
        ("answered", lambda v: v > 0),
    ),
    (
        "echo p99 with 1,000 slow calls in flight, 2 workers + Redis (issue 16)",
        "scale.busy.p99_ms",
        "{:.2f} ms",
        ("≤ 10 ms", lambda v: v <= 10),
    ),
    (
        "echo p99 with 1,000 slow calls in flight, 1 process (issue 16; issue 19 below)",
        "mixed.n1000.p99_ms",
        "{:.2f} ms",
        ("≤ 10 ms", lambda v: v <= 10),
    ),
]


def _met(target: Target, value: float) -> str:
    return "report" if target is None else ("✓" if target[1](value) else "✗")


def feature_costs_table(results: Results) -> list[str]:
    """Off against on for each feature measured in this run (nothing when none was)."""
    m = lambda key: results.median(key, "mcptrio")  # noqa: E731
    rows = [row for row in RATIO_ROWS if m(row[1]) is not None and m(row[2])]
    values = [row for row in VALUE_ROWS if m(row[1]) is not None]
    if not rows and not values:
        return []
    lines = [
        "",
        "### Each feature off against on, same run, with its issue's target",
        "",
        "| feature | compared | off | on | on/off | median of per-repetition ratios | target | met |",
        "| --- | --- | ---: | ---: | ---: | ---: | --- | :---: |",
    ]
    for name, on_key, off_key, what, target in rows:
        on, off = m(on_key), m(off_key)
        assert on is not None and off
        paired = results.paired_ratio(on_key, "mcptrio", off_key, "mcptrio")
        digits = "{:.2f}" if on < 100 else "{:.0f}"
        lines.append(
            f"| {name} | {what} | {digits.format(off)} | {digits.format(on)} | {on / off:.2f}× | "
            f"{'—' if paired is None else f'{paired:.2f}×'} | {target[0] if target else '(report)'} | "
            f"{_met(target, on / off)} |"
        )
    missed = []
    for name, key, fmt, target in values:
        value = m(key)
        assert value is not None
        met = _met(target, value)
        lines.append(f"| {name} | | | {fmt.format(value)} | | | {target[0] if target else '(report)'} | {met} |")
        if met == "✗" and key in FANOUT_PHASES:
            missed += _fanout_floor(name, results, FANOUT_PHASES[key], value)
    if missed:
        lines += ["", "Where a fan-out row is ✗, what this run's CPU figures say of why:", "", *missed]
    return lines


# The fan-out rows' phases (scale_out.py), which record the CPU one change cost.
FANOUT_PHASES = {"scale.listen.p99_ms": "scale.listen", "scale.legacy_listen.p99_ms": "scale.legacy_listen"}
FANOUT_TARGET_MS = 50


def _fanout_floor(name: str, results: Results, phase: str, p99: float) -> list[str]:
    """The CPU a change costs the servers and the load client, over the cores they share: no
    spreading of the work tells the last stream sooner than that."""
    found = [p for p in results.phases if p.get("figure") == phase and "server_ms_per_change" in p]
    if not found:
        return []
    server = statistics.median(p["server_ms_per_change"] for p in found)
    client = statistics.median(p["client_ms_per_change"] for p in found)
    streams, cores = found[0]["streams"], os.cpu_count() or 1
    floor = (server + client) / cores
    budget = FANOUT_TARGET_MS * cores - client
    return [
        f"- {name.split(' (')[0]}: p99 {p99:.0f} ms. A change cost the workers and redis-server {server:.0f} ms of "
        f"CPU and the load client, which shares the machine, {client:.0f} ms: on {cores} cores the last of "
        f"{streams:,} streams cannot hear of it before ({server:.0f} + {client:.0f}) ÷ {cores} = {floor:.0f} ms, "
        f"however the work is spread. ≤ {FANOUT_TARGET_MS} ms here takes the servers under {budget:.0f} ms a change "
        f"({max(budget, 0) / streams * 1000:.1f} µs a stream, against {server / streams * 1000:.1f} now), or the load "
        "client on a machine of its own."
    ]
