"""A server written as a script, run in a process of its own and spoken to over its stdio."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import trio

from mcptrio.client import Client, connect


@contextlib.asynccontextmanager
async def served_script(folder: Path, source: str, seconds: float = 20) -> AsyncIterator[Client]:
    """Write ``source`` (a program ending in ``trio.run(serve_stdio, app)``) to ``folder``, start it,
    and yield a client connected to it; all of it within ``seconds``."""
    script = folder / "served.py"
    script.write_text(source)
    with trio.fail_after(seconds):
        async with connect([sys.executable, str(script)]) as client:
            yield client
