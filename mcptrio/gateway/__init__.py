"""The gateway: other MCP servers (``Upstream``) served by an mcptrio app beside its own plugins.

``app.proxy(Upstream("everything", command=("npx", "-y", "@modelcontextprotocol/server-everything")))``
in code; ``[serve.upstreams.NAME]``, ``--upstream NAME=COMMAND-OR-URL`` or ``--upstreams mcp.json`` for
``mcptrio serve``.  How a session is kept and what is forwarded: ``link.py`` and ``calls.py``.
"""

from .link import Link, UpstreamUnavailable, links_of
from .upstream import Upstream

__all__ = ["Link", "Upstream", "UpstreamUnavailable", "links_of"]
