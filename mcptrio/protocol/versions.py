"""Protocol revisions this server speaks, by era, and how a legacy handshake picks one."""

from __future__ import annotations

LEGACY_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")  # newest first
MODERN_VERSIONS = ("2026-07-28",)
SUPPORTED_VERSIONS = MODERN_VERSIONS + LEGACY_VERSIONS
LATEST_LEGACY = LEGACY_VERSIONS[0]
LATEST_MODERN = MODERN_VERSIONS[0]

# The one legacy revision that allows JSON-RPC batches (added in 2025-03-26, removed in 2025-06-18).
BATCH_VERSIONS = frozenset({"2025-03-26"})


def negotiate_legacy(requested: object) -> str:
    """Answer with the client's version when we speak it, else with the newest legacy one."""
    if isinstance(requested, str) and requested in LEGACY_VERSIONS:
        return requested
    return LATEST_LEGACY


def at_least(version: str, floor: str) -> bool:
    """Revisions are dates, so string order is release order."""
    return version >= floor
