"""Streamable HTTP on hypercorn's Trio worker: both protocol eras on one endpoint."""

from .asgi import McpHttpApp
from .config import HttpConfig
from .server import serve_http

__all__ = ["HttpConfig", "McpHttpApp", "serve_http"]
