"""The targets of issues 5 and 19: each with the figure of this run that shows it, and whether it is met."""

from __future__ import annotations

import functools

from results import Results
from settings import HTTP_MODES, MODE_NAMES, Settings


def targets_table(results: Results, settings: Settings) -> list[str]:
    """Issue 5's targets, each with the figure of this run that shows it."""
    m = functools.partial(results.median, impl="mcptrio")
    smoke = [
        "(a --smoke run: 0.25 s phases and 100 sessions say that every figure is measured, not how good it is)",
        "",
    ]
    lines = (
        ["", "### The targets (issue 5), from this run", ""]
        + (smoke if settings.smoke else [])
        + ["| target | this run (medians) | median of per-repetition ratios | met |", "| --- | ---: | ---: | :---: |"]
    )

    def row(
        target: str, value: float | None, text: str, ok: bool | None, paired: float | None = None, paired_text: str = ""
    ) -> None:
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
    row(
        "HTTP legacy SSE, 10 clients: ≥ 2× the SDK",
        ratio,
        "{:.2f}×",
        ratio is not None and ratio >= 2,
        paired,
        "{:.2f}×",
    )
    for mode in ("legacy_json", "modern"):
        ratio, paired = vs_sdk(f"http.{mode}.c10.rps")
        row(
            f"HTTP {MODE_NAMES[mode]}, 10 clients: ≥ 1.2× the SDK",
            ratio,
            "{:.2f}×",
            ratio is not None and ratio >= 1.2,
            paired,
            "{:.2f}×",
        )
        # Issue 5's target was the framework's cost over its HTTP server: "≥ 80% of a bare ASGI app
        # on the same hypercorn".  mcptrio's McpHttpApp on hypercorn (bench/servers/on_hypercorn.py)
        # against the bare app there keeps that meaning; the share of the bare app on mcptrio's own,
        # three times faster server is shown beside it, without a verdict (the floor moved).
        value, bare = m(f"hypercorn.{mode}.c10.rps"), m("hypercorn.bare.c10.rps")
        share = value / bare if value is not None and bare else None
        row(
            f"HTTP {MODE_NAMES[mode]}, 10 clients, on hypercorn: ≥ 80% of a bare ASGI app on the same hypercorn",
            share,
            "{:.0%}",
            share is not None and share >= 0.8,
            results.paired_ratio(f"hypercorn.{mode}.c10.rps", "mcptrio", "hypercorn.bare.c10.rps", "mcptrio"),
            "{:.0%}",
        )
        value, bare = m(f"http.{mode}.c10.rps"), m("bare.c10.rps")
        share = value / bare if value is not None and bare else None
        row(
            f"HTTP {MODE_NAMES[mode]}, 10 clients, on mcptrio's server: share of the bare ASGI app there (reported)",
            share,
            "{:.0%}",
            None,
            results.paired_ratio(f"http.{mode}.c10.rps", "mcptrio", "bare.c10.rps", "mcptrio"),
            "{:.0%}",
        )
    worst_p99 = max((v for v in (m(f"http.{mode}.c10.p99_ms") for mode in HTTP_MODES) if v is not None), default=None)
    row(
        "p99 latency, 10 clients (worst HTTP mode): ≤ 25 ms",
        worst_p99,
        "{:.1f} ms",
        worst_p99 is not None and worst_p99 <= 25,
    )
    ratio, paired = vs_sdk("http.modern.c10.rps")
    row(
        "HTTP, 10 clients, each server in its default mode (2026-07-28): ≥ 3× the SDK (issue 19)",
        ratio,
        "{:.2f}×",
        ratio is not None and ratio >= 3,
        paired,
        "{:.2f}×",
    )
    slow = 1000 if 1000 in settings.mixed_in_flight else max(settings.mixed_in_flight)  # (fewer in a smoke run)
    ratio, paired = vs_sdk(f"mixed.n{slow}.p99_ms")
    row(
        f"echo p99 with {slow:,} slow calls open, default modes: ≤ the SDK's (issue 19)",
        ratio,
        "{:.2f}×",
        ratio is not None and ratio <= 1,
        paired,
        "{:.2f}×",
    )
    spawn = m("stdio.startup_ms")
    row("spawn → first response: ≤ 350 ms", spawn, "{:.0f} ms", spawn is not None and spawn <= 350)
    kib = m("http.session_kib")
    row("idle legacy HTTP session (RSS): ≤ 4 KiB", kib, "{:.1f} KiB", kib is not None and kib <= 4)
    rate = m("http.sessions_per_s")
    row("sessions opened per second: ≥ 1,000", rate, "{:.0f}/s", rate is not None and rate >= 1000)
    ping = m("stdio.cancel_next_ms")
    row("ping answered after a cancel: ≤ 2 ms", ping, "{:.2f} ms", ping is not None and ping <= 2)
    stops = [m(key) for key in ("stdio.cancel_stop_ms", "http.cancel_legacy_stop_ms", "http.cancel_modern_stop_ms")]
    row(
        "cancelled work stops (stdio, legacy HTTP, 2026-07-28 HTTP): slowest",
        max(stops) if None not in stops else None,
        "{:.1f} ms",
        None not in stops,
    )
    answered, total = m("stdio.eof_answered"), settings.eof_requests
    shown = "{:.0f} of " + str(total) + " answered"
    row(f"stdin EOF with {total} in flight: 0 lost", answered, shown, answered == total)
    bare = m("bare.c10.rps")
    if rate is not None and bare:
        # Opening a session is two POSTs on a kept-alive connection: what the floor allows.
        lines += [
            "",
            f"Sessions: each is two POSTs (initialize, notifications/initialized), so {rate:.0f}/s is "
            f"{2 * rate:.0f} POSTs/s, {2 * rate / bare:.0%} of what the bare ASGI app answers with "
            f"10 clients on the same HTTP server in this run ({bare:.0f}/s).",
        ]
    return lines


