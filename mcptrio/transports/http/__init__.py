"""Streamable HTTP: both protocol eras on one endpoint, an ASGI app on mcptrio's HTTP/1.1 server."""

from .asgi import McpHttpApp
from ..net.config import HttpConfig
from .server import serve_http

__all__ = ["HttpConfig", "McpHttpApp", "serve_http"]
