"""mcptrio: write MCP servers as plugin packages of plain async functions, served with Trio."""

from .app import App
from .context import Context
from .methods import ToolError
from .protocol.errors import McpError
from .registry import Registry
from .runtime.limits import SessionLimits
from .serve import serve_stdio, serve_stream, wait_for_signals

__version__ = "0.1.0"

__all__ = ["App", "content", "Context", "McpError", "Registry", "SessionLimits", "ToolError", "serve_stdio",
           "serve_stream", "wait_for_signals"]


def __getattr__(name: str) -> object:
    # ``mcptrio.content`` pulls in the wire types: imported on first use, to keep start-up fast.
    if name == "content":
        import importlib

        return importlib.import_module(".content", __name__)
    raise AttributeError(f"module 'mcptrio' has no attribute {name!r}")
