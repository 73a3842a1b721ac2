"""``mcptrio install`` as a user runs it, against a temporary home folder: each client's file at the path
its documentation gives, in the shape its documentation describes (the JSON Schemas below are written
from those pages), merged, backed up, private when it holds secrets; and the command it writes, run as a
client runs it, answers ``initialize``."""

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from . import INITIALIZE

MCPTRIO = [sys.executable, "-m", "mcptrio.cli"]
SERVE = ["-m", "mcptrio", "serve", "--plugins", "everything"]

STRINGS = {"type": "array", "items": {"type": "string"}}
ENV = {"type": "object", "additionalProperties": {"type": "string"}}
COMMAND_FIELDS = {"command": {"type": "string", "minLength": 1}, "args": STRINGS, "env": ENV}


def servers_schema(key: str, fields: dict, required: list[str]) -> dict:
    entry = {"type": "object", "properties": fields, "required": required, "additionalProperties": False}
    return {
        "type": "object",
        "properties": {key: {"type": "object", "additionalProperties": entry}},
        "required": [key],
    }


# Each client's documented file: where it is (relative to the home folder) on Linux and macOS, and
# what a local (stdio) server entry may hold.
DOCUMENTED = {
    # modelcontextprotocol.io "Connect to local MCP servers": command, args, env under mcpServers
    "claude-desktop": (
        {
            "linux": ".config/Claude/claude_desktop_config.json",
            "macos": "Library/Application Support/Claude/claude_desktop_config.json",
        },
        servers_schema("mcpServers", COMMAND_FIELDS, ["command"]),
    ),
    # docs.anthropic.com Claude Code MCP: user scope in ~/.claude.json, "type": "stdio"
    "claude-code": (
        {"linux": ".claude.json", "macos": ".claude.json"},
        servers_schema("mcpServers", {"type": {"const": "stdio"}, **COMMAND_FIELDS}, ["command"]),
    ),
    # cursor.com/docs/mcp: ~/.cursor/mcp.json, command/args/env (and envFile) under mcpServers
    "cursor": (
        {"linux": ".cursor/mcp.json", "macos": ".cursor/mcp.json"},
        servers_schema(
            "mcpServers", {"type": {"const": "stdio"}, "envFile": {"type": "string"}, **COMMAND_FIELDS}, ["command"]
        ),
    ),
    # code.visualstudio.com MCP configuration reference: "servers", "type" required
    "vscode": (
        {
            "linux": ".config/Code/User/mcp.json",
            "macos": "Library/Application Support/Code/User/mcp.json",
        },
        servers_schema(
            "servers",
            {"type": {"enum": ["stdio"]}, "envFile": {"type": "string"}, **COMMAND_FIELDS},
            ["type", "command"],
        ),
    ),
    # geminicli.com MCP servers: ~/.gemini/settings.json mcpServers, command/args/env/cwd/timeout/trust
    "gemini-cli": (
        {"linux": ".gemini/settings.json", "macos": ".gemini/settings.json"},
        servers_schema(
            "mcpServers",
            {
                **COMMAND_FIELDS,
                "cwd": {"type": "string"},
                "timeout": {"type": "number"},
                "trust": {"type": "boolean"},
                "includeTools": STRINGS,
                "excludeTools": STRINGS,
            },
            ["command"],
        ),
    ),
}


def install(home: Path, *words: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, HOME=str(home))
    return subprocess.run([*MCPTRIO, "install", *words], capture_output=True, text=True, env=env, cwd=cwd, timeout=60)


