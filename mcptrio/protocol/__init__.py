"""Sans-I/O MCP protocol core: no Trio, no sockets; events in, events and messages out."""

from .errors import McpError
from .events import BatchReply, Cancel, ClientReply, Dispatch, IncomingRequest, Notified, Send
from .session import LOG_LEVELS, ServerIdentity, ServerProtocol, error_message

__all__ = [
    "BatchReply",
    "Cancel",
    "ClientReply",
    "Dispatch",
    "IncomingRequest",
    "LOG_LEVELS",
    "McpError",
    "Notified",
    "Send",
    "ServerIdentity",
    "ServerProtocol",
    "error_message",
]
