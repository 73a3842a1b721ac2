"""Headers for the API that depend on the MCP caller, set by a middleware around each request.

The plugin never forwards the caller's own token (the MCP specification forbids passing it
through).  A server whose callers each need their own credential for the API sets it here, from
what it knows of the caller (its principal, a vault, an exchange of tokens)::

    @app.use
    async def per_caller(request, call_next):
        with upstream_headers({"Authorization": f"Bearer {lookup(request.context.principal)}"}):
            return await call_next(request)

Within the block, every call the plugin makes carries these headers, over the configured ones.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator, Mapping
from types import MappingProxyType

CALLER_HEADERS: contextvars.ContextVar[Mapping[str, str]] = contextvars.ContextVar(
    "openapi_caller_headers", default=MappingProxyType({})
)


@contextlib.contextmanager
def upstream_headers(headers: Mapping[str, str]) -> Iterator[None]:
    """Send ``headers`` with the API calls made inside the block (by this task and those it starts)."""
    token = CALLER_HEADERS.set({**CALLER_HEADERS.get(), **headers})
    try:
        yield
    finally:
        CALLER_HEADERS.reset(token)
