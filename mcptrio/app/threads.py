"""Plain ``def`` handlers, run in a worker thread so that blocking code never stalls the server.

A registered function that is not async is wrapped, once at registration, in an async handler
that runs it with ``trio.to_thread.run_sync`` under the serving App's thread limiter (async
handlers are left as they are: their calls pay nothing for this).  ``abandon_on_cancel=True``: a
cancelled call ends at once; the thread runs on to its end and its result is dropped.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import trio

if TYPE_CHECKING:
    from .context import Context

__all__ = ["CONTEXT_KEYWORD", "as_async", "check_handler", "is_async"]

# The keyword a wrapped handler takes its Context by when the function declares none.
CONTEXT_KEYWORD = "_mcptrio_context"


def is_async(fn: Callable[..., Any]) -> bool:
    """True for an async function (or a callable object whose ``__call__`` is one, or a plain
    function that only wraps one, as some decorators write them): calling it returns an awaitable."""
    return (
        inspect.iscoroutinefunction(fn)
        or inspect.iscoroutinefunction(getattr(fn, "__call__", None))  # noqa: B004 - an object with an async __call__
        or inspect.iscoroutinefunction(inspect.unwrap(fn))
    )


def check_handler(fn: Callable[..., Any], what: str) -> None:
    """``TypeError`` unless ``fn`` is a function a handler can be made of."""
    if not callable(fn):
        raise TypeError(f"{what} must be a function, not {fn!r}")
    if inspect.isasyncgenfunction(fn) or inspect.isgeneratorfunction(fn):
        name = getattr(fn, "__qualname__", repr(fn))
        raise TypeError(f"{what} {name} is a generator function: a handler returns its result")


def as_async(
    fn: Callable[..., Any], what: str, context_parameter: str | None
) -> tuple[Callable[..., Awaitable[Any]], str | None]:
    """``fn`` as an async handler, and the keyword its Context is passed by: an async ``fn`` as
    it is; a plain one wrapped to run in a worker thread (``CONTEXT_KEYWORD`` when ``fn`` does
    not take the Context itself: the wrapper needs it for the App's thread limiter)."""
    check_handler(fn, what)
    if is_async(fn):
        return fn, context_parameter
    if context_parameter is None:

        @functools.wraps(fn)
        async def run_without_context(*args: Any, **kwargs: Any) -> Any:
            ctx = kwargs.pop(CONTEXT_KEYWORD)
            return await trio.to_thread.run_sync(
                functools.partial(fn, *args, **kwargs), abandon_on_cancel=True, limiter=_limiter(ctx)
            )

        return run_without_context, CONTEXT_KEYWORD
    keyword = context_parameter

    @functools.wraps(fn)
    async def run(*args: Any, **kwargs: Any) -> Any:
        return await trio.to_thread.run_sync(
            functools.partial(fn, *args, **kwargs), abandon_on_cancel=True, limiter=_limiter(kwargs[keyword])
        )

    return run, context_parameter


def _limiter(ctx: Context) -> trio.CapacityLimiter | None:
    """The serving App's limiter (None, Trio's default one, for an app that has none)."""
    limiter: trio.CapacityLimiter | None = getattr(ctx.app, "thread_limiter", None)
    return limiter
