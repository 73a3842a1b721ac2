"""Who sees what, measured: ``tools/list`` over 5,000 tools filtered per caller against the same list
unfiltered, and echo throughput with a visibility rule configured against none.

    .venv/bin/python bench/visibility.py            # about a minute on 2 cores
    .venv/bin/python bench/visibility.py --smoke    # a few seconds, every figure once

Each server is a process of its own (``python bench/visibility.py serve ...``) on 127.0.0.1, serving
2026-07-28 requests over HTTP; the client sends them from this process.  Lists: every page of the
5,000 tools (100 a page), then the first page alone, one client, sequential; a principal comes from
a verifier that knows two fixed tokens (the bench measures the listing, not JWT checks), with half
the tools needing a scope only the wide token has.  Echo: 10 clients for ``--seconds``.  Figures
are medians over ``--reps`` fresh servers, the variants interleaved; then the same apps in process
(memory transport), the least CPU per request of ``2 * reps + 1`` repetitions.  See bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import trio
from client import McpHttpClient, connect_client, cpu_seconds, echo_load

if TYPE_CHECKING:
    import mcptrio

ROOT = Path(__file__).resolve().parent.parent
TOOLS = 5_000
MODERN = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
}
TOKENS = {"wide": frozenset({"mcp", "admin"}), "narrow": frozenset({"mcp"})}
# name: (serve arguments, the token the client sends)
LIST_VARIANTS = {
    "show (unfiltered)": (["--visibility", "show"], "narrow"),
    "filter, narrow token (2,500 shown)": (["--visibility", "filter"], "narrow"),
    "filter, wide token (5,000 shown)": (["--visibility", "filter"], "wide"),
    "a rule, no auth (2,500 shown)": (["--no-auth", "--rule"], None),
    "no auth, no rule": (["--no-auth"], None),
}
ECHO_VARIANTS = {
    "echo, no visibility configured": (["--no-auth", "--tools", "1"], None),
    "echo, a rule configured": (["--no-auth", "--tools", "1", "--rule"], None),
    "echo, tags excluded": (["--no-auth", "--tools", "1", "--exclude"], None),
}


# -- the server ------------------------------------------------------------------------------------


async def _spare(n: int = 0) -> str:
    return "spare"


def serve(args: argparse.Namespace) -> None:
    import mcptrio
    from mcptrio.auth import AuthConfig, Principal
    from mcptrio.transports.http import HttpConfig, serve_http

    class FixedTokens:
        async def verify(self, token: str) -> Principal:
            return Principal(token, token, TOKENS[token], None, "http://bench.invalid")

        async def aclose(self) -> None: ...

    auth = None
    if not args.no_auth:
        url = f"http://127.0.0.1:{args.port}/mcp"
        auth = AuthConfig(issuer="http://bench.invalid", public_url=url, scopes=["mcp"], verifier=FixedTokens())
    app = mcptrio.App(
        "visibility-bench",
        auth=auth,
        visibility=args.visibility,
        visible=(lambda component, request: "admin" not in component.tags) if args.rule else None,
        exclude_tags=["unused"] if args.exclude else (),
    )

    @app.tool()
    async def echo(text: str) -> str:
        return text

    app.tool("spare", tags=["unused"])(_spare)
    for n in range(args.tools - 2):
        admin = n % 2 == 0
        scopes, tags = (["admin"], ["admin"]) if admin else ([], ["everyone"])
        app.tool(f"tool_{n:04d}", description=f"Tool number {n}.", scopes=scopes, tags=tags)(_spare)
    trio.run(lambda: serve_http(app, port=args.port, config=HttpConfig(response_mode="json")))


# -- the client ------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    def __init__(self, arguments: list[str], log: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        command = [sys.executable, __file__, "serve", "--port", str(self.port), *arguments]
        self.log = log.open("w")
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=self.log, env=dict(os.environ))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"the server did not start: {log.read_text()[-2000:]}")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)
        self.log.close()


async def list_once(client: McpHttpClient, all_pages: bool) -> tuple[float, int]:
    """Seconds to list (every page, or the first), and how many tools were listed."""
    started, cursor, count = time.perf_counter(), None, 0
    while True:
        page = (await client.request("tools/list", {"cursor": cursor} if cursor else {}))["result"]
        count += len(page["tools"])
        cursor = page.get("nextCursor")
        if cursor is None or not all_pages:
            return time.perf_counter() - started, count


async def measure_lists(port: int, pid: int, token: str | None, rounds: int) -> dict[str, float]:
    """Wall time (median) and the server's CPU (mean) of listing every page, and of the first page."""
    extra = (("Authorization", f"Bearer {token}"),) if token else ()
    client = await connect_client("127.0.0.1", port, "/mcp", "modern", extra)
    await list_once(client, True)  # (warm-up)
    cpu = cpu_seconds(pid)
    walks = [await list_once(client, True) for _ in range(rounds)]
    walk_cpu, cpu = (cpu_seconds(pid) - cpu) / rounds, cpu_seconds(pid)
    firsts = [(await list_once(client, False))[0] for _ in range(rounds * 20)]
    first_cpu = (cpu_seconds(pid) - cpu) / (rounds * 20)
    client.conn.close()
    return {
        "all pages, ms": statistics.median(t for t, _ in walks) * 1000,
        "all pages, server CPU ms": walk_cpu * 1000,
        "first page, ms": statistics.median(firsts) * 1000,
        "first page, server CPU µs": first_cpu * 1e6,
        "tools listed": walks[0][1],
    }


