"""What a plugin sets up before the server answers its first request, and takes down after its last.

A lifespan is an async generator function of the ``App``, registered with ``@plugin.lifespan``::

    @plugin.lifespan
    async def database(app):
        async with open_pool(DSN) as pool:    # set up before serving
            app.state["db"] = pool            # handlers read ctx.app.state["db"]
            yield                             # serving
        # taken down after the last request, once the server has drained

Every ``serve_*`` function (and the in-process clients of ``mcptrio.client`` and
``mcptrio.testing``) runs the app's lifespans around what it serves, in the order the plugins were
included, and ends them in reverse order.  One that fails to start stops the server before it
serves: ``LifespanError`` names it.  An app served on several transports at once runs them once
per ``serve_*`` call that starts first; wrap the calls in ``async with app.running():`` to run
them once around all of them.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import AsyncIterator, Callable
from typing import Any

Lifespan = Callable[[Any], AsyncIterator[None]]  # called with the App (not imported here: app.py imports this)


class LifespanError(Exception):
    """A plugin's lifespan failed before the server could serve (one line for the user)."""


def check(fn: Any) -> None:
    if not inspect.isasyncgenfunction(fn):
        raise TypeError(
            f"lifespan {getattr(fn, '__qualname__', fn)!r} must be an async generator function "
            "(async def with one yield)"
        )


@contextlib.asynccontextmanager
async def run(app: object, lifespans: list[Lifespan]) -> AsyncIterator[None]:
    """Enter every lifespan in order; leave them in reverse order when the block ends."""
    async with contextlib.AsyncExitStack() as stack:
        for fn in lifespans:
            try:
                await stack.enter_async_context(contextlib.asynccontextmanager(fn)(app))
            except Exception as exc:
                raise LifespanError(
                    f"the lifespan {fn.__qualname__} of a plugin failed to start: {type(exc).__name__}: {exc}"
                ) from exc
        yield
