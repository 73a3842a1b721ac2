"""Serve the bench plugin over Streamable HTTP with a chosen ``HttpConfig.response_mode``.

The CLI does not expose response_mode yet, so this runs exactly ``mcptrio serve --plugins bench
--transport http --port N`` (the CLI's own code path, start-up included) with HttpConfig's
response_mode default swapped for the one asked for.

    python mcptrio_http.py --port N --mode auto|json|sse
"""

from __future__ import annotations

import argparse
import functools
import sys

from mcptrio import cli, network_cli
from mcptrio.transports.http import HttpConfig


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--mode", choices=("auto", "json", "sse"), default="auto")
    args = parser.parse_args()
    if args.mode != HttpConfig().response_mode:
        network_cli.HttpConfig = functools.partial(HttpConfig, response_mode=args.mode)  # type: ignore[misc]
    return cli.main(["serve", "--plugins", "bench", "--transport", "http", "--host", args.host,
                     "--port", str(args.port)])


if __name__ == "__main__":
    sys.exit(main())
