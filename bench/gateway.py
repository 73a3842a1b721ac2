"""The gateway, measured: echo through ``mcptrio serve --upstream`` against the same upstream served
directly, with a stdio and an HTTP upstream, and (where it is installed) FastMCP's proxy in front
of the same stdio upstream, in the same run.

    .venv/bin/python bench/gateway.py            # a few minutes on 2 cores
    .venv/bin/python bench/gateway.py --smoke    # every figure once, in seconds

Every server is a process of its own on 127.0.0.1 serving Streamable HTTP; the upstream is
``mcptrio serve --plugins bench`` (its ``echo`` tool), as a stdio child of the gateway or as an HTTP
server of its own.  The clients speak the handshake era (FastMCP's proxy speaks no other) from this
process, one keep-alive connection each: latency is one client sending one call at a time (p50 and
p99 over ``--calls`` calls, and the CPU every process serving it used per call meanwhile: the gateway
and its upstream); throughput is 10 clients, then 100 concurrent callers, for
``--seconds``.  Figures are medians over ``--reps`` fresh servers, the variants interleaved.  See
bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from client import connect_client, echo_load, free_port
from measure import machine_cpu, own_cpu, tree_cpu

ROOT = Path(__file__).resolve().parent.parent
SERVE = [sys.executable, "-m", "mcptrio.cli", "serve"]
UPSTREAM = [*SERVE, "--plugins", "bench", "--quiet", "--log-level", "warning"]
QUIET = ["--quiet", "--log-level", "warning"]
FASTMCP_PROXY = ROOT / "bench" / "peers" / "fastmcp_proxy.py"
WARM_UP = 50  # calls before the timed ones (the servers' CPU counts them too)


def fastmcp_python() -> str | None:
    """The interpreter FastMCP is installed in, if it is: its own venv, or this one."""
    for candidate in (ROOT / ".venv-peers" / "bin" / "python", Path(sys.executable)):
        if candidate.exists() and FASTMCP_PROXY.exists():
            found = subprocess.run([str(candidate), "-c", "import fastmcp"], capture_output=True)
            if found.returncode == 0:
                return str(candidate)
    return None


class Served:
    """The processes of one variant, and the URL its clients call."""

    def __init__(self, variant: str, folder: Path) -> None:
        self.processes: list[subprocess.Popen[bytes]] = []
        self.log = (folder / f"{variant.replace(' ', '_').replace('/', '_')}.log").open("w")
        port = free_port()
        self.url_port = port
        if variant == "direct":
            self.start([*UPSTREAM, "--transport", "http", "--port", str(port)])
        elif variant == "gateway, stdio upstream":
            config = folder / "stdio.toml"
            config.write_text(
                f'[serve.upstreams.bench]\nnamespace = ""\nrequired = true\ncommand = {json.dumps(UPSTREAM[0])}\n'
                f"args = {json.dumps(UPSTREAM[1:])}\n"
            )
            self.start([*SERVE, "--config", str(config), "--transport", "http", "--port", str(port), *QUIET])
        elif variant == "gateway, HTTP upstream":
            upstream = free_port()
            self.start([*UPSTREAM, "--transport", "http", "--port", str(upstream)])
            self.wait(upstream)
            config = folder / "http.toml"
            config.write_text(
                f'[serve.upstreams.bench]\nnamespace = ""\nrequired = true\nurl = "http://127.0.0.1:{upstream}/mcp"\n'
            )
            self.start([*SERVE, "--config", str(config), "--transport", "http", "--port", str(port), *QUIET])
        elif variant == "FastMCP proxy, stdio upstream":
            python = fastmcp_python()
            assert python is not None
            env = dict(os.environ, FASTMCP_SHOW_SERVER_BANNER="false", FASTMCP_LOG_LEVEL="WARNING")
            self.start(
                [python, str(FASTMCP_PROXY), "--transport", "http", "--port", str(port), "--", *UPSTREAM], env=env
            )
        else:
            raise ValueError(variant)
        self.wait(port)

    def start(self, command: list[str], env: dict[str, str] | None = None) -> None:
        self.processes.append(
            subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=self.log, env=env or dict(os.environ))
        )

    def wait(self, port: int) -> None:
        """Until the endpoint lists the echo tool (a gateway: its upstream is up)."""

        async def listed() -> bool:
            try:
                client = await connect_client("127.0.0.1", port, "/mcp", "legacy")
            except (OSError, Exception):
                return False
            try:
                answer = await client.request("tools/list", {})
                return any(tool["name"] == "echo" for tool in answer.get("result", {}).get("tools", []))
            finally:
                client.conn.close()

        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if any(process.poll() is not None for process in self.processes):
                raise RuntimeError(f"a server exited: see {self.log.name}")
            if asyncio.run(listed()):
                return
            time.sleep(0.1)
        raise RuntimeError(f"nothing answered on port {port}: see {self.log.name}")

    def stop(self) -> None:
        for process in reversed(self.processes):
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
        self.log.close()


async def latencies(port: int, calls: int) -> list[float]:
    client = await connect_client("127.0.0.1", port, "/mcp", "legacy")
    out = []
    for n in range(calls + WARM_UP):
        started = time.perf_counter()
        if await client.call("echo", {"text": f"hi {n}"}) != f"hi {n}":
            raise RuntimeError("a wrong echo")
        if n >= WARM_UP:
            out.append(time.perf_counter() - started)
    client.conn.close()
    return out


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def measure(variant: str, folder: Path, calls: int, seconds: float) -> dict[str, float]:
    served = Served(variant, folder)
    try:
        port = served.url_port
        pids = [process.pid for process in served.processes]
        cpu0 = tree_cpu(pids)
        times = asyncio.run(latencies(port, calls))
        cpu = tree_cpu(pids) - cpu0
        return {
            "p50 µs": percentile(times, 0.5) * 1e6,
            "p99 µs": percentile(times, 0.99) * 1e6,
            "server CPU µs per call, 1 client": cpu / (calls + WARM_UP) * 1e6,
            "calls/s, 10 clients": asyncio.run(echo_load(port, 10, seconds, "legacy")),
            "calls/s, 100 callers": asyncio.run(echo_load(port, 100, seconds, "legacy")),
        }
    finally:
        served.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--smoke", action="store_true", help="every figure once, quickly")
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = parser.parse_args()
    if args.smoke:
        args.reps, args.calls, args.seconds = 1, 100, 0.3
    variants = ["direct", "gateway, stdio upstream", "gateway, HTTP upstream"]
    if fastmcp_python() is not None:
        variants.append("FastMCP proxy, stdio upstream")
    else:
        print("FastMCP is not installed: its proxy is left out")
    runs: dict[str, list[dict[str, float]]] = {variant: [] for variant in variants}
    busy0, own0, wall0 = machine_cpu()[0], own_cpu(), time.monotonic()
    folder = Path(tempfile.mkdtemp(prefix="bench-gateway-"))
    try:
        for _ in range(args.reps):
            for variant in variants:
                runs[variant].append(measure(variant, folder, args.calls, args.seconds))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    wall = time.monotonic() - wall0
    foreign = max(0.0, (machine_cpu()[0] - busy0) - (own_cpu() - own0))  # (the servers are reaped: their CPU is own)
    figures = {
        variant: {key: statistics.median(run[key] for run in found) for key in found[0]}
        for variant, found in runs.items()
    }
    direct = figures["direct"]
    for found in figures.values():
        found["added p50 µs"] = found["p50 µs"] - direct["p50 µs"]
        found["added p99 µs"] = found["p99 µs"] - direct["p99 µs"]
        found["added CPU µs per call, 1 client"] = (
            found["server CPU µs per call, 1 client"] - direct["server CPU µs per call, 1 client"]
        )
        found["throughput vs direct, 10 clients"] = found["calls/s, 10 clients"] / direct["calls/s, 10 clients"]
    print(
        "| variant | p50 µs | p99 µs | added p50 µs | added p99 µs | server CPU µs per call, 1 client "
        "| added CPU µs per call | calls/s, 10 clients | vs direct | calls/s, 100 callers |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for variant, found in figures.items():
        print(
            f"| {variant} | {found['p50 µs']:,.0f} | {found['p99 µs']:,.0f} | {found['added p50 µs']:,.0f} | "
            f"{found['added p99 µs']:,.0f} | {found['server CPU µs per call, 1 client']:,.0f} | "
            f"{found['added CPU µs per call, 1 client']:,.0f} | "
            f"{found['calls/s, 10 clients']:,.0f} | "
            f"{found['throughput vs direct, 10 clients']:.2f}× | {found['calls/s, 100 callers']:,.0f} |"
        )
    loadavg = open("/proc/loadavg").read().split()[:3]
    print(
        f"other processes used {foreign:.0f} CPU-s in {wall:.0f} s ({foreign / wall:.2f} cores on average, of "
        f"{os.cpu_count()}); load average at the end {' '.join(loadavg)}"
    )
    if args.out is not None:
        load = {"foreign_cpu_s": foreign, "wall_s": wall, "foreign_cores": foreign / wall}
        args.out.write_text(json.dumps({**figures, "load": load}, indent=2))


if __name__ == "__main__":
    main()
