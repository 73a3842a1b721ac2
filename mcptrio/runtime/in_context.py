"""Run a coroutine inside a ``contextvars.Context`` of its own, from a task that has another.

A pooled worker (``worker.Dispatcher``) serves many requests in one Trio task; each request must
still see the context variables of the task that read it, and nothing a handler sets may leak
into the next request, exactly as when every request had a task of its own.  Each step of the
coroutine runs in the request's context; what it yields to Trio passes through unchanged.
"""

from __future__ import annotations

import types
from collections.abc import Awaitable, Callable, Coroutine, Generator
from contextvars import Context
from typing import Any


@types.coroutine
def run_in_context(
    context: Context, coro: Coroutine[Any, Any, Any] | Awaitable[Any], on_suspend: Callable[[], None] | None = None
) -> Generator[Any, Any, Any]:
    """``await run_in_context(ctx, coro)`` is ``await coro`` with every step run in ``ctx``;
    ``on_suspend`` is called once, the first time the coroutine yields to the scheduler."""
    # an awaitable that is not a coroutine: step its iterator
    steps: Any = coro if hasattr(coro, "send") else coro.__await__()
    try:
        message = context.run(steps.send, None)
    except StopIteration as done:
        return done.value
    if on_suspend is not None:
        on_suspend()
    while True:
        try:
            value = yield message
        except BaseException as exc:  # thrown in by Trio (or closed): into the coroutine, in its context
            step, argument = steps.throw, exc
        else:
            step, argument = steps.send, value
        try:
            message = context.run(step, argument)
        except StopIteration as done:
            return done.value
