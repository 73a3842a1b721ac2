"""stdio through worker threads (what Windows uses) against the ``FdStream`` path, same server, same
run: echo calls per second sequentially and with 64 in flight, and server CPU per call.

    .venv/bin/python bench/stdio_threads.py            # about a minute
    .venv/bin/python bench/stdio_threads.py --smoke    # every figure once, in seconds

The server is ``mcptrio serve --plugins bench`` with ``MCPTRIO_STDIO`` unset or ``threads``; the
client writes to its stdin and reads its stdout from this process (bench/client.py).  Figures are
medians over ``--reps`` fresh servers, the two paths interleaved.  See bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

from client import StdioServer, cpu_seconds, initialize_params, stdio_line

SERVE = [sys.executable, "-m", "mcptrio.cli", "serve", "--plugins", "bench", "--quiet"]
PATHS = {"FdStream": "", "threads": "threads"}


def measure(mode: str, seconds: float) -> dict[str, float]:
    server = StdioServer(SERVE, env={**os.environ, "MCPTRIO_STDIO": mode})
    try:
        server.request("initialize", initialize_params(), timeout=30)
        server.notify("notifications/initialized")
        echo = stdio_line("tools/call", {"name": "echo", "arguments": {"text": "hi"}})
        server.sequential(echo, max_calls=200, seconds=1)  # (a warm-up)
        cpu = cpu_seconds(server.pid)
        calls, elapsed = server.sequential(echo, max_calls=10**9, seconds=seconds)
        sequential_cpu = (cpu_seconds(server.pid) - cpu) / calls
        piped, piped_elapsed = server.pipelined(echo, 64, max_calls=10**9, seconds=seconds)
        return {
            "calls/s, sequential": calls / elapsed,
            "calls/s, 64 in flight": piped / piped_elapsed,
            "server CPU µs per call": sequential_cpu * 1e6,
        }
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    if args.smoke:
        args.reps, args.seconds = 1, 0.3
    runs: dict[str, list[dict[str, float]]] = {path: [] for path in PATHS}
    for _ in range(args.reps):
        for path, mode in PATHS.items():
            runs[path].append(measure(mode, args.seconds))
    figures = {
        path: {key: statistics.median(r[key] for r in found) for key in found[0]} for path, found in runs.items()
    }
    base = figures["FdStream"]
    print("| stdio path | calls/s, sequential | calls/s, 64 in flight | server CPU µs per call |")
    print("| --- | ---: | ---: | ---: |")
    for path, found in figures.items():
        sequential, piped = found["calls/s, sequential"], found["calls/s, 64 in flight"]
        print(
            f"| {path} | {sequential:,.0f} ({sequential / base['calls/s, sequential']:.2f}×) | "
            f"{piped:,.0f} ({piped / base['calls/s, 64 in flight']:.2f}×) | {found['server CPU µs per call']:.1f} |"
        )
    if args.out is not None:
        args.out.write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
