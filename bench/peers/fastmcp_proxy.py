"""FastMCP's own proxy (``fastmcp.server.create_proxy``, FastMCP 4.2.3) in front of one upstream, as its
users run it: the peer the gateway bench compares mcptrio's gateway with.

The upstream is a URL (Streamable HTTP) or a command line run over stdio with this process's
environment; FastMCP's defaults are kept (its proxy's session handling is what is measured),
except that it logs warnings only and shows no banner.

    python fastmcp_proxy.py [--transport stdio] -- COMMAND [ARG ...]
    python fastmcp_proxy.py --transport http --port N -- http://127.0.0.1:M/mcp
"""

from __future__ import annotations

import argparse
import os

from fastmcp.client.transports import StdioTransport
from fastmcp.server import create_proxy
from fastmcp.utilities.logging import configure_logging


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("upstream", nargs=argparse.REMAINDER, help="a URL, or a command line (after --)")
    args = parser.parse_args()
    if args.upstream[:1] == ["--"]:
        args.upstream = args.upstream[1:]
    if not args.upstream:
        parser.error("the upstream is missing: a URL, or a command line after --")
    if args.upstream[0].startswith(("http://", "https://")) and len(args.upstream) > 1:
        parser.error("an upstream URL takes no arguments")
    return args


def main() -> None:
    args = parse()
    # Warnings only, as the other servers of the bench log (no line per session or request).
    configure_logging("WARNING")
    first, *rest = args.upstream
    if first.startswith(("http://", "https://")):
        proxy = create_proxy(first, name="fastmcp-proxy")
    else:
        proxy = create_proxy(StdioTransport(first, rest, env=dict(os.environ)), name="fastmcp-proxy")
    if args.transport == "stdio":
        proxy.run("stdio", show_banner=False)
    else:
        proxy.run("http", show_banner=False, host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