def stdio_targets_table(results: Results, settings: Settings) -> list[str]:
    """Issue 19's stdio targets (mcptrio against its own floor: no SDK needed)."""
    m = functools.partial(results.median, impl="mcptrio")
    lines = [
        "",
        "### The stdio targets (issue 19), from this run",
        "",
        "| target | this run (medians) | median of per-repetition ratios | met |",
        "| --- | ---: | ---: | :---: |",
    ]

    def row(target: str, value: float | None, text: str, ok: bool, paired: str = "") -> None:
        shown = "n/a" if value is None else text.format(value)
        lines.append(f"| {target} | {shown} | {paired} | {'✓' if ok else '✗'} |")

    cpu = m("stdio.cpu_us_pipelined_64")
    row("stdio server CPU per call (64 in flight): ≤ 20 µs", cpu, "{:.1f} µs", cpu is not None and cpu <= 20)
    value, bare = m("stdio.pipelined_64"), m("bare.stdio.pipelined_64")
    share = value / bare if value is not None and bare else None
    paired = results.paired_ratio("stdio.pipelined_64", "mcptrio", "bare.stdio.pipelined_64", "mcptrio")
    row(
        "stdio calls/s, 64 in flight: ≥ 25% of the bare Trio stdio loop",
        share,
        "{:.0%}",
        share is not None and share >= 0.25,
        "" if paired is None else f"{paired:.0%}",
    )
    for key, served in (
        ("stdio.startup_everything_ms", "`serve --plugins everything`"),
        ("stdio.startup_file_ms", "the same plugin as a file (`serve everything_file.py`)"),
    ):
        spawn = m(key)
        row(
            f"spawn → first answer, {served} over stdio: ≤ 150 ms",
            spawn,
            "{:.0f} ms",
            spawn is not None and spawn <= 150,
        )
    return lines
