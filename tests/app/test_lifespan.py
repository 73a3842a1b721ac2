"""Plugin lifespans: set up before the first request, taken down after the last, on every transport."""

import os
import subprocess
import sys
import textwrap

import pytest

import mcptrio
import mcptrio.client
from mcptrio.testing import open_client

from ..transports.http.client import http_server, ws_server


def _app(events: list[str]) -> mcptrio.App:
    first = mcptrio.Registry("first")
    second = mcptrio.Registry("second")

    @first.lifespan
    async def pool(app: mcptrio.App):
        events.append("pool up")
        app.state["pool"] = ["connection"]
        try:
            yield
        finally:
            events.append("pool down")
            del app.state["pool"]

    @second.lifespan
    async def cache(app: mcptrio.App):
        events.append("cache up")  # after the first plugin's: in include order
        yield
        events.append("cache down")  # before the first plugin's: reverse order

    @second.tool()
    async def size(ctx: mcptrio.Context) -> str:
        events.append("call")
        return str(len(ctx.app.state["pool"]))

    app = mcptrio.App("lifespans")
    app.include(first)
    app.include(second)
    return app


EXPECTED = ["pool up", "cache up", "call", "cache down", "pool down"]


async def test_in_process():
    events: list[str] = []
    app = _app(events)
    async with mcptrio.client.connect(app) as client:
        assert (await client.call_tool("size")).content[0].text == "1"
    assert events == EXPECTED
    assert app.state == {}


@pytest.mark.parametrize("serve", [http_server, ws_server])
async def test_over_the_network(serve):
    events: list[str] = []
    app = _app(events)
    async with serve(app) as url:
        assert events == ["pool up", "cache up"]  # before the first request: the URL means "serving"
        async with mcptrio.client.connect(url) as client:
            assert (await client.call_tool("size")).content[0].text == "1"
    assert events == EXPECTED


async def test_running_around_two_transports_runs_them_once():
    events: list[str] = []
    app = _app(events)
    async with app.running():
        async with http_server(app) as url, open_client(app):
            async with mcptrio.client.connect(url) as client:
                await client.call_tool("size")
        assert events == ["pool up", "cache up", "call"]  # still running: the block owns them
    assert events == EXPECTED


async def test_a_failing_lifespan_stops_the_server_before_it_serves():
    plugin = mcptrio.Registry("broken")
    stopped = []

    @plugin.lifespan
    async def fine(app):
        try:
            yield
        finally:
            stopped.append("fine")

    @plugin.lifespan
    async def unreachable(app):
        raise ConnectionRefusedError("db.internal:5432")
        yield

    app = mcptrio.App("broken")
    app.include(plugin)
    with pytest.raises(
        mcptrio.LifespanError, match=r"unreachable .*failed to start: ConnectionRefusedError: db\.internal"
    ):
        async with app.running():
            pytest.fail("never reached")
    assert stopped == ["fine"]  # what had started is taken down


def test_a_lifespan_must_be_an_async_generator():
    plugin = mcptrio.Registry("p")
    with pytest.raises(TypeError, match="must be an async generator function"):

        @plugin.lifespan
        async def not_a_generator(app):
            return None


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_the_cli_says_which_lifespan_failed_in_one_line(tmp_path, transport):
    # A plugin "installed" the light way: a module and its distribution's metadata on PYTHONPATH.
    (tmp_path / "broken_plugin.py").write_text(
        textwrap.dedent("""
        import mcptrio
        plugin = mcptrio.Registry("broken")

        @plugin.lifespan
        async def database(app):
            raise OSError("cannot reach db.internal:5432")
            yield
    """)
    )
    dist = tmp_path / "broken_plugin-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[mcptrio.plugins]\nbroken = broken_plugin:plugin\n")
    done = subprocess.run(
        [sys.executable, "-m", "mcptrio", "serve", "--plugins", "broken", "--transport", transport, "--port", "0"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        "mcptrio: error: the lifespan database of a plugin failed to start: OSError: cannot reach db.internal:5432"
    )
    assert "Traceback" not in done.stderr
