"""A server in a real subprocess over stdio, with the raw client: ``mcptrio.client.process``."""

from ..client.process import ProcessEnd, open_process_client

__all__ = ["ProcessEnd", "open_process_client"]
