"""Embed an MCP server in your own Trio program: serve an App over stdio next to your own tasks.

Here the program's own work is a ticker that counts up once per interval.  The count is the
resource ``counter://ticks``; after each tick the ticker calls ``app.notify_resource_updated`` so
that clients subscribed to it hear about the change.  The program runs until its client closes
stdin, or until SIGTERM/SIGINT, then drains the server, stops the ticker and exits 0.

    python examples/embedding/embedded_server.py [--interval SECONDS]
"""

from __future__ import annotations

import argparse
import functools
import json
import sys

import trio

import mcptrio

COUNTER_URI = "counter://ticks"

app = mcptrio.App("embedded-counter", "1.0", instructions="A counter that ticks; subscribe to counter://ticks.")
state = {"ticks": 0}


@app.resource(COUNTER_URI, name="ticks", mime_type="application/json")
async def ticks() -> str:
    """How many times the ticker has ticked."""
    return json.dumps({"ticks": state["ticks"]})


@app.tool(annotations={"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True, "openWorldHint": False})
async def reset_counter() -> str:
    """Set the counter back to zero."""
    state["ticks"] = 0
    await app.notify_resource_updated(COUNTER_URI)
    return "counter reset"


async def ticker(interval: float) -> None:
    """The program's own background work: it knows nothing about MCP except one notify call."""
    while True:
        await trio.sleep(interval)
        state["ticks"] += 1
        await app.notify_resource_updated(COUNTER_URI)


async def main(interval: float) -> None:
    async with trio.open_nursery() as program:
        program.start_soon(ticker, interval)
        async with trio.open_nursery() as server:
            # Nursery.start passes no keyword arguments, hence the partial.  It returns once the
            # server is serving; serve_stdio itself returns when stdin closes or the trigger fires.
            await server.start(functools.partial(mcptrio.serve_stdio, app, shutdown_trigger=mcptrio.wait_for_signals))
            print(f"embedded_server: serving on stdio, ticking every {interval:g} s", file=sys.stderr)
        program.cancel_scope.cancel()  # the server is done: stop the ticker too


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--interval", type=float, default=1.0, help="seconds between ticks (default 1)")
    trio.run(main, parser.parse_args().interval)
