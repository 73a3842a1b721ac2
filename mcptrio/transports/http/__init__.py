"""Streamable HTTP: both protocol eras on one endpoint, an ASGI app on mcptrio's HTTP/1.1 server or hypercorn."""

from ..net.config import HttpConfig
from .asgi import McpHttpApp
from .server.tls import TlsError, TlsSettings
from .serving import HTTP_SERVERS, serve_http

__all__ = ["HTTP_SERVERS", "HttpConfig", "McpHttpApp", "TlsError", "TlsSettings", "serve_http"]
