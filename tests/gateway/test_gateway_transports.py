"""Upstreams over the network: Streamable HTTP over TLS with a private CA (``ca_file``), static
``headers`` and a bearer token from the environment (``token_env``), and WebSocket; an untrusted
certificate keeps the upstream down, saying why."""

from __future__ import annotations

import contextlib
import json
import subprocess
from collections.abc import Iterator

import pytest
import trio

import mcptrio
import mcptrio.client
from mcptrio.gateway import Upstream, links_of

from ..client.tls import make_certificates
from .test_gateway import SERVE, UPSTREAM, free_port, ready, tools_named


@contextlib.contextmanager
def upstream_server(*args: str) -> Iterator[int]:
    port = free_port()
    process = subprocess.Popen([*UPSTREAM, "--port", str(port), *args], stderr=subprocess.DEVNULL)
    try:
        yield port
    finally:
        process.terminate()
        process.wait(timeout=15)


@pytest.fixture(scope="module")
def certificates(tmp_path_factory):
    return make_certificates(tmp_path_factory.mktemp("tls"))


async def test_an_https_upstream_with_a_private_ca_headers_and_a_token_from_the_environment(certificates, monkeypatch):
    monkeypatch.setenv("UPSTREAM_TOKEN", "s3cret-upstream-token")
    tls = ["--transport", "http", "--certfile", str(certificates.cert), "--keyfile", str(certificates.key)]
    with upstream_server(*tls) as port:
        await ready_tls(port, certificates.ca)
        upstream = Upstream(
            "up",
            url=f"https://127.0.0.1:{port}/mcp",
            ca_file=str(certificates.ca),
            headers={"X-Team": "blue"},
            token_env="UPSTREAM_TOKEN",
        )
        app = mcptrio.App("gateway")
        app.proxy(upstream)
        async with mcptrio.client.connect(app, era="legacy") as client:
            await tools_named(client, "up_seen")
            seen = json.loads((await client.call_tool("up_seen")).content[0].text)
    assert seen["headers"]["x-team"] == "blue"
    assert seen["headers"]["authorization"] == "Bearer s3cret-upstream-token"


async def test_an_upstream_whose_certificate_is_not_trusted_stays_down_saying_why(certificates):
    tls = ["--transport", "http", "--certfile", str(certificates.cert), "--keyfile", str(certificates.key)]
    with upstream_server(*tls) as port:
        await ready_tls(port, certificates.ca)
        app = mcptrio.App("gateway")
        app.proxy(Upstream("up", url=f"https://127.0.0.1:{port}/mcp"))  # (no ca_file: the system's CAs)
        async with mcptrio.client.connect(app, era="legacy"):
            [link] = links_of(app)
            with trio.fail_after(20):
                while link.state != "down":
                    await trio.sleep(0.05)
            assert "certificate verify failed" in link.why


async def test_a_websocket_upstream():
    with upstream_server("--transport", "ws") as port:
        app = mcptrio.App("gateway")
        app.proxy(Upstream("up", url=f"ws://127.0.0.1:{port}/mcp"))
        async with mcptrio.client.connect(app, era="modern") as client:
            await tools_named(client, "up_echo")
            assert (await client.call_tool("up_echo", {"text": "ws"})).content[0].text == "echo: ws"


async def test_each_worker_has_its_own_upstream_session(tmp_path):
    (tmp_path / "gateway.toml").write_text(
        f"[serve.upstreams.up]\ncommand = {json.dumps(UPSTREAM[0])}\nargs = {json.dumps(list(UPSTREAM[1:]))}\n"
        "required = true\n"
    )
    port = free_port()
    server = subprocess.Popen(
        [*SERVE, "--config", str(tmp_path / "gateway.toml"), "--transport", "http", "--port", str(port),
         "--workers", "2", "--stateless-only"],
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        await ready(port)
        pids: set[str] = set()
        with trio.fail_after(60):
            while len(pids) < 2:  # (the kernel hands each new connection to either worker)
                async with mcptrio.client.connect(f"http://127.0.0.1:{port}/mcp", era="modern") as client:
                    await tools_named(client, "up_pid")
                    pids.add((await client.call_tool("up_pid")).content[0].text)
        assert len(pids) == 2
    finally:
        server.terminate()
        server.wait(timeout=20)


async def ready_tls(port: int, ca) -> None:
    """Until the TLS upstream answers."""
    import ssl

    import httpx

    with trio.fail_after(30):
        async with httpx.AsyncClient(verify=ssl.create_default_context(cafile=str(ca))) as http:
            while True:
                try:
                    await http.get(f"https://127.0.0.1:{port}/healthz")
                    return
                except httpx.TransportError:
                    await trio.sleep(0.1)
