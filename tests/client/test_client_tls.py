"""``https://`` and ``wss://`` to a server whose certificate a private CA signed: trusted through
``connect(verify=...)``, ``SSL_CERT_FILE`` or ``mcptrio call --cacert``, refused at once and
clearly when it is not trusted (a WebSocket used to wait 60 s for its connect timeout)."""

from __future__ import annotations

import os
import ssl
import sys

import pytest
import trio

import mcptrio.client
from mcptrio.client import McpError

from ..runtime.apps import build_app
from ..transports.http.client import http_server, ws_server
from .tls import make_certificates, tls_front

MCPTRIO = [sys.executable, "-m", "mcptrio"]


@pytest.fixture(scope="module")
def certificates(tmp_path_factory):
    return make_certificates(tmp_path_factory.mktemp("tls"))


@pytest.fixture
def no_ca_environment(monkeypatch):
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)


def serve(transport):
    return http_server(build_app()) if transport == "https" else ws_server(build_app())


async def echo(url, **options):
    async with mcptrio.client.connect(url, **options) as client:
        return (await client.call_tool("echo", {"text": "over tls"})).content[0].text


@pytest.mark.parametrize("transport", ["https", "wss"])
async def test_a_private_ca_is_trusted_when_given(transport, certificates, no_ca_environment, monkeypatch):
    async with serve(transport) as plain, tls_front(plain, certificates) as url:
        assert url.startswith(f"{transport}://")
        assert await echo(url, verify=str(certificates.ca)) == "over tls"
        assert await echo(url, verify=certificates.ca, era="legacy") == "over tls"
        context = ssl.create_default_context(cafile=certificates.ca)
        assert await echo(url, verify=context) == "over tls"
        assert await echo(url, verify=False) == "over tls"  # no check at all
        monkeypatch.setenv("SSL_CERT_FILE", str(certificates.ca))  # what verify=True honours
        assert await echo(url) == "over tls"


async def test_an_untrusted_certificate_fails_at_once_and_says_why(certificates, no_ca_environment):
    async with serve("wss") as plain, tls_front(plain, certificates) as url:
        # (it used to wait for trio-websocket's 60 s connect timeout, then say only that it timed out)
        with pytest.raises(ConnectionError, match="TLS certificate verify failed: unable to get local issuer"):
            await echo(url)
    async with serve("https") as plain, tls_front(plain, certificates) as url:
        with pytest.raises(McpError, match="TLS certificate verify failed: unable to get local issuer") as failed:
            await echo(url)
        assert failed.value.data == {"transport": True, "mayHaveRun": False}  # (never reached the server)


async def test_a_ca_file_that_cannot_be_read_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="cannot load CA certificates from .*missing.pem"):
        await echo("https://127.0.0.1:1/mcp", verify=tmp_path / "missing.pem")


async def cli(*args, env=None):
    done = await trio.run_process([*MCPTRIO, *args], capture_stdout=True, capture_stderr=True, check=False, env=env)
    return done.returncode, done.stdout.decode(), done.stderr.decode()


@pytest.mark.parametrize("transport", ["https", "wss"])
async def test_mcptrio_call_with_cacert_or_ssl_cert_file(transport, certificates):
    environment = {k: v for k, v in os.environ.items() if k not in ("SSL_CERT_FILE", "SSL_CERT_DIR")}
    async with serve(transport) as plain, tls_front(plain, certificates) as url:
        with trio.fail_after(60):
            status, out, err = await cli(
                "call", url, "echo", "text=hi", "--cacert", str(certificates.ca), env=environment
            )
            assert (status, out.strip()) == (0, "hi"), err
            status, out, err = await cli(
                "call", url, "echo", "text=hi", env={**environment, "SSL_CERT_FILE": str(certificates.ca)}
            )
            assert (status, out.strip()) == (0, "hi"), err
            status, out, err = await cli("call", url, "echo", "text=hi", env=environment)
    assert status == 2 and out == "", err
    [line] = err.strip().splitlines()
    assert line.startswith("mcptrio: error: cannot reach the server: ") and "TLS certificate verify failed" in line


async def test_mcptrio_cacert_that_is_not_a_ca_file(tmp_path):
    (tmp_path / "junk.pem").write_text("not a certificate\n")
    status, _, err = await cli("inspect", "https://127.0.0.1:1/mcp", "--cacert", str(tmp_path / "junk.pem"))
    assert status == 2 and err.startswith("mcptrio: error: --cacert: cannot load CA certificates from ")
    assert len(err.strip().splitlines()) == 1


async def test_a_refused_websocket_handshake_says_why():
    async with serve("wss") as plain:
        with pytest.raises(
            ConnectionError, match=r"/elsewhere: the WebSocket handshake was refused: HTTP 404 Not Found"
        ):
            await echo(plain.replace("/mcp", "/elsewhere"))
