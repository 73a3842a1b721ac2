"""A Trio-native MCP client, for programs that use MCP servers (and for mcptrio's own tests).

    async with mcptrio.client.connect("http://127.0.0.1:8000/mcp") as client:
        tools = await client.list_tools()
        result = await client.call_tool("echo", {"text": "hi"})

``mcptrio.client.raw`` is the message-level client underneath (dicts in and out, frames by
hand), which ``mcptrio.testing`` hands to protocol tests.
"""

from ..protocol.errors import McpError
from .connect import connect
from .group import ClientGroup, connect_all
from .servers_file import ServerEntry, read_servers
from .session import Client

__all__ = ["Client", "ClientGroup", "McpError", "ServerEntry", "connect", "connect_all", "read_servers"]
