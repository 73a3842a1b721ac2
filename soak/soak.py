#!/usr/bin/env python3
"""Bounded soak test of ``mcptrio serve --plugins bench --transport http``.

Starts the real command on a free 127.0.0.1 port (``--port 0``; the bound URL is read from its
stderr), then runs ``--clients`` simulated clients for ``--seconds`` that mix:

* legacy sessions: initialize (every legacy revision), echo calls with checked answers, batches
  (2025-03-26), sleep calls that complete, sleep calls cancelled by closing the response early
  or by ``notifications/cancelled``, a standalone GET stream ended by DELETE, DELETE;
* modern (2026-07-28) stateless calls: ``_meta`` envelope plus ``Mcp-Method`` / ``Mcp-Name`` /
  ``MCP-Protocol-Version`` headers; echo, tools/list, server/discover, sleeps, early closes;
* abrupt disconnects: mid-headers, mid-body, mid-stream (FIN or RST), before the answer;
* malformed messages: bad JSON, invalid UTF-8, wrong types, oversize bodies (over the
  ``--max-message-size`` set through a ``--config`` TOML file), bad headers, unknown sessions.

Phases: warm-up, then clean-up (DELETE every session still open) and RSS "before"; the timed run,
then clean-up and RSS "after"; then the bench counters (every sleep started was completed or
cancelled), a last echo, the server's stderr (no tracebacks), and SIGTERM (exit 0).

Exit status 0 only when there were no unexpected errors, the server stayed up and exited
cleanly, no sleep handler leaked and RSS grew by at most ``--max-rss-growth-mb``.
Every loop is bounded in count and in time; everything stays on loopback.

The modules beside it, by what they do: server_process (the server under test), sim_client and
traffic_legacy / traffic_modern / traffic_cancel / traffic_disconnects / traffic_malformed (the
traffic), client_base (a client's loop and requests), answer_checks (what every answer must be),
tally (the counts), phases (warm-up, run, clean-up, shutdown), summary (verdict and report),
limits (versions, time bounds).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import trio

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for _path in (
    ROOT,
    HERE,
):  # the shared request builders (tests/transports/http/client.py), then the modules beside this one
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from phases import soak  # noqa: E402
from summary import render  # noqa: E402


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Bounded soak test of mcptrio serve --transport http.")
    parser.add_argument("--seconds", type=float, default=60.0, help="length of the timed run (default 60)")
    parser.add_argument(
        "--warmup", type=float, default=None, help="warm-up before RSS 'before' is measured (default min(5, seconds/4))"
    )
    parser.add_argument("--clients", type=int, default=16, help="concurrent simulated clients (default 16)")
    parser.add_argument(
        "--max-message-size",
        type=int,
        default=65536,
        help="server's message limit, set through a --config file (default 65536)",
    )
    parser.add_argument(
        "--max-rss-growth-mb",
        type=float,
        default=30.0,
        help="fail when RSS after exceeds RSS before by more than this (default 30)",
    )
    parser.add_argument("--max-iterations", type=int, default=100_000, help="scenarios per client per phase, at most")
    parser.add_argument("--grace", type=float, default=2.0, help="server shutdown_grace (default 2)")
    parser.add_argument("--settle", type=float, default=2.0, help="seconds to wait before measuring RSS (default 2)")
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: random, printed)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON on stdout")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    args = parser.parse_args(argv)
    if args.warmup is None:
        args.warmup = min(5.0, args.seconds / 4)
    if args.seconds <= 0 or args.clients <= 0 or args.max_message_size < 1024:
        parser.error("--seconds and --clients must be positive, --max-message-size at least 1024")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    report = trio.run(soak, args)
    if args.json:
        print(json.dumps(report, indent=2))
        print(render(report), file=sys.stderr)
    else:
        print(render(report))
    return 0 if report["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
