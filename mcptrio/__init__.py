"""mcptrio: write MCP servers as plugin packages of plain async functions, served with Trio."""

import functools
from typing import TYPE_CHECKING

from .app import (
    App,
    Context,
    LifespanError,
    Notification,
    OptionError,
    Param,
    PluginOptions,
    Registry,
    Request,
    ToolError,
    UserSetting,
)
from .lazy_names import lazy_names
from .protocol.errors import McpError
from .runtime.limits import SessionLimits
from .serve import serve_stdio, serve_stream, wait_for_signals

if TYPE_CHECKING:  # the names __getattr__ provides, as a type checker sees them
    from .app import content
    from .app.reshape import Fixed, FromEnv, FromPrincipal
    from .transports.http import serve_http
    from .transports.websocket import serve_websocket

    __version__: str


@functools.cache
def _version() -> str:
    """The installed distribution's version: pyproject.toml is its one source."""
    from .installed import own_version

    return own_version()


__all__ = [
    "App",
    "content",
    "Context",
    "Fixed",
    "FromEnv",
    "FromPrincipal",
    "LifespanError",
    "McpError",
    "Notification",
    "OptionError",
    "Param",
    "PluginOptions",
    "Registry",
    "UserSetting",
    "Request",
    "SessionLimits",
    "ToolError",
    "serve_http",
    "serve_stdio",
    "serve_stream",
    "serve_websocket",
    "wait_for_signals",
]


# Imported on first use, to keep start-up fast: the wire types, the reshaping sources, the HTTP
# server, trio-websocket.
_lazy = lazy_names(
    __name__,
    {
        ".app.content": ("content",),
        ".app.reshape": ("Fixed", "FromEnv", "FromPrincipal"),
        ".transports.http": ("serve_http",),
        ".transports.websocket": ("serve_websocket",),
    },
)


def __getattr__(name: str) -> object:
    if name == "__version__":  # looked up when asked for: importing mcptrio reads no metadata
        return _version()
    return _lazy(name)
