"""The raw client tests use (dicts in, dicts out, frames by hand): ``mcptrio.client.raw``."""

from ..client.raw import CLIENT_INFO, RawClient, ServerRequestHandler

__all__ = ["CLIENT_INFO", "RawClient", "ServerRequestHandler"]
