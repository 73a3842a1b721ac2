"""A throwaway redis-server (Debian's package) on 127.0.0.1 and a free port, persistence off."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator

import pytest

INSTALL = (
    "redis-server not found: install Debian's package (apt-get install redis-server); the test command "
    "does this as root"
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class RedisServer:
    def __init__(
        self,
        port: int,
        directory: str,
        *,
        durable: bool = False,
        password: str | None = None,
        tls: tuple[str, str, str] | None = None,
    ) -> None:
        self.port = port
        self.directory = directory
        self.durable = durable  # an append-only file synced on every write: survives restart()
        self.password = password
        self.tls = tls  # (certificate, key, CA certificate) files: TLS only, on self.port
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        scheme = "rediss" if self.tls else "redis"
        auth = f":{self.password}@" if self.password else ""
        query = f"?ssl_ca_certs={self.tls[2]}" if self.tls else ""
        return f"{scheme}://{auth}127.0.0.1:{self.port}/0{query}"

    def start(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.fail(INSTALL, pytrace=False)
        log = open(os.path.join(self.directory, "redis.log"), "ab")
        listen = ["--port", str(self.port)]
        if self.tls:
            listen = [
                "--port",
                "0",
                "--tls-port",
                str(self.port),
                "--tls-cert-file",
                self.tls[0],
                "--tls-key-file",
                self.tls[1],
                "--tls-ca-cert-file",
                self.tls[2],
                "--tls-auth-clients",
                "no",
            ]
        if self.password:
            listen += ["--requirepass", self.password]
        self.process = subprocess.Popen(
            [
                binary,
                *listen,
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "yes" if self.durable else "no",
                "--appendfsync",
                "always",
                "--daemonize",
                "no",
                "--dir",
                self.directory,
                "--loglevel",
                "warning",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), 0.2) as conn:
                if self.tls:
                    return  # (it accepts connections: TLS and AUTH are the client's to try)
                conn.sendall(b"PING\r\n")
                if conn.recv(16).startswith((b"+PONG", b"-NOAUTH")):
                    return
            if self.process.poll() is not None:
                break
            time.sleep(0.02)
        raise RuntimeError(f"redis-server did not start on port {self.port}: see {self.directory}/redis.log")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


@contextlib.contextmanager
def redis_server(*, durable: bool = False, password: str | None = None, tls: bool = False) -> Iterator[RedisServer]:
    with tempfile.TemporaryDirectory(prefix="mcptrio-redis-") as directory:
        files = make_certificates(directory) if tls else None
        server = RedisServer(free_port(), directory, durable=durable, password=password, tls=files)
        server.start()
        try:
            yield server
        finally:
            server.stop()


def make_certificates(directory: str) -> tuple[str, str, str]:
    """A throwaway CA and a certificate for 127.0.0.1 signed by it: (cert, key, CA cert) paths."""
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "mcptrio test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    paths = tuple(os.path.join(directory, name) for name in ("server.pem", "server.key", "ca.pem"))
    with open(paths[0], "wb") as out:
        out.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(paths[1], "wb") as out:
        out.write(
            key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption()
            )
        )
    with open(paths[2], "wb") as out:
        out.write(ca.public_bytes(serialization.Encoding.PEM))
    return paths  # type: ignore[return-value]
