"""Serve the runtime test app over this process's stdio: ``python -m tests.runtime.stdio_server``."""

import sys

import trio

import mcptrio
from mcptrio import SessionLimits

from .apps import build_app

if __name__ == "__main__":
    grace = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    app = build_app(limits=SessionLimits(shutdown_grace=grace, max_message_size=64 * 1024))
    trio.run(lambda: mcptrio.serve_stdio(app, shutdown_trigger=mcptrio.wait_for_signals))