# -- in process: CPU per request, the transport the same for every variant ----------------------------


def in_process_app(tools: int, rule: bool, exclude: bool) -> mcptrio.App:
    import mcptrio

    app = mcptrio.App(
        "visibility-bench",
        visible=(lambda component, request: "admin" not in component.tags) if rule else None,
        exclude_tags=["unused"] if exclude else (),
    )

    @app.tool()
    async def echo(text: str) -> str:
        return text

    app.tool("spare", tags=["unused"])(_spare)
    for n in range(tools - 2):
        app.tool(f"tool_{n:04d}", tags=["admin"] if n % 2 == 0 else ["everyone"])(_spare)
    return app


async def cpu_per_request(app: mcptrio.App, method: str, params: dict[str, Any], count: int) -> float:
    """Process CPU (server and client, in memory) per request, in µs."""
    from mcptrio.testing import open_client

    async with open_client(app, era="modern") as client:
        for _ in range(20):
            await client.request(method, params)
        started = time.process_time()
        for _ in range(count):
            await client.request(method, params)
        return (time.process_time() - started) / count * 1e6


IN_PROCESS = {  # name: (rule, exclude)
    "none": (False, False),
    "a rule (half hidden)": (True, False),
    "tags excluded": (False, True),
}


def run_in_process(reps: int, count: int) -> dict[str, dict[str, float]]:
    samples: dict[str, list[dict[str, float]]] = {}
    for _rep in range(reps):
        for name, (rule, exclude) in IN_PROCESS.items():
            listing = in_process_app(TOOLS, rule, exclude)
            echo = in_process_app(2, rule, exclude)
            call = {"name": "echo", "arguments": {"text": "hi"}}
            samples.setdefault(name, []).append(
                {
                    "tools/list first page, µs": trio.run(cpu_per_request, listing, "tools/list", {}, count // 10),
                    "tools/call echo, µs": trio.run(cpu_per_request, echo, "tools/call", call, count),
                }
            )
    return {name: {k: min(s[k] for s in runs) for k in runs[0]} for name, runs in samples.items()}


def run(args: argparse.Namespace) -> None:
    logs = ROOT / "bench" / "results" / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    rounds = 2 if args.smoke else 10
    seconds = 0.3 if args.smoke else args.seconds
    reps = 1 if args.smoke else args.reps
    samples: dict[str, list[dict[str, float]]] = {}
    for _rep in range(reps):
        for name, (arguments, token) in LIST_VARIANTS.items():
            server = Server([*arguments, "--tools", str(TOOLS)], logs / "visibility-server.log")
            try:
                samples.setdefault(name, []).append(
                    asyncio.run(measure_lists(server.port, server.process.pid, token, rounds))
                )
            finally:
                server.stop()
        for name, (arguments, _) in ECHO_VARIANTS.items():
            server = Server(arguments, logs / "visibility-server.log")
            try:
                rps = asyncio.run(echo_load(server.port, 10, seconds, "modern"))
                samples.setdefault(name, []).append({"calls/s": rps})
            finally:
                server.stop()
    figures = {name: {k: statistics.median(s[k] for s in runs) for k in runs[0]} for name, runs in samples.items()}
    print(
        f"| variant ({TOOLS:,} tools, 100 a page) | listed | all pages: ms | server CPU ms | first page: ms "
        "| server CPU µs |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name in LIST_VARIANTS:
        f = figures[name]
        print(
            f"| {name} | {f['tools listed']:,.0f} | {f['all pages, ms']:.0f} | {f['all pages, server CPU ms']:.0f} "
            f"| {f['first page, ms']:.2f} | {f['first page, server CPU µs']:,.0f} |"
        )
    base = figures["echo, no visibility configured"]["calls/s"]
    print("\n| echo, 10 clients | calls/s | against none |")
    print("| --- | --- | --- |")
    for name in ECHO_VARIANTS:
        rps = figures[name]["calls/s"]
        print(f"| {name} | {rps:,.0f} | {rps / base:.2f}× |")
    in_process = run_in_process(reps if args.smoke else 2 * reps + 1, 200 if args.smoke else 5000)
    columns = ["tools/list first page of 5,000, µs", "echo, µs"]
    print(
        "\n| in process, CPU per request, least of the repetitions (memory transport) | " + " | ".join(columns) + " |"
    )
    print("| --- | ---: | ---: |")
    for name, f in in_process.items():
        print(f"| {name} | {f['tools/list first page, µs']:,.0f} | {f['tools/call echo, µs']:,.0f} |")
    figures.update({f"in process: {name}": f for name, f in in_process.items()})
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(figures, indent=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command")
    server = commands.add_parser("serve")
    server.add_argument("--port", type=int, required=True)
    server.add_argument("--tools", type=int, default=TOOLS)
    server.add_argument("--visibility", default="show")
    server.add_argument("--no-auth", action="store_true")
    server.add_argument("--rule", action="store_true")
    server.add_argument("--exclude", action="store_true")
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "visibility.json")
    args = parser.parse_args()
    if args.command == "serve":
        serve(args)
    else:
        run(args)


if __name__ == "__main__":
    main()
