"""Streamable HTTP: both protocol eras on one endpoint, an ASGI app on mcptrio's HTTP/1.1 server or hypercorn."""

from typing import TYPE_CHECKING

from ...lazy_names import lazy_names
from ..net.config import HttpConfig
from .asgi import McpHttpApp
from .serving import HTTP_SERVERS, serve_http

if TYPE_CHECKING:  # the names __getattr__ provides, as a type checker sees them
    from .server.tls import TlsError, TlsSettings

__all__ = ["HTTP_SERVERS", "HttpConfig", "McpHttpApp", "TlsError", "TlsSettings", "serve_http"]


# TLS's settings are imported when first named: a plain-HTTP server starts without them.
__getattr__ = lazy_names(__name__, {".server.tls": ("TlsError", "TlsSettings")})