def one_line_error(result: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("mcptrio: error: "), result.stderr
    for fragment in fragments:
        assert fragment in result.stderr


@pytest.mark.parametrize("system", ["linux", "macos"])
@pytest.mark.parametrize("client", list(DOCUMENTED))
def test_each_client_gets_its_own_file_in_its_own_format(tmp_path, client, system):
    paths, schema = DOCUMENTED[client]
    result = install(tmp_path, client, "--plugins", "everything", "--system", system)
    assert result.returncode == 0, result.stderr
    path = tmp_path / paths[system]
    assert str(path) in result.stdout
    config = json.loads(path.read_text())
    jsonschema.validate(config, schema)
    (entry,) = config["servers" if client == "vscode" else "mcpServers"].values()
    assert entry["command"] == os.path.abspath(sys.executable) and os.path.isabs(entry["command"])
    assert entry["args"] == SERVE
    assert [p.name for p in tmp_path.rglob("*.bak")] == []  # (nothing was there to keep)


def test_merged_into_an_existing_file_with_a_backup(tmp_path):
    path = tmp_path / ".gemini" / "settings.json"
    path.parent.mkdir()
    original = {
        "general": {"vimMode": True},
        "mcpServers": {"other": {"command": "/usr/bin/other", "args": ["x"], "trust": True}},
        "ui": {"theme": "GitHub"},
    }
    path.write_text(json.dumps(original))
    before = path.read_bytes()
    result = install(tmp_path, "gemini-cli", "--plugins", "everything", "--name", "tools")
    assert result.returncode == 0, result.stderr
    config = json.loads(path.read_text())
    jsonschema.validate(config, DOCUMENTED["gemini-cli"][1])
    assert config["general"] == original["general"] and config["ui"] == original["ui"]
    assert config["mcpServers"]["other"] == original["mcpServers"]["other"]
    assert config["mcpServers"]["tools"]["args"] == SERVE
    assert (tmp_path / ".gemini" / "settings.json.bak").read_bytes() == before
    assert "settings.json.bak" in result.stdout


def test_a_server_of_the_same_name_is_replaced_only_with_force(tmp_path):
    assert install(tmp_path, "cursor", "--plugins", "everything").returncode == 0
    path = tmp_path / ".cursor" / "mcp.json"
    before = path.read_bytes()
    refused = install(tmp_path, "cursor", "--plugins", "everything", "--env", "A=1")
    one_line_error(refused, "already", "--force", "'everything'")
    assert path.read_bytes() == before
    replaced = install(tmp_path, "cursor", "--plugins", "everything", "--env", "A=1", "--force")
    assert replaced.returncode == 0, replaced.stderr
    assert json.loads(path.read_text())["mcpServers"]["everything"]["env"] == {"A": "1"}


def test_a_secret_from_env_is_never_in_a_world_readable_file(tmp_path):
    path = tmp_path / ".claude.json"
    path.write_text('{"numStartups": 3}')
    path.chmod(0o644)
    result = install(tmp_path, "claude-code", "--plugins", "everything", "--env", "API_KEY=s3cret", "--env", "X=a=b")
    assert result.returncode == 0, result.stderr
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    config = json.loads(path.read_text())
    assert config["numStartups"] == 3
    assert config["mcpServers"]["everything"]["env"] == {"API_KEY": "s3cret", "X": "a=b"}
    assert "s3cret" not in result.stdout + result.stderr
    backup = tmp_path / ".claude.json.bak"
    assert "s3cret" not in backup.read_text()  # (the backup is the file before: no secret of ours in it)
    # a new file without secrets is left to the umask; with one, it is private from its first byte
    fresh = install(tmp_path, "cursor", "--plugins", "everything")
    assert fresh.returncode == 0
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE((tmp_path / ".cursor" / "mcp.json").stat().st_mode) == 0o666 & ~umask
    secret = install(tmp_path, "claude-desktop", "--plugins", "everything", "--env", "T=x")
    assert secret.returncode == 0
    assert stat.S_IMODE((tmp_path / ".config" / "Claude" / "claude_desktop_config.json").stat().st_mode) == 0o600


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('{"mcpServers": {', "not valid JSON"),
        ("// a comment\n{}", "not valid JSON"),
        ("[1, 2]", "not an object"),
        ('{"mcpServers": []}', "'mcpServers' is not a JSON object"),
    ],
)
def test_a_malformed_file_is_refused_and_left_untouched(tmp_path, text, fragment):
    path = tmp_path / ".cursor" / "mcp.json"
    path.parent.mkdir()
    path.write_text(text)
    result = install(tmp_path, "cursor", "--plugins", "everything")
    one_line_error(result, fragment, str(path))
    assert path.read_text() == text
    assert not (tmp_path / ".cursor" / "mcp.json.bak").exists()


def test_a_linked_file_is_changed_where_it_is(tmp_path):
    real = tmp_path / "dotfiles" / "mcp.json"
    real.parent.mkdir()
    real.write_text('{"mcpServers": {}}')
    (tmp_path / ".cursor").mkdir()
    (tmp_path / ".cursor" / "mcp.json").symlink_to(real)
    assert install(tmp_path, "cursor", "--plugins", "everything").returncode == 0
    assert (tmp_path / ".cursor" / "mcp.json").is_symlink()
    assert "everything" in json.loads(real.read_text())["mcpServers"]


