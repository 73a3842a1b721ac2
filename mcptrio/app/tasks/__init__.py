"""Tasks: long-running tool calls the client polls for (2026-07-28 extension and 2025-11-25 experimental)."""
