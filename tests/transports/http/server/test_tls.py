"""TLS without a proxy, on both of ``serve_http``'s servers, with certificates from a throwaway CA:
``https://`` for both eras, client certificates required with ``ca_certs``, HTTP/2 (ALPN ``h2``)
on hypercorn, a refusal over the connection limit spoken in TLS, and certificate files that can't
be used refused before anything starts."""

from __future__ import annotations

import ssl
from pathlib import Path

import httpx
import pytest
import trio

import mcptrio.client
from mcptrio.client import McpError
from mcptrio.transports.http import HttpConfig, TlsError, TlsSettings, serve_http

from ....client.tls import Certificates, make_certificates
from ..client import call_tool, final_of, http_server, initialize, legacy_headers, modern_tool, text_of


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> Certificates:
    return make_certificates(tmp_path_factory.mktemp("tls"))


@pytest.fixture(params=["builtin", "hypercorn"])
def server(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def tls_of(certificates: Certificates, *, client_certificates: bool = False) -> TlsSettings:
    return TlsSettings(
        certfile=str(certificates.cert),
        keyfile=str(certificates.key),
        ca_certs=str(certificates.ca) if client_certificates else None,
    )


def client_context(certificates: Certificates, *, with_certificate: bool = False) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=certificates.ca)
    if with_certificate:
        context.load_cert_chain(certificates.client_cert, certificates.client_key)
    return context


async def test_both_eras_over_https(app, server: str, certificates: Certificates) -> None:
    async with http_server(app, server=server, tls=tls_of(certificates)) as url:
        assert url.startswith("https://127.0.0.1:")
        for era in ("modern", "legacy"):
            async with mcptrio.client.connect(url, era=era, verify=str(certificates.ca)) as client:
                assert (await client.call_tool("echo", {"text": era})).content[0].text == era
        with pytest.raises(McpError, match="TLS certificate verify failed"):
            async with mcptrio.client.connect(url, verify=True):
                pass


async def test_hypercorn_speaks_http2_to_a_client_that_offers_it(app, certificates: Certificates) -> None:
    async with http_server(app, server="hypercorn", tls=tls_of(certificates)) as url:
        async with httpx.AsyncClient(http2=True, verify=client_context(certificates), trust_env=False) as client:
            body, headers = modern_tool("echo", {"text": "over h2"}, 1)
            modern = await client.post(url, json=body, headers=headers)
            session_id = await initialize(client, url)
            legacy = await client.post(
                url, json=call_tool("count", {"steps": 2}, 2, progress_token="p"), headers=legacy_headers(session_id)
            )
            # Answered before its body was read: "Connection: close" in HTTP/1.1, none in HTTP/2; and
            # the body that comes after the answer must not find its stream gone (hypercorn: KeyError).
            unread = [
                await client.post(url, content=b"{}" * 1000, headers={"content-type": "text/plain"}) for _ in range(10)
            ]
            after = await client.post(url, json=body, headers=headers)
    assert {modern.http_version, legacy.http_version, after.http_version} == {"HTTP/2"}
    assert text_of(final_of(modern, 1)) == "over h2" and text_of(final_of(after, 1)) == "over h2"
    assert text_of(final_of(legacy, 2)) == "counted"
    assert [(r.status_code, r.http_version, "connection" in r.headers) for r in unread] == [(415, "HTTP/2", False)] * 10


async def test_the_builtin_server_offers_http11_only(app, certificates: Certificates) -> None:
    async with http_server(app, tls=tls_of(certificates)) as url:
        async with httpx.AsyncClient(http2=True, verify=client_context(certificates), trust_env=False) as client:
            response = await client.get(url.replace("/mcp", "/healthz"))
    assert (response.status_code, response.http_version) == (200, "HTTP/1.1")


async def test_ca_certs_require_a_client_certificate_the_ca_signed(
    app, server: str, certificates: Certificates
) -> None:
    async with http_server(app, server=server, tls=tls_of(certificates, client_certificates=True)) as url:
        health = url.replace("/mcp", "/healthz")
        async with httpx.AsyncClient(
            verify=client_context(certificates, with_certificate=True), trust_env=False
        ) as client:
            assert (await client.get(health)).status_code == 200
        async with mcptrio.client.connect(url, verify=client_context(certificates, with_certificate=True)) as mcp:
            assert (await mcp.call_tool("echo", {"text": "known"})).content[0].text == "known"
        async with httpx.AsyncClient(verify=client_context(certificates), trust_env=False) as anonymous:
            with pytest.raises((httpx.ConnectError, httpx.ReadError, httpx.RemoteProtocolError)):
                await anonymous.get(health)
        async with httpx.AsyncClient(
            verify=client_context(certificates, with_certificate=True), trust_env=False
        ) as client:
            assert (await client.get(health)).status_code == 200  # (still serving)


async def test_plain_http_to_the_tls_port_is_closed_and_the_server_goes_on(
    app, server: str, certificates: Certificates
) -> None:
    async with http_server(app, server=server, tls=tls_of(certificates)) as url:
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        await stream.send_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        with trio.fail_after(5):
            try:
                while await stream.receive_some(65536):
                    pass
            except trio.BrokenResourceError:
                pass  # (reset: as good as closed)
        await stream.aclose()
        async with httpx.AsyncClient(verify=client_context(certificates), trust_env=False) as client:
            assert (await client.get(url.replace("/mcp", "/healthz"))).status_code == 200


async def test_over_the_connection_limit_the_503_is_spoken_in_tls_and_http11(
    app, server: str, certificates: Certificates
) -> None:
    config = HttpConfig(max_connections=2)
    async with http_server(app, server=server, config=config, tls=tls_of(certificates)) as url:
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        held = [await trio.open_tcp_stream("127.0.0.1", port) for _ in range(2)]
        with trio.fail_after(5):
            while True:  # (until the server has accepted the two: a new client each time, so a new connection)
                async with httpx.AsyncClient(
                    http2=True, verify=client_context(certificates), trust_env=False
                ) as client:
                    refused = await client.get(url.replace("/mcp", "/healthz"))
                if refused.status_code != 200:
                    break
                await trio.sleep(0.05)
        for stream in held:
            await stream.aclose()
    assert (refused.status_code, refused.http_version) == (503, "HTTP/1.1")
    assert "limit of 2 connections" in refused.text and refused.headers["connection"] == "close"


@pytest.mark.parametrize(
    "files, why",
    [
        (("missing.pem", "key.pem", None), "cannot use certificate .*missing.pem.*: No such file or directory"),
        (("ca.pem", "ca.pem", None), "cannot use certificate .*ca.pem with key .*ca.pem: not a PEM file"),
        (("cert.pem", "client-key.pem", None), "KEY_VALUES_MISMATCH"),
        (("cert.pem", "key.pem", "cert.pem.txt"), "cannot use client CA certificates .*: No such file"),
    ],
)
async def test_certificate_files_that_cant_be_used_are_refused_before_anything_starts(
    app, server: str, certificates: Certificates, files: tuple[str, str, str | None], why: str
) -> None:
    folder = Path(certificates.ca).parent
    certfile, keyfile, ca_certs = (str(folder / name) if name else None for name in files)
    assert certfile is not None and keyfile is not None
    tls = TlsSettings(certfile=certfile, keyfile=keyfile, ca_certs=ca_certs)
    with pytest.raises(TlsError, match=why):
        await serve_http(app, port=0, http_server=server, tls=tls)  # type: ignore[arg-type]
