"""The servers a run launches: mcptrio's CLI and the SDK peer (with its private virtualenv), their logs, stopping."""

from __future__ import annotations

import contextlib
import os
import signal
import ssl
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from client import free_port, perf, wait_for_http
from settings import BENCH, HOST, PATH, REPO, RESULTS, SDK_PIN, SDK_STAMP, SDK_VENV, log


def ensure_sdk_venv() -> Path:
    """bench/.venv-sdk with the pinned SDK from PyPI (created once, ~15 s); its python."""
    python = SDK_VENV / "bin" / "python"
    if SDK_STAMP.exists() and python.exists():
        return python
    log(f"creating {SDK_VENV.relative_to(REPO)} with {SDK_PIN} from PyPI ...")
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--clear", str(SDK_VENV)], check=True, timeout=120)
    pip = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", SDK_PIN],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if pip.returncode != 0:
        sys.stderr.write(pip.stdout + pip.stderr)
        raise SystemExit(f"bench: could not install {SDK_PIN} into {SDK_VENV} (use --only mcptrio without it)")
    SDK_STAMP.write_text(SDK_PIN + "\n")
    return python


@dataclass
class Impl:
    """One server under test: how to start it over stdio, over HTTP, and its bare-ASGI floor."""

    name: str
    python: str
    stdio_argv: list[str]
    http_argv: Callable[[int, str], list[str]]  # (port, mode) -> argv; mode: sse | json | auto
    bare_http_argv: Callable[[int], list[str]] | None = None  # (the peers of bench/peer_servers.py have none)
    env: dict[str, str] = field(default_factory=dict)
    # The start-up figure of issue 19: a server with every feature (mcptrio's `everything` plugin).
    everything_argv: list[str] | None = None
    # The same plugin served as a file (`mcptrio serve file.py`): what resolving a target costs.
    file_argv: list[str] | None = None
    cwd: str = str(RESULTS)  # the servers' working directory: a private temporary one during a run


def make_impls(only: str | None) -> list[Impl]:
    main_python = sys.executable
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSTARTUP", "PYTHONPROFILEIMPORTTIME")}
    impls = []
    if only in (None, "mcptrio"):
        mcptrio_cli = str(Path(main_python).parent / "mcptrio")
        command = [mcptrio_cli] if os.path.exists(mcptrio_cli) else [main_python, "-m", "mcptrio"]
        serve = command + ["serve", "--plugins", "bench"]
        impls.append(
            Impl(
                "mcptrio",
                main_python,
                serve,
                # No access log, as the SDK peer runs uvicorn (access_log=False); its cost is a variant row.
                lambda port, mode: (
                    serve
                    + [
                        "--transport",
                        "http",
                        "--host",
                        HOST,
                        "--port",
                        str(port),
                        "--response-mode",
                        mode,
                        "--no-access-log",
                    ]
                ),
                lambda port: [
                    main_python,
                    str(BENCH / "servers" / "bare_asgi.py"),
                    "--server",
                    "mcptrio",
                    "--port",
                    str(port),
                ],
                dict(env),
                command + ["serve", "--plugins", "everything"],
                file_argv=command + ["serve", str(BENCH / "servers" / "everything_file.py")],
            )
        )
    if only in (None, "sdk"):
        sdk_python = str(ensure_sdk_venv())
        server = str(BENCH / "peers" / "sdk_server.py")
        impls.append(
            Impl(
                "sdk",
                sdk_python,
                [sdk_python, server],
                lambda port, mode: (
                    [sdk_python, server, "--transport", "http", "--port", str(port)]
                    + (["--json-response"] if mode == "json" else [])
                ),
                lambda port: [
                    sdk_python,
                    str(BENCH / "servers" / "bare_asgi.py"),
                    "--server",
                    "uvicorn",
                    "--port",
                    str(port),
                ],
                dict(env),
            )
        )
    return impls


class Logs:
    """The servers' stderr, one file per server process, in a directory emptied at the start."""

    def __init__(self, directory: Path) -> None:
        self.dir = directory
        self.dir.mkdir(parents=True, exist_ok=True)
        for old in self.dir.glob("*.log"):
            old.unlink()
        self.files: list[Path] = []

    def open(self, name: str):
        path = self.dir / f"{name}.log"
        self.files.append(path)
        return path.open("ab")


def stop_process(proc: subprocess.Popen, grace: float = 3.0) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class HttpServer:
    """An HTTP server process on ``port``; ``ready()`` waits until it answers an initialize."""

    def __init__(
        self,
        argv: list[str],
        port: int,
        env: dict[str, str],
        log_file: Any,
        cwd: str,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.port = port
        self.tls = tls
        self.spawned_at = perf()
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log_file, stderr=log_file, env=env, cwd=cwd)
        self.pid = self.proc.pid
        self.ready_at = 0.0

    async def ready(self) -> float:
        """Wait until it answers; the time from spawn to that answer, in ms."""
        self.ready_at = await wait_for_http(HOST, self.port, PATH, perf() + 30, self.proc, self.tls)
        return self.startup_ms

    @property
    def startup_ms(self) -> float:
        return (self.ready_at - self.spawned_at) * 1000

    def stop(self) -> None:
        stop_process(self.proc)


@contextlib.asynccontextmanager
async def serving(
    impl: Impl,
    argv: Callable[[int], list[str]],
    logs: Logs,
    log_name: str,
    env: dict[str, str] | None = None,
    tls: ssl.SSLContext | None = None,
) -> AsyncIterator[HttpServer]:
    """An HTTP server of ``impl`` started as ``argv(port)`` on a free port, ready to answer (over TLS
    with ``tls``, the client's context); stopped after."""
    port = free_port()
    server = HttpServer(argv(port), port, impl.env if env is None else env, logs.open(log_name), impl.cwd, tls)
    try:
        await server.ready()
        yield server
    finally:
        server.stop()
