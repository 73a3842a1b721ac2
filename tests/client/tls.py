"""TLS for the tests: a private CA, a server certificate it signs for 127.0.0.1 and localhost and a
client certificate (made with ``cryptography``, as trustme would), and ``tls_front``: a
TLS-terminating relay in front of a plain mcptrio endpoint (HTTP or WebSocket), as a reverse
proxy would be."""

from __future__ import annotations

import contextlib
import datetime
import ipaddress
import ssl
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import attrs
import trio
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


@attrs.frozen
class Certificates:
    ca: Path  # the private CA's certificate (PEM): what a client trusts
    cert: Path  # the server's certificate chain (PEM)
    key: Path  # the server's key (PEM)
    client_cert: Path  # a client's certificate, signed by the same CA (PEM)
    client_key: Path  # its key (PEM)

    def server_context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(self.cert, self.key)
        return context


def make_certificates(folder: Path, *, name: str = "mcptrio test CA") -> Certificates:
    """A CA, a server certificate it signs for 127.0.0.1 and localhost, and a client certificate
    it signs, written in ``folder``."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                key_cert_sign=True,
                crl_sign=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    folder.mkdir(parents=True, exist_ok=True)
    found = Certificates(
        folder / "ca.pem", folder / "cert.pem", folder / "key.pem", folder / "client.pem", folder / "client-key.pem"
    )
    found.ca.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    server_names = x509.SubjectAlternativeName(
        [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    )
    _leaf(ca_name, ca_key, "localhost", server_names, x509.oid.ExtendedKeyUsageOID.SERVER_AUTH, found.cert, found.key)
    _leaf(
        ca_name,
        ca_key,
        "mcptrio test client",
        x509.SubjectAlternativeName([x509.DNSName("client.test")]),
        x509.oid.ExtendedKeyUsageOID.CLIENT_AUTH,
        found.client_cert,
        found.client_key,
    )
    return found


def _leaf(
    ca_name: x509.Name,
    ca_key: ec.EllipticCurvePrivateKey,
    name: str,
    names: x509.SubjectAlternativeName,
    usage: x509.ObjectIdentifier,
    cert: Path,
    key_file: Path,
) -> None:
    """A certificate the CA signs for ``name`` (server or client ``usage``), and its key, written."""
    now = datetime.datetime.now(datetime.UTC)
    key = ec.generate_private_key(ec.SECP256R1())
    leaf = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(names, critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    cert.write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )


@contextlib.asynccontextmanager
async def tls_front(url: str, certificates: Certificates) -> AsyncIterator[str]:
    """Terminate TLS on a free port of 127.0.0.1 and relay the bytes to the plain ``url``'s port;
    yields ``url`` as ``https://`` (or ``wss://``) on that port."""
    parts = urlsplit(url)
    assert parts.hostname is not None and parts.port is not None
    context = certificates.server_context()

    async def relay(client: trio.SSLStream[trio.SocketStream]) -> None:
        try:
            await client.do_handshake()
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return  # the client refused the certificate: what some tests are about
        upstream = await trio.open_tcp_stream(parts.hostname, parts.port)
        async with client, upstream, trio.open_nursery() as nursery:
            nursery.start_soon(_pump, client, upstream, nursery.cancel_scope)
            nursery.start_soon(_pump, upstream, client, nursery.cancel_scope)

    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(
            trio.serve_listeners,
            relay,
            [
                trio.SSLListener(listener, context, https_compatible=True)
                for listener in await trio.open_tcp_listeners(0, host="127.0.0.1")
            ],
        )
        port = listeners[0].transport_listener.socket.getsockname()[1]
        scheme = {"http": "https", "ws": "wss"}[parts.scheme]
        yield urlunsplit((scheme, f"127.0.0.1:{port}", parts.path, parts.query, ""))
        nursery.cancel_scope.cancel()


async def _pump(source: trio.abc.Stream, sink: trio.abc.Stream, scope: trio.CancelScope) -> None:
    try:
        while data := await source.receive_some(65536):
            await sink.send_all(data)
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass
    scope.cancel()
