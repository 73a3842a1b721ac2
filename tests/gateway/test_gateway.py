"""The gateway: an upstream MCP server served by an mcptrio app (``app.proxy``, ``--upstream``),
through real stdio processes and real HTTP, in both eras at the front."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
import trio

import mcptrio
import mcptrio.client
from mcptrio.client import McpError
from mcptrio.gateway import Upstream, links_of

HERE = Path(__file__).resolve().parent
SERVE = (sys.executable, "-m", "mcptrio.cli", "serve")
UPSTREAM = (*SERVE, str(HERE / "upstream_app.py"), "--quiet")
ERAS = ["legacy", "modern"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def tools_named(client: mcptrio.client.Client, wanted: str, present: bool = True) -> list[str]:
    """The tool names once ``wanted`` is (or is not) among them: the upstream comes up, or goes, by itself."""
    with trio.fail_after(30):
        while True:
            names = [tool.name for tool in await client.list_tools()]
            if (wanted in names) == present:
                return names
            await trio.sleep(0.05)


def gateway(*upstreams: Upstream) -> mcptrio.App:
    app = mcptrio.App("gateway")

    @app.tool()
    async def own() -> str:
        return "the gateway's own tool"

    for upstream in upstreams:
        app.proxy(upstream)
    return app


@pytest.mark.parametrize("era", ERAS)
async def test_an_upstream_over_stdio_is_served_namespaced_with_progress_and_questions(era):
    app = gateway(Upstream("up", command=UPSTREAM))
    progress: list[tuple[float, float | None, str | None]] = []

    async def elicitation(params):
        assert params["message"] == "Your name?"
        return {"action": "accept", "content": {"name": "Ada"}}

    async with mcptrio.client.connect(app, era=era, elicitation=elicitation, log_level="info") as client:
        names = await tools_named(client, "up_echo")
        assert {"own", "up_echo", "up_pid", "up_slow", "up_ask_name"} <= set(names)
        assert (await client.call_tool("up_echo", {"text": "hi"})).content[0].text == "echo: hi"
        result = await client.call_tool(
            "up_slow", {"seconds": 0}, progress=lambda p, total, message: progress.append((p, total, message))
        )
        assert result.content[0].text == "slept"
        assert progress == [(1, 2, "started")]
        assert (await client.call_tool("up_ask_name")).content[0].text == "hello Ada"
        # A resource template's URI is the upstream's with the namespace before its scheme.
        templates = await client.list_resource_templates()
        assert [t.uri_template for t in templates] == ["up+note://{key}"]
        read = await client.read_resource("up+note://a")
        assert (read.contents[0].uri, read.contents[0].text) == ("up+note://a", "note a")
        # Arguments are checked against the upstream's schema; an unknown name is the gateway's own error.
        bad = await client.call_tool("up_echo", {"text": 3})
        assert bad.is_error
        with pytest.raises(McpError, match="unknown tool"):
            await client.call_tool("up_nothing")


async def test_one_upstream_session_serves_many_callers_at_once():
    app = gateway(Upstream("up", command=UPSTREAM))
    async with mcptrio.client.connect(app, era="legacy") as first:
        await tools_named(first, "up_pid")
        pids = set()

        async def caller(n: int) -> None:
            async with mcptrio.client.connect(app, era="modern" if n % 2 else "legacy") as client:
                pids.add((await client.call_tool("up_pid")).content[0].text)
                assert (await client.call_tool("up_echo", {"text": str(n)})).content[0].text == f"echo: {n}"

        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:
                for n in range(20):
                    nursery.start_soon(caller, n)
        assert len(pids) == 1  # one upstream process for every caller


async def test_a_caller_that_cancels_cancels_the_upstream_request():
    app = gateway(Upstream("up", command=UPSTREAM))
    async with mcptrio.client.connect(app, era="legacy") as client:
        await tools_named(client, "up_slow")
        with trio.move_on_after(0.5):
            await client.call_tool("up_slow", {"seconds": 30})
        # The upstream got notifications/cancelled: its slot is free, a next call is answered at once.
        with trio.fail_after(5):
            assert (await client.call_tool("up_echo", {"text": "after"})).content[0].text == "echo: after"


async def test_an_upstream_killed_mid_call_gives_an_error_naming_it_and_comes_back():
    app = gateway(Upstream("up", command=UPSTREAM))
    changed: list[str] = []
    async with mcptrio.client.connect(app, era="legacy", listen=True) as client:
        client.raw.on_notification.append(lambda message: changed.append(message["method"]))
        await tools_named(client, "up_pid")
        pid = int((await client.call_tool("up_pid")).content[0].text)
        with trio.fail_after(20):
            async with trio.open_nursery() as nursery:

                async def kill_soon() -> None:
                    await trio.sleep(0.3)
                    os.kill(pid, signal.SIGKILL)

                nursery.start_soon(kill_soon)
                with pytest.raises(McpError, match="upstream 'up' is unavailable") as failed:
                    await client.call_tool("up_slow", {"seconds": 30})
        assert failed.value.data == {"upstream": "up"}
        await tools_named(client, "up_pid", present=False)  # its tools left while it was down...
        await tools_named(client, "up_pid")  # ...and came back when it was started again
        again = int((await client.call_tool("up_pid")).content[0].text)
        assert again != pid
        assert changed.count("notifications/tools/list_changed") >= 2
        assert (await client.call_tool("own")).content[0].text == "the gateway's own tool"


async def test_an_upstream_that_never_answers_is_down_and_the_others_are_served(caplog):
    silent = Upstream("silent", command=(sys.executable, "-c", "import time; time.sleep(60)"), start_timeout=0.5)
    app = gateway(silent, Upstream("up", command=UPSTREAM))
    async with mcptrio.client.connect(app, era="modern") as client:
        names = await tools_named(client, "up_echo")
        assert not any(name.startswith("silent_") for name in names)
        with trio.fail_after(10):  # (starting, until its start_timeout has passed; then down, saying why)
            while True:
                with pytest.raises(McpError, match="upstream 'silent' is unavailable: ") as failed:
                    await client.call_tool("silent_anything")
                if "did not start and answer within 0.5 s" in str(failed.value):
                    break
                await trio.sleep(0.05)
    assert any("upstream silent is down" in record.getMessage() for record in caplog.records)


async def test_noise_on_an_upstreams_stdout_never_reaches_a_client():
    noisy = ("sh", "-c", f"echo 'Server running on stdio'; exec {' '.join(UPSTREAM)}")
    app = gateway(Upstream("up", command=noisy))
    async with mcptrio.client.connect(app, era="legacy") as client:
        await tools_named(client, "up_echo")
        assert (await client.call_tool("up_echo", {"text": "x"})).content[0].text == "echo: x"


# -- mcptrio serve --------------------------------------------------------------------------------


def serve(*args: str, cwd: Path | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen([*SERVE, *args], stderr=subprocess.PIPE, text=True, cwd=cwd)


async def ready(port: int, status: int = 200) -> dict:
    with trio.fail_after(30):
        async with httpx.AsyncClient() as http:
            while True:
                try:
                    answer = await http.get(f"http://127.0.0.1:{port}/readyz")
                    if answer.status_code == status:
                        return answer.json()
                except httpx.TransportError:
                    pass
                await trio.sleep(0.1)


async def test_serve_takes_upstreams_from_flags_a_config_file_and_mcp_json(tmp_path):
    (tmp_path / "mcp.json").write_text(
        json.dumps({"mcpServers": {"fromjson": {"command": UPSTREAM[0], "args": list(UPSTREAM[1:])}}})
    )
    (tmp_path / "gateway.toml").write_text(
        "[serve.upstreams.fromtoml]\n"
        f"command = {json.dumps(UPSTREAM[0])}\nargs = {json.dumps(list(UPSTREAM[1:]))}\n"
        'namespace = "t"\nrequired = true\n'
    )
    port = free_port()
    server = serve(
        "--config", str(tmp_path / "gateway.toml"),
        "--upstreams", str(tmp_path / "mcp.json"),
        "--upstream", f"fromflag={' '.join(UPSTREAM)}",
        "--transport", "http", "--port", str(port),
    )  # fmt: skip
    try:
        report = await ready(port)
        assert set(report["upstreams"]) == {"fromjson", "fromtoml", "fromflag"}
        async with mcptrio.client.connect(f"http://127.0.0.1:{port}/mcp") as client:
            names = await tools_named(client, "fromflag_echo")
            names = await tools_named(client, "fromjson_echo")
            assert {"t_echo", "fromjson_echo", "fromflag_echo"} <= set(names)
            assert (await client.call_tool("t_echo", {"text": "toml"})).content[0].text == "echo: toml"
    finally:
        server.terminate()
        server.wait(timeout=15)


async def test_a_required_upstream_that_is_down_makes_the_gateway_unready(tmp_path):
    (tmp_path / "gateway.toml").write_text(
        "[serve.upstreams.gone]\n"
        f'command = {json.dumps(sys.executable)}\nargs = ["-c", "raise SystemExit(3)"]\nrequired = true\n'
    )
    port = free_port()
    server = serve("--config", str(tmp_path / "gateway.toml"), "--transport", "http", "--port", str(port))
    try:
        report = await ready(port, status=503)
        assert report["status"] == "not ready"
        assert report["upstreams"]["gone"]["state"] in ("starting", "down")
    finally:
        server.terminate()
        server.wait(timeout=15)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--upstream", "nameonly"], "--upstream wants NAME=COMMAND-OR-URL, got 'nameonly'"),
        (["--upstreams", "/nonexistent/mcp.json"], "--upstreams: /nonexistent/mcp.json: cannot read it"),
        (["--upstream", "x=http://"], "upstream 'x': 'http://' names no host"),
        (["--upstream", "x=http://host:port/mcp"], "upstream 'x': 'http://host:port/mcp' is not a URL"),
        (["--upstream", "x=ftp://host/"], "'ftp://host/' is a URL the gateway does not speak"),
        (
            ["--upstream", "x=one", "--upstream", "x=two"],
            "upstream 'x' is named twice: by --upstream x=one and by --upstream x=two",
        ),
    ],
)
def test_a_bad_upstream_is_one_line_and_exit_2(args, message):
    done = subprocess.run([*SERVE, *args], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], done.stderr


def test_an_upstream_named_by_two_sources_is_refused_naming_both(tmp_path):
    (tmp_path / "gateway.toml").write_text('[serve.upstreams.x]\ncommand = "true"\n')
    (tmp_path / "mcp.json").write_text('{"mcpServers": {"y": {"command": "true"}}}')
    for args, message in (
        (["--config", str(tmp_path / "gateway.toml"), "--upstream", "x=other"], "by [serve.upstreams.x] and by"),
        (["--upstreams", str(tmp_path / "mcp.json"), "--upstream", "y=other"], "by the mcpServers file"),
    ):
        done = subprocess.run([*SERVE, *args], capture_output=True, text=True, timeout=60)
        assert done.returncode == 2
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and "is named twice" in lines[0] and message in lines[0], done.stderr


def test_a_bad_upstream_table_names_the_key(tmp_path):
    (tmp_path / "gateway.toml").write_text('[serve.upstreams.x]\ncommand = "true"\ntimeout = -1\n')
    done = subprocess.run(
        [*SERVE, "--config", str(tmp_path / "gateway.toml")], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "timeout must be a number of seconds above 0" in done.stderr and "Traceback" not in done.stderr


async def test_an_upstreams_tool_is_reshaped_from_the_config_file(tmp_path):
    (tmp_path / "gateway.toml").write_text(
        "[serve.upstreams.up]\n"
        f"command = {json.dumps(UPSTREAM[0])}\nargs = {json.dumps(list(UPSTREAM[1:]))}\n"
        '[serve.reshape.up_echo]\nrename = "shout"\nhide = {text = {value = "fixed"}}\n'
    )
    port = free_port()
    server = serve("--config", str(tmp_path / "gateway.toml"), "--transport", "http", "--port", str(port))
    try:
        await ready(port)
        async with mcptrio.client.connect(f"http://127.0.0.1:{port}/mcp") as client:
            await tools_named(client, "shout")
            tools = {tool.name: tool for tool in await client.list_tools() if tool.name in ("shout", "up_echo")}
            assert list(tools) == ["shout"]
            assert "text" not in tools["shout"].input_schema.get("properties", {})
            assert (await client.call_tool("shout")).content[0].text == "echo: fixed"
    finally:
        server.terminate()
        server.wait(timeout=15)


BAD = (sys.executable, str(HERE / "bad_upstream.py"))


async def test_an_upstream_over_the_message_limit_is_cut_off_without_harming_the_others():
    from mcptrio.runtime.limits import SessionLimits

    app = mcptrio.App("gateway", limits=SessionLimits(max_message_size=64 * 1024))
    app.proxy(Upstream("bad", command=BAD))
    app.proxy(Upstream("up", command=UPSTREAM))
    async with mcptrio.client.connect(app, era="legacy") as client:
        await tools_named(client, "bad_huge")
        await tools_named(client, "up_echo")
        with (
            trio.fail_after(10),
            pytest.raises(McpError, match="upstream 'bad' is unavailable: .*over the limit of 65,536"),
        ):
            await client.call_tool("bad_huge")
        assert (await client.call_tool("up_echo", {"text": "fine"})).content[0].text == "echo: fine"
        await tools_named(client, "bad_ok", present=False)  # (gone while it is down...)
        await tools_named(client, "bad_ok")  # (...and started again)
        assert (await client.call_tool("bad_ok")).content[0].text == "ok"


async def test_a_flood_of_notifications_or_garbage_from_an_upstream_is_borne():
    app = gateway(Upstream("bad", command=BAD), Upstream("up", command=UPSTREAM))
    async with mcptrio.client.connect(app, era="legacy") as client:
        await tools_named(client, "bad_flood")
        await tools_named(client, "up_echo")
        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(client.call_tool, "bad_flood")
                nursery.start_soon(client.call_tool, "bad_garbage")
                for n in range(20):
                    assert (await client.call_tool("up_echo", {"text": str(n)})).content[0].text == f"echo: {n}"
            assert (await client.call_tool("bad_garbage")).content[0].text == "garbage"
            assert (await client.call_tool("bad_flood")).content[0].text == "flood"


async def test_an_upstream_that_stops_answering_is_noticed_by_its_pings_and_started_again():
    app = gateway(Upstream("bad", command=BAD, timeout=0.5, ping_interval=0.2), Upstream("up", command=UPSTREAM))
    async with mcptrio.client.connect(app, era="legacy") as client:
        await tools_named(client, "bad_freeze")
        with (
            trio.fail_after(10),
            pytest.raises(McpError, match="upstream 'bad' did not answer tools/call within 0.5 s"),
        ):
            await client.call_tool("bad_freeze")
        await tools_named(client, "bad_ok", present=False)  # (its ping went unanswered: down...)
        await tools_named(client, "bad_ok")  # (...and started again)
        assert (await client.call_tool("bad_ok")).content[0].text == "ok"
        [link] = [link for link in links_of(app) if link.name == "bad"]
        assert link.restarts >= 1


async def test_callers_subscriptions_are_made_again_on_a_new_upstream_session():
    app = gateway(Upstream("up", command=UPSTREAM))
    async with mcptrio.client.connect(app, era="legacy", listen=True) as client:
        await tools_named(client, "up_pid")
        await client.subscribe("up+note://a")
        [link] = links_of(app)
        assert link.wanted == {"note://a"}
        pid = int((await client.call_tool("up_pid")).content[0].text)
        os.kill(pid, signal.SIGKILL)
        await tools_named(client, "up_pid", present=False)
        await tools_named(client, "up_pid")
        with trio.fail_after(10):
            while link.subscribed != {"note://a"}:
                await trio.sleep(0.05)
        await client.call_tool("up_touch", {"key": "a"})
        with trio.fail_after(10):
            while not any(
                note["method"] == "notifications/resources/updated" and note["params"]["uri"] == "up+note://a"
                for note in client.raw.notifications
            ):
                await trio.sleep(0.05)


async def test_per_caller_sessions_give_each_legacy_caller_its_own_upstream_and_its_own_questions():
    app = mcptrio.App("gateway")
    app.proxy(Upstream("up", command=UPSTREAM, sessions="per-caller", era="legacy"))
    names = {"ada": "Ada", "bob": "Bob"}

    def answering(who: str):
        async def elicitation(params):
            await trio.sleep(0.2)  # (both callers' questions are open at once)
            return {"action": "accept", "content": {"name": names[who]}}

        return elicitation

    results: dict[str, str] = {}
    pids: dict[str, str] = {}

    async def caller(who: str) -> None:
        async with mcptrio.client.connect(app, era="legacy", elicitation=answering(who)) as client:
            await tools_named(client, "up_ask_name")
            pids[who] = (await client.call_tool("up_pid")).content[0].text
            results[who] = (await client.call_tool("up_ask_name")).content[0].text

    with trio.fail_after(30):
        async with app.running():  # (the app's lifespan around both callers, as a server's is)
            async with trio.open_nursery() as nursery:
                for who in names:
                    nursery.start_soon(caller, who)
            assert results == {"ada": "hello Ada", "bob": "hello Bob"}
            assert pids["ada"] != pids["bob"]  # (an upstream process each)
            [link] = links_of(app)
            while len(link.private):  # (closed with the callers' sessions, the app still serving)
                await trio.sleep(0.05)


async def test_on_a_shared_session_a_question_with_several_calls_in_flight_is_refused_upstream():
    # (a legacy upstream pushes its questions; a 2026-07-28 one puts them in the call's answer: exact)
    app = gateway(Upstream("up", command=UPSTREAM, era="legacy"))
    async with mcptrio.client.connect(app, era="legacy", elicitation=lambda p: trio.sleep_forever()) as client:
        await tools_named(client, "up_slow")
        async with trio.open_nursery() as nursery:
            nursery.start_soon(client.call_tool, "up_slow", {"seconds": 30})
            await trio.sleep(0.3)
            answer = await client.call_tool("up_ask_name")
            nursery.cancel_scope.cancel()
        assert answer.is_error and 'sessions = "per-caller"' in answer.content[0].text
