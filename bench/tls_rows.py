"""The TLS rows: a throwaway CA and the server's certificate (the tests' maker), made once per run.

``server_flags()`` gives a server ``--certfile``/``--keyfile``; ``client_context()`` is what the
load client trusts (HTTP/1.1 offered by ALPN, as the load client speaks it).
"""

from __future__ import annotations

import atexit
import shutil
import ssl
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT))

from tests.client.tls import Certificates, make_certificates  # noqa: E402 - the tests' certificate maker

_made: Certificates | None = None


def certificates() -> Certificates:
    global _made
    if _made is None:
        folder = Path(tempfile.mkdtemp(prefix="bench-tls-"))
        atexit.register(shutil.rmtree, folder, True)
        _made = make_certificates(folder)
    return _made


def server_flags() -> list[str]:
    made = certificates()
    return ["--certfile", str(made.cert), "--keyfile", str(made.key)]


def client_context() -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=certificates().ca)
    context.set_alpn_protocols(["http/1.1"])
    return context