def test_mcp_json_is_printed_and_nothing_is_written(tmp_path):
    result = install(tmp_path, "mcp-json", "--plugins", "everything", "--env", "K=v")
    assert result.returncode == 0, result.stderr
    config = json.loads(result.stdout)
    jsonschema.validate(config, servers_schema("mcpServers", COMMAND_FIELDS, ["command"]))
    assert config["mcpServers"]["everything"]["env"] == {"K": "v"}
    assert list(tmp_path.iterdir()) == []


def test_project_files_and_file_targets(tmp_path):
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "weather.py").write_text("")
    result = install(tmp_path, "claude-code", "src/weather.py:plugin", "--project", cwd=project)
    assert result.returncode == 0, result.stderr
    entry = json.loads((project / ".mcp.json").read_text())["mcpServers"]["weather"]
    assert entry["args"] == ["-m", "mcptrio", "serve", f"{project / 'src' / 'weather.py'}:plugin"]
    assert not (tmp_path / ".claude.json").exists()
    module = install(tmp_path, "vscode", "mypkg.tools:plugin", "--project", cwd=project)
    assert module.returncode == 0, module.stderr
    servers = json.loads((project / ".vscode" / "mcp.json").read_text())["servers"]
    assert servers["tools"]["args"][-1] == "mypkg.tools:plugin"
    one_line_error(install(tmp_path, "claude-desktop", "--plugins", "everything", "--project"), "no project file")
    secret = install(tmp_path, "cursor", "--plugins", "everything", "--project", "--env", "K=v", cwd=project)
    one_line_error(secret, "meant to be shared", "drop --project")
    assert not (project / ".cursor").exists()


@pytest.mark.parametrize(
    ("words", "fragment"),
    [
        (["cursor"], "name what to serve"),
        (["cursor", "--plugins", "nosuch"], "no such plugin 'nosuch'"),
        (["cursor", "missing.py"], "missing.py: no such file"),
        (["cursor", "--plugins", "everything", "--env", "NOEQUALS"], "KEY=VALUE"),
        (["cursor", "--plugins", "everything", "--env", "1X=y"], "KEY=VALUE"),
        (["cursor", "--plugins", "everything", "--name", "a b"], "--name"),
        (["notaclient", "--plugins", "everything"], "invalid choice"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, words, fragment):
    one_line_error(install(tmp_path, *words), fragment)
    assert list(tmp_path.iterdir()) == []


def test_the_written_command_answers_initialize_as_a_client_runs_it(tmp_path):
    assert install(tmp_path, "claude-desktop", "--plugins", "everything", "--env", "MCPTRIO_PROBE=1").returncode == 0
    config = json.loads((tmp_path / ".config" / "Claude" / "claude_desktop_config.json").read_text())
    entry = config["mcpServers"]["everything"]
    # As a desktop client starts it: no shell, a bare PATH, another folder, the entry's env added.
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", **entry["env"]}
    process = subprocess.run(
        [entry["command"], *entry["args"]],
        input=json.dumps(INITIALIZE) + "\n",
        capture_output=True,
        text=True,
        env=env,
        cwd="/",
        timeout=60,
    )
    answer = json.loads(process.stdout.splitlines()[0])
    assert answer["id"] == 1 and answer["result"]["protocolVersion"] == "2025-06-18", process.stderr
    assert answer["result"]["serverInfo"]["name"]


def test_the_guide_s_table_is_the_command_s():
    """docs/guides/dev-and-install.md lists every client with the paths and key the command writes."""
    from mcptrio.cli.install_clients import CLIENTS, SYSTEMS

    page = (Path(__file__).resolve().parents[2] / "docs" / "guides" / "dev-and-install.md").read_text()
    rows = {line.split("|")[1].strip(" `"): line for line in page.splitlines() if line.startswith("| `")}
    for client in CLIENTS.values():
        cells = [cell.strip(" `") for cell in rows[client.name].split("|")[2:-1]]
        assert cells[: len(SYSTEMS)] == [client.user[system] for system in SYSTEMS]
        assert cells[len(SYSTEMS)] == client.key
        assert ('"type": "stdio"' in cells[-1]) == client.typed
        assert client.project is None or f"`{client.project}`" in page
    for paths, _ in DOCUMENTED.values():  # (and the command's table is the clients' documentation's)
        assert all(f"~/{path}" in page for path in paths.values())
