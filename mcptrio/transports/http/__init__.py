"""Streamable HTTP: both protocol eras on one endpoint, an ASGI app on mcptrio's HTTP/1.1 server or hypercorn."""

from .asgi import McpHttpApp
from ..net.config import HttpConfig
from .serving import HTTP_SERVERS, serve_http
from .server.tls import TlsError, TlsSettings

__all__ = ["HTTP_SERVERS", "HttpConfig", "McpHttpApp", "TlsError", "TlsSettings", "serve_http"]
