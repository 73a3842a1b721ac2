"""What the bundle tests share: the official MCPB CLI, a bundle unpacked and checked as a client
installs it, and its manifest's ``mcp_config`` run as a client runs it."""

import json
import re
import subprocess
import zipfile
from pathlib import Path

import pytest

import mcptrio.client

from ..peers.servers import node

HERE = Path(__file__).resolve().parent
MCPB = HERE / "node_modules" / "@anthropic-ai" / "mcpb" / "dist" / "cli" / "cli.js"


def mcpb(*args: str) -> subprocess.CompletedProcess[str]:
    if not MCPB.exists():
        pytest.fail(f"{MCPB} is missing: run `bash scripts/dev.sh test`, which installs tests/distribution")
    return subprocess.run([node(), str(MCPB), *args], capture_output=True, text=True, timeout=60)


def installed(bundle: Path, into: Path) -> dict:
    """``bundle`` unpacked into the empty folder ``into`` (as a client installs it), checked there by the
    official ``mcpb validate`` and read by ``mcpb info``: its manifest."""
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(into)
    validated = mcpb("validate", str(into))
    assert validated.returncode == 0, f"{bundle.name}: {validated.stdout}"
    assert "Manifest schema validation passes!" in validated.stdout
    info = mcpb("info", str(bundle))
    assert info.returncode == 0 and f"File: {bundle.name}" in info.stdout, info.stdout + info.stderr
    return json.loads((into / "manifest.json").read_text(encoding="utf-8"))


def substituted(value: str, dirname: Path, user_config: dict[str, str]) -> str:
    """A manifest string as a client makes it: ``${__dirname}`` and ``${user_config.KEY}`` replaced."""
    value = value.replace("${__dirname}", str(dirname))
    value = re.sub(r"\$\{user_config\.([A-Za-z0-9_]+)\}", lambda m: user_config[m.group(1)], value)
    assert "${" not in value, value
    return value


def client_command(manifest: dict, dirname: Path, user_config: dict[str, str], python: Path):
    """The manifest's mcp_config as a client runs it: ``python`` is the one it finds (a bare one here)."""
    config = manifest["server"]["mcp_config"]
    assert config["command"] == "python"
    argv = [str(python), *(substituted(arg, dirname, user_config) for arg in config.get("args", []))]
    env = {key: substituted(value, dirname, user_config) for key, value in config.get("env", {}).items()}
    env["PYTHONPATH"] = ""  # (nothing of this environment's)
    return argv, env


async def call(argv: list[str], env: dict[str, str], cwd: Path, tool: str, arguments: dict) -> tuple[str, bool]:
    """Initialize over stdio, call one tool; its text and whether it is an error."""
    async with mcptrio.client.connect(argv, env=env, cwd=str(cwd)) as client:
        assert client.server_info.name
        result = await client.call_tool(tool, arguments)
    return "".join(getattr(part, "text", "") for part in result.content), bool(result.is_error)
