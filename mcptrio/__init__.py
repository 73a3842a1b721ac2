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


_LAZY = {
    # Imported on first use, to keep start-up fast: the wire types, the reshaping sources, the HTTP
    # server, trio-websocket.
    "content": (".app.content", None),
    "Fixed": (".app.reshape", "Fixed"),
    "FromEnv": (".app.reshape", "FromEnv"),
    "FromPrincipal": (".app.reshape", "FromPrincipal"),
    "serve_http": (".transports.http", "serve_http"),
    "serve_websocket": (".transports.websocket", "serve_websocket"),
}


def __getattr__(name: str) -> object:
    if name == "__version__":  # looked up when asked for: importing mcptrio reads no metadata
        return _version()
    if name not in _LAZY:
        raise AttributeError(f"module 'mcptrio' has no attribute {name!r}")
    import importlib

    module_name, attribute = _LAZY[name]
    module = importlib.import_module(module_name, __name__)
    return module if attribute is None else getattr(module, attribute)
