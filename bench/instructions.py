"""Instructions per stdio or HTTP call and per start-up, counted by valgrind's callgrind: the same on
a busy machine as on a quiet one, so a change can be judged while others run benchmarks or tests.

    .venv/bin/python bench/instructions.py                    # echo calls, 64 in flight, `--plugins bench`
    .venv/bin/python bench/instructions.py --calls 20000 --window 16
    .venv/bin/python bench/instructions.py --startup everything  # spawn -> initialize answered -> exit
    .venv/bin/python bench/instructions.py --startup-file bench/servers/everything_file.py  # the same, as a file
    .venv/bin/python bench/instructions.py --http modern --calls 2000  # 2026-07-28 echo over HTTP, 10 clients
    .venv/bin/python bench/instructions.py --gateway http --calls 1000  # the gateway's, per forwarded call

A call's count is (run with N calls - run with none) / N, both from spawn to exit, so start-up and
shutdown cancel out.  Counts are of user-space instructions only (no system calls, no waiting);
they vary by a few per cent with hash randomization, so PYTHONHASHSEED is fixed.  Needs valgrind
(Debian: apt-get install valgrind); the server runs about fifty times slower under it.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from client import BenchError, StdioServer, free_port, perf, stdio_line, wait_for_http  # noqa: E402
from http_load import http_load  # noqa: E402
from settings import HOST, PATH, REPO, TEXT  # noqa: E402

# What --http counts: the server's command line (its port added), whether it is the bare ASGI app,
# and the era its clients speak.
SERVE_HTTP = ["-m", "mcptrio", *"serve --plugins bench --transport http --no-access-log --no-telemetry".split()]
HTTP_SERVERS = {
    "modern": (SERVE_HTTP, False, "modern"),
    "hypercorn": ([*SERVE_HTTP, "--http-server", "hypercorn"], False, "modern"),
    "bare": ([str(BENCH / "servers" / "bare_asgi.py"), "--server", "mcptrio"], True, "modern"),
    # (the peers suite's HTTP rows: a legacy session, every answer an event stream)
    "legacy_sse": ([*SERVE_HTTP, "--response-mode", "sse"], False, "legacy"),
}


def counted(argv: list[str], calls: int, window: int) -> int:
    """Instructions of ``argv`` (a stdio server) under callgrind, driven with ``calls`` echo calls."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        server = StdioServer(_under_callgrind(argv, out), env=_environment(), stderr=subprocess.DEVNULL, cwd=str(REPO))
        server.initialize(timeout=300)  # (fifty times slower under callgrind, more on a busy machine)
        if calls:
            echo = stdio_line("tools/call", {"name": "echo", "arguments": {"text": TEXT}})
            server.pipelined(echo, window, max_calls=calls, seconds=3600)
        server.stop(timeout=600)
        return _total(out)


def counted_gateway(upstream: str, calls: int) -> int:
    """Instructions of a gateway (``mcptrio serve --upstream``) under callgrind, driven like
    ``counted_http``; its upstream (``mcptrio serve --plugins bench``, over HTTP or as its stdio
    child) runs outside callgrind, so only the gateway's own work is counted."""
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        bench = [sys.executable, "-m", "mcptrio", "serve", "--plugins", "bench", "--quiet"]
        upstream_process = None
        if upstream == "http":
            upstream_port = free_port()
            upstream_process = subprocess.Popen(
                [*bench, "--transport", "http", "--port", str(upstream_port)],
                env=_environment(),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                cwd=str(REPO),
            )
            where = f'url = "http://{HOST}:{upstream_port}{PATH}"'
        else:
            where = f"command = {json.dumps(bench[0])}\nargs = {json.dumps(bench[1:])}"
        config = Path(tmp) / "gateway.toml"  # (no namespace: the tool is served as echo, as upstream)
        config.write_text(f'[serve.upstreams.bench]\nnamespace = ""\n{where}\n')
        gateway = [sys.executable, "-m", "mcptrio", "serve", "--config", str(config), "--transport", "http"]
        argv = _under_callgrind([*gateway, "--no-access-log", "--no-telemetry", "--port", str(port)], out)
        process = subprocess.Popen(
            argv, env=_environment(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=str(REPO)
        )
        try:
            asyncio.run(_drive(port, process, calls, False, gateway=True, clients=1))
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(600)
            if upstream_process is not None:
                upstream_process.terminate()
                upstream_process.wait(60)
        return _total(out)


def counted_http(which: str, calls: int) -> int:
    """Instructions of an HTTP server (``HTTP_SERVERS``) under callgrind, driven with ``calls``
    echo calls from 10 clients (in the era its entry names), after the one initialize that shows it is up."""
    command, bare, era = HTTP_SERVERS[which]
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        argv = _under_callgrind([sys.executable, *command, "--port", str(port)], out)
        process = subprocess.Popen(
            argv, env=_environment(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=str(REPO)
        )
        try:
            asyncio.run(_drive(port, process, calls, bare, era=era))
        finally:
            process.send_signal(signal.SIGINT if bare else signal.SIGTERM)  # (the bare app stops on SIGINT)
            process.wait(600)
        return _total(out)


async def _drive(
    port: int,
    process: subprocess.Popen,
    calls: int,
    bare: bool,
    gateway: bool = False,
    clients: int = 10,
    era: str = "modern",
) -> None:
    await wait_for_http(HOST, port, PATH, perf() + 600, process)
    for _ in range(600 if gateway else 0):  # (a gateway answers before its upstream is up: until it is)
        try:
            if not (await http_load(port, None, "modern", 1, 600, 1)).errors:
                break
        except BenchError:
            pass
        await asyncio.sleep(0.5)
    if calls:
        load = await http_load(port, None, era, clients, 3600, calls, bare=bare)
        if load.calls != calls or load.errors:
            raise SystemExit(f"{load.calls} of {calls} calls answered ({load.errors} failed: {load.error_kinds})")


def _under_callgrind(argv: list[str], out: Path) -> list[str]:
    return ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *argv]


def _environment() -> dict[str, str]:
    """This checkout's mcptrio and plugins, ahead of whatever is installed; fixed hashing."""
    path = os.pathsep.join(str(p) for p in (REPO, REPO / "plugins" / "bench", REPO / "plugins" / "everything"))
    return dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=path)


