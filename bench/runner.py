"""The run: a private copy of mcptrio, then the repetitions (each suite per server, order flipping), then the checks."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from pathlib import Path

from client import perf
from http_workloads import bare_http_suite, http_suite
from launch import Logs, make_impls
from many_connections import connections_suite
from measure import MachineLoad
from mixed_load import mixed_suite
from peer_servers import make_peers
from peer_suite import peer_suite
from results import Results
from scale_out import fanout_suite, scale_suite
from settings import BENCH, Settings, log
from sources import snapshot_sources, source_state
from stdio_workloads import bare_stdio_suite, stdio_startup, stdio_suite
from tasks_load import tasks_suite
from variants import ON_HYPERCORN, SERVER_ROWS, VARIANTS, variant_suite


def ensure_gitignore() -> None:
    ignore = BENCH / ".gitignore"
    wanted = [".venv-sdk/", "results/", "__pycache__/", "*.prof"]
    present = ignore.read_text().splitlines() if ignore.exists() else []
    missing = [line for line in wanted if line not in present]
    if missing:
        with ignore.open("a") as f:
            f.write("".join(line + "\n" for line in missing))


def run(settings: Settings, only: str | None, logs_dir: Path) -> Results:
    """Every suite of every server, ``settings.reps`` times, from a private temporary working directory."""
    ensure_gitignore()
    workdir = Path(tempfile.mkdtemp(prefix="mcptrio-bench-"))
    try:
        return _run(settings, only, logs_dir, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _run(settings: Settings, only: str | None, logs_dir: Path, workdir: Path) -> Results:
    results = Results()
    snapshot = snapshot_sources(workdir)
    results.source_start = source_state(snapshot)  # what was measured
    impls = make_impls(only)
    for impl in impls:
        impl.cwd = str(workdir)
        if impl.name == "mcptrio":
            impl.env["PYTHONPATH"] = str(snapshot)
    peers = make_peers(impls, str(workdir))
    machine = MachineLoad()
    logs = Logs(logs_dir)
    suites = settings.suites
    for rep in range(settings.reps):
        results.rep = rep
        order = impls if rep % 2 == 0 else impls[::-1]
        log(f"repetition {rep + 1}/{settings.reps}: {' → '.join(i.name for i in order)}")
        for impl in order if "stdio" in suites else ():
            t = perf()
            stdio_suite(impl, settings, results, logs, rep)
            stdio_startup(impl, settings, results, logs, rep)
            log(f"  {impl.name} stdio suite: {perf() - t:.1f} s")
        if settings.part == "stdio":
            if any(impl.name == "mcptrio" for impl in impls):
                t = perf()
                bare_stdio_suite(settings, results, logs, rep)
                log(f"  stdio floor: {perf() - t:.1f} s")
            continue
        for impl in order:
            # The bare app right before the MCP server on the same HTTP server: "% of bare" compares
            # figures taken seconds apart, not minutes (the machine's speed drifts).
            if "http" in suites:
                t = perf()
                asyncio.run(bare_http_suite(impl, settings, results, logs, rep))
                asyncio.run(http_suite(impl, settings, results, logs, rep))
                log(f"  {impl.name} HTTP suite with its bare floor: {perf() - t:.1f} s")
            if impl.name == "mcptrio" and "variants" in suites:  # right after the plain figures
                t = perf()
                asyncio.run(variant_suite(impl, VARIANTS + SERVER_ROWS, settings, results, logs, rep))
                log(f"  {impl.name} variants: {perf() - t:.1f} s")
        mcptrio = [impl for impl in order if impl.name == "mcptrio"]
        for impl in mcptrio:
            if "floors" in suites:
                t = perf()
                bare_stdio_suite(settings, results, logs, rep)
                asyncio.run(variant_suite(impl, ON_HYPERCORN, settings, results, logs, rep))
                log(f"  {impl.name} stdio floor and the same apps on hypercorn: {perf() - t:.1f} s")
            if "tasks" in suites:
                t = perf()
                asyncio.run(tasks_suite(impl, settings, results, logs, rep))
                log(f"  {impl.name} tasks: {perf() - t:.1f} s")
            if "scale" in suites:
                t = perf()
                asyncio.run(scale_suite(impl, settings, results, logs, rep))
                log(f"  {impl.name} several workers with Redis: {perf() - t:.1f} s")
            if "fanout" in suites and "scale" not in suites:
                t = perf()
                asyncio.run(fanout_suite(impl, settings, results, logs, rep))
                log(f"  {impl.name} fan-out to listen streams over 2 workers: {perf() - t:.1f} s")
            if "connections" in suites and rep == 0:  # (the big counts once per run)
                t = perf()
                asyncio.run(connections_suite(impl, settings, results, logs, rep))
                log(f"  {impl.name} many idle connections and sessions: {perf() - t:.1f} s")
        if "mixed" in suites:
            t = perf()
            asyncio.run(mixed_suite(impls, settings, results, logs, rep))
            log(f"  fast calls among slow ones, every server: {perf() - t:.1f} s")
        if "peers" in suites:
            t = perf()
            peer_suite(peers, settings, results, logs, rep)
            log(f"  peers (TypeScript SDK, FastMCP) beside mcptrio and the SDK: {perf() - t:.1f} s")
    machine.record(results)
    check_sources(results)
    for path in logs.files:
        text = path.read_text(errors="replace") if path.exists() else ""
        tracebacks = text.count("Traceback")
        if tracebacks:
            results.note(f"server log {path}: {tracebacks} traceback(s)")
    return results


def check_sources(results: Results) -> None:
    """A note if mcptrio's work tree changed during the run (the servers ran the copy taken at the start)."""
    results.source_end = source_state()
    start, end = results.source_start, results.source_end
    if end["sources_sha1"] != start["sources_sha1"]:
        results.note(
            f"mcptrio's work tree changed during the run ({start['sources_sha1']} → "
            f"{end['sources_sha1']}); every mcptrio server ran the copy taken at the start "
            f"({start['commit']} + uncommitted edits, sources {start['sources_sha1']})"
        )
