"""What is measured: each figure's key, label, unit and which way is better."""

from __future__ import annotations

from dataclasses import dataclass

from settings import HTTP_MODES, MODE_NAMES, Settings


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
    """The main table's figures: mcptrio and the SDK side by side."""
    figs = [
        Figure("stdio.startup_ms", "stdio: spawn → initialize answered", "ms", "lower"),
        Figure(
            "stdio.startup_everything_ms",
            f"stdio: spawn → initialize answered, `serve --plugins everything` (median of {settings.startups} spawns)",
            "ms",
            "lower",
        ),
        Figure(
            "stdio.startup_file_ms",
            f"stdio: spawn → initialize answered, `serve everything_file.py` (median of {settings.startups} spawns)",
            "ms",
            "lower",
        ),
        Figure("stdio.sequential", "stdio echo, sequential", "calls/s", "higher"),
    ]
    figs += [
        Figure(f"stdio.pipelined_{w}", f"stdio echo, {w} pipelined", "calls/s", "higher") for w in settings.windows
    ]
    figs += [
        Figure(
            "stdio.mixed_16",
            "stdio mixed (echo, tools/list, resources/read, prompts/get), 16 pipelined",
            "calls/s",
            "higher",
        ),
        Figure("stdio.cpu_us_sequential", "stdio server CPU per call, sequential", "µs", "lower"),
        Figure("stdio.cpu_us_pipelined_64", "stdio server CPU per call, 64 pipelined", "µs", "lower"),
        Figure("stdio.sync_sequential", "stdio echo as a plain def (worker thread), sequential", "calls/s", "higher"),
        Figure("stdio.sync_pipelined_64", "stdio echo as a plain def, 64 pipelined", "calls/s", "higher"),
        Figure("stdio.cpu_us_sync_sequential", "stdio server CPU per call, plain def echo, sequential", "µs", "lower"),
        Figure(
            "stdio.cpu_us_sync_pipelined_64", "stdio server CPU per call, plain def echo, 64 pipelined", "µs", "lower"
        ),
        Figure("stdio.rss_idle_mib", "stdio RSS after initialize", "MiB", "lower", "{:.1f}"),
        Figure("stdio.peak_rss_mib", "stdio peak RSS (VmHWM)", "MiB", "lower", "{:.1f}"),
        Figure("stdio.cancel_stop_ms", "stdio cancel → sleep counted cancelled", "ms", "lower", "{:.1f}"),
        Figure("stdio.cancel_next_ms", "stdio cancel → next ping answered", "ms", "lower", "{:.2f}"),
        Figure(
            "stdio.eof_answered",
            f"stdio EOF with {settings.eof_requests} sleep({settings.eof_sleep_ms}) in flight: answered",
            f"of {settings.eof_requests}",
            "higher",
            zero_ok=True,
        ),
        Figure("stdio.eof_exit_ms", "stdio EOF → process exited", "ms", "lower"),
    ]
    for mode in HTTP_MODES:
        name = MODE_NAMES[mode]
        for c in settings.concurrency:
            figs += load_figures(f"http.{mode}.c{c}", f"HTTP {name}, {clients(c)}")
        figs.append(Figure(f"http.{mode}.cpu_us", f"HTTP {name} server CPU per call (10 clients)", "µs", "lower"))
    figs += [
        Figure("http.startup_ms", "HTTP: spawn → initialize answered", "ms", "lower"),
        Figure("http.rss_idle_mib", "HTTP RSS after first session", "MiB", "lower", "{:.1f}"),
        Figure("http.peak_rss_mib", "HTTP peak RSS (VmHWM, worst of the 4 servers)", "MiB", "lower", "{:.1f}"),
        Figure(
            "http.sessions_per_s",
            "legacy sessions opened (initialize + initialized), 10 clients",
            "sessions/s",
            "higher",
        ),
        Figure(
            "http.session_kib",
            f"RSS per idle legacy session ({settings.sessions} open)",
            "KiB",
            "lower",
            "{:.1f}",
            delta=True,
        ),
        Figure("http.sessions_rss_open_mib", f"RSS with {settings.sessions} idle sessions", "MiB", "lower", "{:.1f}"),
        Figure(
            "http.sessions_rss_deleted_mib", f"RSS after DELETEing the {settings.sessions}", "MiB", "lower", "{:.1f}"
        ),
        Figure(
            "http.cancel_legacy_stop_ms",
            "HTTP legacy: close response → sleep counted cancelled",
            "ms",
            "lower",
            "{:.1f}",
        ),
        Figure(
            "http.cancel_legacy_next_ms", "HTTP legacy: close response → next echo answered", "ms", "lower", "{:.2f}"
        ),
        Figure(
            "http.cancel_modern_stop_ms",
            "HTTP 2026-07-28: close response → sleep counted cancelled",
            "ms",
            "lower",
            "{:.1f}",
        ),
        Figure(
            "http.cancel_modern_next_ms",
            "HTTP 2026-07-28: close response → next echo answered",
            "ms",
            "lower",
            "{:.2f}",
        ),
    ]
    return figs


def load_figures(key: str, label: str) -> list[Figure]:
    """Throughput, p50 and p99 of one HTTP load phase (as http_load.record_load stores them)."""
    return [
        Figure(f"{key}.rps", f"{label}: throughput", "calls/s", "higher"),
        Figure(f"{key}.p50_ms", f"{label}: p50 latency", "ms", "lower", "{:.2f}"),
        Figure(f"{key}.p99_ms", f"{label}: p99 latency", "ms", "lower", "{:.2f}"),
    ]


def baseline_list(settings: Settings) -> list[Figure]:
    """The floors: a bare ASGI app on each HTTP server, a bare Trio stdio loop."""
    figs = []
    for c in settings.concurrency:
        figs += load_figures(f"bare.c{c}", f"bare ASGI, {clients(c)}")
    figs += [
        Figure("bare.stdio.pipelined_64", "bare Trio stdio echo loop, 64 pipelined", "calls/s", "higher"),
        Figure("bare.stdio.sequential", "bare Trio stdio echo loop, sequential", "calls/s", "higher"),
        Figure("bare.stdio.startup_ms", "bare Trio stdio echo loop: spawn → first answer", "ms", "lower"),
        Figure(
            "bare.stdio.cpu_us_pipelined_64", "bare Trio stdio echo loop, CPU per call, 64 pipelined", "µs", "lower"
        ),
    ]
    return figs
