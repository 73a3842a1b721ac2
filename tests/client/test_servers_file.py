"""Many servers from one ``mcpServers`` file: ``mcptrio.client.connect_all`` and the CLI's
``--config FILE [NAME]``, over stdio (mcptrio's everything plugin, the official SDK's server) and
HTTP (an mcptrio server), with a server that cannot start beside them."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import trio

import mcptrio.client
from mcptrio.client import read_servers

from ..cli.test_client_commands import amcptrio
from ..runtime.apps import build_app
from ..transports.http.client import http_server

SDK_SERVER = [sys.executable, str(Path(__file__).with_name("sdk_server.py"))]


def servers_file(tmp_path: Path, url: str, *, broken: bool = False) -> Path:
    servers = {
        "sdk": {"command": SDK_SERVER[0], "args": SDK_SERVER[1:]},
        "everything": {
            "command": sys.executable,
            "args": ["-m", "mcptrio", "serve", "--plugins", "everything"],
            "env": {"MCPTRIO_TEST_MARK": "${HOME}"},
        },
        "web": {"type": "http", "url": url, "headers": {"X-Test": "${MISSING_VAR:-yes}"}},
    }
    if broken:
        servers["gone"] = {"command": str(tmp_path / "no-such-server")}
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


async def test_connect_all_lists_and_calls_across_servers(tmp_path):
    async with http_server(build_app()) as url:
        with trio.fail_after(60):
            async with mcptrio.client.connect_all(servers_file(tmp_path, url, broken=True)) as group:
                assert list(group.clients) == ["sdk", "everything", "web"] and list(group.failures) == ["gone"]
                tools = await group.list_tools()
                assert ("sdk", "echo") in [(server, tool.name) for server, tool in tools]
                assert {server for server, _ in tools} == {"sdk", "everything", "web"}
                answer = await group.call_tool("sdk", "echo", {"text": "hi"})
                assert answer.content[0].text == "hi"
                with pytest.raises(KeyError, match="gone"):
                    group["gone"]


def test_a_bad_file_is_one_clear_error(tmp_path):
    path = tmp_path / "mcp.json"
    for content, message in [
        ("{", "not JSON"),
        ("{}", 'no "mcpServers"'),
        ('{"mcpServers": {"x": {"url": "ftp://x"}}}', "server 'x': url must be"),
        ('{"mcpServers": {"x": {}}}', "server 'x' needs either a command or a url"),
        ('{"mcpServers": {"x": {"command": "a", "env": {"K": "${NOPE_NOT_SET}"}}}}', "NOPE_NOT_SET is not set"),
    ]:
        path.write_text(content)
        with pytest.raises(ValueError, match=message):
            read_servers(path)


@pytest.mark.long
async def test_the_cli_across_the_servers_of_a_file(tmp_path):
    async with http_server(build_app()) as url:
        path = str(servers_file(tmp_path, url))
        with trio.fail_after(120):
            listed = await amcptrio("list", "--config", path, "--json")
            assert listed.returncode == 0, listed.stderr
            rows = json.loads(listed.stdout)
            assert {row["server"] for row in rows} == {"sdk", "everything", "web"}
            assert {"server": "sdk", "name": "echo"}.items() <= next(
                r for r in rows if r["name"] == "echo" and r["server"] == "sdk"
            ).items()

            human = await amcptrio("list", "--config", path)
            assert human.returncode == 0 and "on 3 servers" in human.stdout.decode()

            named = await amcptrio("call", "--config", path, "sdk", "echo", "text=from the sdk")
            assert named.returncode == 0 and named.stdout.decode().strip() == "from the sdk", named.stderr

            found = await amcptrio("call", "--config", path, "sleep_stats")  # only the SDK's server has it
            assert found.returncode == 0 and b"server: sdk" in found.stderr, found.stderr

            ambiguous = await amcptrio("call", "--config", path, "echo", "text=x")
            assert ambiguous.returncode == 2 and b"is on servers" in ambiguous.stderr

            one = await amcptrio("list", "--config", path, "web", "--json")
            assert {row["server"] for row in json.loads(one.stdout)} == {"web"}

        broken = str(servers_file(tmp_path, url, broken=True))
        with trio.fail_after(60):
            partial = await amcptrio("list", "--config", broken, "--json")
        assert partial.returncode == 2 and b"gone: cannot reach the server" in partial.stderr
        assert {row["server"] for row in json.loads(partial.stdout)} == {"sdk", "everything", "web"}
