"""The client's TLS: which certificates it trusts (``connect(verify=...)``), for HTTP and WebSocket
alike, and a readable reason when a connection fails (a TLS error is often deep in a chain)."""

from __future__ import annotations

import os
import ssl
from typing import Union

Verify = Union[ssl.SSLContext, str, "os.PathLike[str]", bool]


def ssl_context(verify: Verify = True) -> ssl.SSLContext:
    """The context a connection uses.

    ``verify``: an ``ssl.SSLContext`` (used as it is); a CA bundle file, or a directory of hashed
    CA certificates, to trust instead of the default ones; ``False``: no certificate check at
    all; ``True``: the CA file or directory named by ``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` when
    either is set, else certifi's bundle (as httpx has it), else the system's.
    """
    if isinstance(verify, ssl.SSLContext):
        return verify
    if verify is False:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        return context
    if verify is True:
        cafile, capath = os.environ.get("SSL_CERT_FILE") or None, os.environ.get("SSL_CERT_DIR") or None
        if cafile is None and capath is None:
            try:
                import certifi
            except ImportError:
                return ssl.create_default_context()
            cafile = certifi.where()
        return _trusting(cafile, capath)
    if not isinstance(verify, (str, os.PathLike)):
        raise TypeError(f"verify must be an ssl.SSLContext, a CA file or directory, or a bool, not {verify!r}")
    path = os.fspath(verify)
    return _trusting(None, path) if os.path.isdir(path) else _trusting(path, None)


def _trusting(cafile: str | None, capath: str | None) -> ssl.SSLContext:
    try:
        return ssl.create_default_context(cafile=cafile, capath=capath)
    except (OSError, ssl.SSLError) as exc:  # (a missing or unreadable file: say which)
        raise ValueError(f"cannot load CA certificates from {cafile or capath}: {exc}") from exc


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    cause: BaseException | None = exc
    while cause is not None and cause not in seen:
        seen.append(cause)
        cause = cause.__cause__ or cause.__context__
    return seen


def is_tls_failure(exc: BaseException) -> bool:
    """Did the connection fail in its TLS handshake (a certificate, a protocol): not worth a retry."""
    return any(isinstance(found, ssl.SSLError) for found in _chain(exc))


def failure_reason(exc: BaseException) -> str:
    """What went wrong, in a line: a certificate that failed verification says why, an error
    wrapped without a message (httpx's ``ConnectError('')``) says what it wraps."""
    seen = _chain(exc)
    for found in seen:
        if isinstance(found, ssl.SSLCertVerificationError):
            return f"TLS certificate verify failed: {found.verify_message or found.reason}"
    for found in seen:
        if isinstance(found, ssl.SSLError):
            return f"TLS error: {found.reason or found}"
    for found in seen:
        if str(found):
            return f"{type(found).__name__}: {found}"
    return type(exc).__name__
