"""TLS on the HTTP server without a proxy: the certificate files, read once into an ``ssl.SSLContext``."""

from __future__ import annotations

import ssl

import attrs


class TlsError(ValueError):
    """A certificate, key or CA file that can't be used: one line saying which and why."""


@attrs.frozen(kw_only=True)
class TlsSettings:
    """The server's certificate chain and key (PEM); with ``ca_certs``, every client must present a
    certificate one of those CAs signed."""

    certfile: str
    keyfile: str
    ca_certs: str | None = None

    def context(self, alpn: tuple[str, ...]) -> ssl.SSLContext:
        """A server context offering ``alpn`` (e.g. ``("h2", "http/1.1")``), TLS 1.2 at least."""
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.options |= ssl.OP_NO_COMPRESSION  # RFC 9113 §9.2.1, and CRIME
        context.set_alpn_protocols(list(alpn))
        try:
            context.load_cert_chain(self.certfile, self.keyfile)
        except OSError as exc:  # ssl.SSLError is one too: a file that is not a PEM certificate or key
            raise TlsError(f"cannot use certificate {self.certfile} with key {self.keyfile}: {_why(exc)}") from None
        if self.ca_certs is not None:
            try:
                context.load_verify_locations(self.ca_certs)
            except OSError as exc:
                raise TlsError(f"cannot use client CA certificates {self.ca_certs}: {_why(exc)}") from None
            context.verify_mode = ssl.CERT_REQUIRED
        return context


def _why(exc: OSError) -> str:
    if isinstance(exc, ssl.SSLError):  # (OpenSSL's reason, e.g. KEY_VALUES_MISMATCH; none when the PEM is unreadable)
        return exc.reason or "not a PEM file of the expected kind"
    return exc.strerror or str(exc)
