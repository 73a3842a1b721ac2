"""mcptrio-everything: the server fixture of the MCP conformance suite, as one mcptrio plugin.

It provides every tool, resource, resource template and prompt the server scenarios of
``@modelcontextprotocol/conformance`` 0.2.0-alpha.12 call, under the names and with the payloads
they assert, for both 2025-11-25 (initialize handshake) and 2026-07-28 (stateless, multi
round-trip). ``SCENARIOS.md`` next to this package maps each scenario to its fixtures.

    mcptrio serve --plugins everything --transport http
"""

from __future__ import annotations

# Registration order is listing order: tools first, as the suite calls the first listed tool.
from . import diagnostics, input_required, prompts, resources, tasks, tools  # noqa: F401
from .registry import plugin

__all__ = ["plugin"]
