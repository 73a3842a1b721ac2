"""Where mcptrio's time goes: cProfile of the server under echo load.

    .venv/bin/python bench/profile_stdio.py                      # stdio, 20,000 echo calls, 16 pipelined
    .venv/bin/python bench/profile_stdio.py --calls 50000 --window 64
    .venv/bin/python bench/profile_stdio.py --http legacy_json   # or modern, legacy_sse: 10 clients

Runs the server as ``python -m cProfile -o FILE ...`` (stdio: the real ``mcptrio serve --plugins
bench``), drives it with bench/client.py, lets it shut down cleanly so the profile is written,
then prints the top functions by cumulative time with their share of the whole profiled time,
and the top by own (internal) time.  The .prof file stays in bench/results/ for snakeviz & co.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import pstats
import signal
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from client import StdioServer, free_port, perf, stdio_line  # noqa: E402
from http_load import http_load  # noqa: E402
from settings import HOST, PATH, RESULTS, TEXT  # noqa: E402

MODES = {"legacy_sse": ("sse", "legacy"), "legacy_json": ("json", "legacy"), "modern": ("auto", "modern")}


def profile_stdio(out: Path, calls: int, window: int) -> None:
    argv = [sys.executable, "-m", "cProfile", "-o", str(out), "-m", "mcptrio.cli", "serve", "--plugins", "bench"]
    server = StdioServer(argv, stderr=subprocess.DEVNULL)
    server.initialize()
    echo = stdio_line("tools/call", {"name": "echo", "arguments": {"text": TEXT}})
    done, elapsed = server.pipelined(echo, window, max_calls=calls, seconds=600)
    print(f"stdio: {done} echo calls, {window} pipelined, {done / elapsed:.0f} calls/s under the profiler")
    server.stop(timeout=30)


def profile_http(out: Path, mode: str, calls: int, clients: int, extra: list[str]) -> None:
    server_mode, era = MODES[mode]
    port = free_port()
    argv = [
        sys.executable,
        "-m",
        "cProfile",
        "-o",
        str(out),
        "-m",
        "mcptrio",
        "serve",
        "--plugins",
        "bench",
        "--transport",
        "http",
        "--host",
        HOST,
        "--port",
        str(port),
        "--response-mode",
        server_mode,
        "--no-access-log",
        *extra,
    ]
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        from client import wait_for_http

        async def drive() -> None:
            await wait_for_http(HOST, port, PATH, perf() + 30, proc)
            load = await http_load(port, proc.pid, era, clients, 600, calls)
            print(
                f"HTTP {mode}: {load.calls} echo calls ({load.errors} failed), {clients} clients, "
                f"{load.calls / load.elapsed:.0f} calls/s under the profiler"
            )

        asyncio.run(drive())
    finally:
        proc.send_signal(signal.SIGTERM)  # a clean shutdown writes the profile
        proc.wait(30)


def summarize(path: Path, top: int) -> str:
    stats = pstats.Stats(str(path))
    total = stats.total_tt  # type: ignore[attr-defined]
    rows = []
    for (filename, line, name), (_cc, _nc, tt, ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        short = filename.replace(str(BENCH.parent) + "/", "")
        if "site-packages/" in short:
            short = short.split("site-packages/", 1)[1]
        rows.append((ct, tt, f"{short}:{line}({name})"))
    out = io.StringIO()
    out.write(f"total profiled time {total:.2f} s\n\ntop {top} by cumulative time:\n")
    out.write("  cum%   own%  function\n")
    for ct, tt, where in sorted(rows, reverse=True)[:top]:
        out.write(f"{100 * ct / total:6.1f} {100 * tt / total:6.1f}  {where}\n")
    by_package: dict[str, float] = {}
    for _ct, tt, where in rows:
        by_package[_package(where)] = by_package.get(_package(where), 0.0) + tt
    out.write("\nown time by package:\n")
    for package, tt in sorted(by_package.items(), key=lambda item: item[1], reverse=True)[:12]:
        out.write(f"{100 * tt / total:6.1f}  {package}\n")
    out.write(f"\ntop {top} by own time:\n  own%   cum%  function\n")
    for ct, tt, where in sorted(rows, key=lambda r: r[1], reverse=True)[:top]:
        out.write(f"{100 * tt / total:6.1f} {100 * ct / total:6.1f}  {where}\n")
    return out.getvalue()


def _package(where: str) -> str:
    if where.startswith("~:0("):
        return "builtins (C calls: I/O, epoll, json, ...)"
    head = where.split(":", 1)[0]
    if head.startswith("<"):
        return "python startup (import machinery)"
    first = head.split("/", 1)[0]
    if first in ("mcptrio", "plugins", "bench"):
        return "/".join(head.split("/")[:2]) if first == "mcptrio" and head.count("/") >= 2 else first
    if "/lib/python3" in head:
        return "stdlib"
    return first


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--window", type=int, default=16, help="stdio: requests kept outstanding")
    parser.add_argument("--http", choices=sorted(MODES), help="profile the HTTP server in this mode instead")
    parser.add_argument("--clients", type=int, default=10, help="HTTP: concurrent clients")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument(
        "--serve-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="HTTP: one more argument for `mcptrio serve` (repeat it), e.g. --serve-arg=--access-log",
    )
    args = parser.parse_args()
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / (f"profile-http-{args.http}.prof" if args.http else "profile-stdio.prof")
    if args.http:
        profile_http(out, args.http, args.calls, args.clients, args.serve_arg)
    else:
        profile_stdio(out, args.calls, args.window)
    print(f"profile: {out}\n")
    print(summarize(out, args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
