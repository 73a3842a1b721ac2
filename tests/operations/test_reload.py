"""``mcptrio serve --reload``: a plugin edited on disk is loaded again in the running server.
The plugin here is a package in a temporary folder, found through a ``.dist-info`` entry point
on the server's PYTHONPATH, exactly as an installed one."""

import os
import subprocess
import sys

import trio

from ..cli.test_cli import served
from ..transports.http.client import (
    LEGACY,
    SseReader,
    call_tool,
    initialize,
    legacy_headers,
    modern,
    new_client,
    rpc,
    text_of,
)

VERSION_1 = """
import mcptrio

plugin = mcptrio.Registry("reloadme")


@plugin.tool()
async def first() -> str:
    return "first, version 1"
"""

VERSION_2 = (
    VERSION_1.replace("version 1", "version 2")
    + """

@plugin.tool()
async def second() -> str:
    return "second, new in version 2"
"""
)


def install_plugin(root):
    package = root / "reloadme"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(VERSION_1)
    info = root / "reloadme-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: reloadme\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[mcptrio.plugins]\nreloadme = reloadme:plugin\n")
    return package / "__init__.py"


async def tool_names(client, url, session_id, request_id):
    listed = await client.post(url, json=rpc("tools/list", {}, request_id), headers=legacy_headers(session_id))
    assert listed.status_code == 200, listed.text
    return sorted(tool["name"] for tool in listed.json()["result"]["tools"])


async def test_an_edit_is_served_at_once_and_a_broken_edit_keeps_the_last_good_version(tmp_path):
    source = install_plugin(tmp_path / "site")
    stderr = tmp_path / "server.stderr"
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site"), "PYTHONDONTWRITEBYTECODE": "1"}
    argv = ["serve", "--plugins", "reloadme", "--transport", "http", "--port", "0", "--reload"]
    async with served(argv, stderr, env) as (_, url):
        assert "serving reloadme at" in stderr.read_text()
        with trio.fail_after(30):
            async with new_client() as client, new_client() as get_client, new_client() as listen_client:
                session_id = await initialize(client, url)
                assert await tool_names(client, url, session_id, 1) == ["first"]
                get = {"accept": "text/event-stream", "mcp-session-id": session_id, "mcp-protocol-version": LEGACY}
                listen, headers = modern("subscriptions/listen", {"notifications": {"toolsListChanged": True}}, "l")
                async with (
                    get_client.stream("GET", url, headers=get) as get_stream,
                    listen_client.stream("POST", url, json=listen, headers=headers) as listen_stream,
                ):
                    on_get, on_listen = SseReader(get_stream), SseReader(listen_stream)
                    await on_get.next()  # the priming event: the GET stream is attached
                    assert (await on_listen.next_message())["method"] == "notifications/subscriptions/acknowledged"

                    source.write_text(VERSION_2)
                    assert (await on_get.next_message())["method"] == "notifications/tools/list_changed"
                    assert (await on_listen.next_message())["method"] == "notifications/tools/list_changed"
                    assert await tool_names(client, url, session_id, 2) == ["first", "second"]  # the same session
                    answer = await client.post(url, json=call_tool("second", {}, 3), headers=legacy_headers(session_id))
                    assert text_of(answer.json()) == "second, new in version 2"

                    source.write_text(VERSION_2 + "\ndef broken(:\n")
                    while "reload failed, the previous version keeps serving" not in stderr.read_text():
                        await trio.sleep(0.05)
                    assert "SyntaxError" in stderr.read_text()
                    assert await tool_names(client, url, session_id, 4) == ["first", "second"]
                    answer = await client.post(url, json=call_tool("first", {}, 5), headers=legacy_headers(session_id))
                    assert text_of(answer.json()) == "first, version 2"


def test_reload_and_workers_together_are_refused():
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mcptrio",
            "serve",
            "--plugins",
            "bench",
            "--transport",
            "http",
            "--workers",
            "2",
            "--stateless-only",
            "--reload",
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "--reload is for one process" in done.stderr