def _total(out: Path) -> int:
    totals = re.search(rb"^(?:summary|totals): (\d+)", out.read_bytes(), re.M)
    if totals is None:
        raise SystemExit(f"no instruction count in {out}")
    return int(totals.group(1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--window", type=int, default=64, help="requests kept outstanding")
    parser.add_argument("--plugins", default="bench", help="what the server serves for the calls")
    parser.add_argument("--startup", metavar="PLUGINS", help="count one start-up serving these plugins instead")
    parser.add_argument(
        "--startup-file", metavar="TARGET", help="count one start-up serving this file or module (mcptrio serve TARGET)"
    )
    parser.add_argument(
        "--http",
        choices=HTTP_SERVERS,
        help="count an HTTP server's echo calls instead (10 clients, 2026-07-28): mcptrio serve on "
        "the built-in server (modern) or on hypercorn, or the bare ASGI app on the built-in one",
    )
    parser.add_argument(
        "--gateway",
        choices=("http", "stdio"),
        help="count a gateway's forwarded echo calls instead (one client, 2026-07-28: with more, how "
        "many answers one wake-up finds depends on the upstream's pace), its upstream over HTTP or stdio",
    )
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("bench/instructions.py needs valgrind (apt-get install valgrind)")
    for source in (REPO / "mcptrio", REPO / "plugins"):  # (compiling is not what is measured)
        compileall.compile_dir(str(source), quiet=1)
    serve = [sys.executable, "-m", "mcptrio", "serve", "--plugins"]
    if args.http:
        idle, busy = counted_http(args.http, 0), counted_http(args.http, args.calls)
        print(
            f"{args.calls} echo calls over HTTP, 10 clients, {args.http}: {(busy - idle) / args.calls:,.0f} "
            f"instructions per call (start-up, one initialize and exit alone: {idle / 1e6:.0f} million)"
        )
        return 0
    if args.gateway:
        idle, busy = counted_gateway(args.gateway, 0), counted_gateway(args.gateway, args.calls)
        print(
            f"{args.calls} echo calls through a gateway, {args.gateway} upstream, one client: "
            f"{(busy - idle) / args.calls:,.0f} gateway instructions per call "
            f"(start-up, one initialize and exit alone: {idle / 1e6:.0f} million)"
        )
        return 0
    if args.startup_file:
        total = counted([sys.executable, "-m", "mcptrio", "serve", args.startup_file], 0, args.window)
        print(f"spawn -> initialize answered -> exit, {args.startup_file}: {total / 1e6:.0f} million instructions")
        return 0
    if args.startup:
        total = counted(serve + [args.startup], 0, args.window)
        print(f"spawn -> initialize answered -> exit, --plugins {args.startup}: {total / 1e6:.0f} million instructions")
        return 0
    idle = counted(serve + [args.plugins], 0, args.window)
    busy = counted(serve + [args.plugins], args.calls, args.window)
    print(
        f"{args.calls} echo calls, {args.window} in flight, --plugins {args.plugins}: "
        f"{(busy - idle) / args.calls:,.0f} instructions per call (start-up and exit alone: {idle / 1e6:.0f} million)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
