"""The one table of MCP clients ``mcptrio install`` writes to: where each keeps its configuration on each
system, the key its servers are under, and whether an entry names its transport (``"type": "stdio"``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import attrs

SYSTEMS = ("linux", "macos", "windows")


@attrs.frozen
class Client:
    """One client's configuration file: ``user`` maps a system to the path of the user's file (``~`` the
    home folder, ``%APPDATA%`` Windows' roaming folder); ``project`` is the file in a project's folder,
    when the client reads one; ``key`` holds the servers, by name; ``typed`` entries say ``"type": "stdio"``."""

    name: str
    title: str
    user: dict[str, str]
    project: str | None
    key: str = "mcpServers"
    typed: bool = False


CLIENTS: dict[str, Client] = {
    client.name: client
    for client in (
        Client(
            "claude-desktop",
            "Claude Desktop",
            {
                "linux": "~/.config/Claude/claude_desktop_config.json",
                "macos": "~/Library/Application Support/Claude/claude_desktop_config.json",
                "windows": "%APPDATA%/Claude/claude_desktop_config.json",
            },
            None,
        ),
        Client(
            "claude-code",
            "Claude Code",
            {"linux": "~/.claude.json", "macos": "~/.claude.json", "windows": "~/.claude.json"},
            ".mcp.json",
            typed=True,
        ),
        Client(
            "cursor",
            "Cursor",
            {"linux": "~/.cursor/mcp.json", "macos": "~/.cursor/mcp.json", "windows": "~/.cursor/mcp.json"},
            ".cursor/mcp.json",
        ),
        Client(
            "vscode",
            "VS Code",
            {
                "linux": "~/.config/Code/User/mcp.json",
                "macos": "~/Library/Application Support/Code/User/mcp.json",
                "windows": "%APPDATA%/Code/User/mcp.json",
            },
            ".vscode/mcp.json",
            key="servers",
            typed=True,
        ),
        Client(
            "gemini-cli",
            "Gemini CLI",
            {
                "linux": "~/.gemini/settings.json",
                "macos": "~/.gemini/settings.json",
                "windows": "~/.gemini/settings.json",
            },
            ".gemini/settings.json",
        ),
    )
}
PRINTED = "mcp-json"  # (not a file: the generic mcpServers JSON, on stdout)


def this_system() -> str:
    if sys.platform == "darwin":
        return "macos"
    return "windows" if sys.platform == "win32" else "linux"


def config_path(client: Client, *, project: bool, system: str) -> Path:
    """The file to write: the project's (in the current folder) or the user's on ``system``."""
    if project:
        assert client.project is not None
        return Path.cwd() / client.project
    template = client.user[system]
    if template.startswith("%APPDATA%/"):
        appdata = os.environ.get("APPDATA") or str(Path.home() / "AppData" / "Roaming")
        return Path(appdata, template.removeprefix("%APPDATA%/"))
    return Path.home() / template.removeprefix("~/")
