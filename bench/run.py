"""mcptrio against the official MCP Python SDK: the same workload, interleaved, medians and ratios.

    .venv/bin/python bench/run.py              # the full run: a few minutes
    .venv/bin/python bench/run.py --smoke      # every phase with tiny counts, well under a minute
    .venv/bin/python bench/run.py --only mcptrio
    .venv/bin/python bench/run.py --part stdio --reps 5   # stdio only: both servers and the bare floor
    .venv/bin/python bench/run.py --suites mixed   # some suites only (stdio,http,...,peers: see --help)

The SDK (``mcp==2.3.0``) runs from its own virtualenv, bench/.venv-sdk, which this script
creates from PyPI on first use.  The peers suite adds the TypeScript SDK's servers (bench/peers/ts,
installed by ``npm ci``) and FastMCP (the project's venv) beside both.  Every server is a child
process on 127.0.0.1; the load client (bench/client.py) speaks raw JSON-RPC.  Each repetition runs
every suite once per server, the order flipping between repetitions; a figure is the median over
repetitions.

Prints a markdown table and writes every sample to bench/results/latest.json.

The modules beside it, by what they do: settings (paths, Settings), figures (what is measured),
launch (the servers), stdio_workloads / http_workloads / http_load / mixed_load (the workloads), variants
(a server configuration against the plain one in the same run: add rows there), measure (CPU,
RSS, percentiles, machine load), runner (the repetitions), report / targets (the tables),
results / results_json (the samples and the JSON file), sources (one mcptrio version per run),
peer_servers / peer_suite / peer_table (the TypeScript SDK and FastMCP beside mcptrio and the SDK).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from client import perf  # noqa: E402
from report import report  # noqa: E402
from results_json import save  # noqa: E402
from runner import run  # noqa: E402
from settings import IMPLS, PARTS, RESULTS, SUITES, Settings  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--smoke", action="store_true", help="every phase with tiny counts (well under a minute)")
    parser.add_argument("--only", choices=IMPLS, help="measure one server only (mcptrio needs no SDK venv)")
    parser.add_argument(
        "--part",
        choices=PARTS,
        default="all",
        help="stdio: only the stdio suites and the bare stdio floor (about 20 s a repetition)",
    )
    parser.add_argument("--reps", type=int, help="repetitions (default 3; smoke 1)")
    parser.add_argument("--seconds", type=float, help="time bound of each throughput phase (default 1.5)")
    parser.add_argument("--sessions", type=int, help="idle legacy sessions to open (default 1000)")
    parser.add_argument(
        "--suites",
        type=lambda text: tuple(text.split(",")),
        default=SUITES,
        help=f"comma-separated, of {','.join(SUITES)} (default: all)",
    )
    parser.add_argument("--out", type=Path, default=RESULTS / "latest.json", help="where the samples go")
    args = parser.parse_args(argv)
    settings = Settings.smoke_settings() if args.smoke else Settings()
    if args.reps:
        settings.reps = args.reps
    if args.seconds:
        settings.seconds = args.seconds
    if args.sessions:
        settings.sessions = args.sessions
    unknown = set(args.suites) - set(SUITES)
    if unknown:
        parser.error(f"unknown suite(s) {', '.join(sorted(unknown))}: choose from {', '.join(SUITES)}")
    settings.suites = args.suites
    settings.part = args.part
    if args.part == "stdio":
        settings.suites = ("stdio",)
    impls = [args.only] if args.only else list(IMPLS)
    start = perf()
    results = run(settings, args.only, args.out.parent / "logs")
    wall = perf() - start
    save(results, settings, impls, args.out, wall)
    print(report(results, settings, impls))
    print(f"\n{wall:.0f} s; every sample in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
