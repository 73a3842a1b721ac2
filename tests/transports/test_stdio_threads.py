"""stdio through worker threads, for where Trio has no ``FdStream`` (Windows): chosen there by
itself, and on Linux by ``MCPTRIO_STDIO=threads`` or ``serve_stdio(threads=True)``; the stdio test
modules pass through it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from mcptrio.testing import open_process_client
from mcptrio.transports.stdio import threads_wanted

ROOT = Path(__file__).resolve().parents[2]
SERVE = [sys.executable, "-m", "mcptrio.cli", "serve", "--plugins", "everything", "--quiet"]


def test_threads_are_chosen_where_there_is_no_fdstream_or_when_asked(monkeypatch):
    monkeypatch.delenv("MCPTRIO_STDIO", raising=False)
    assert not threads_wanted()
    assert threads_wanted(True) and not threads_wanted(False)
    monkeypatch.setenv("MCPTRIO_STDIO", "threads")
    assert threads_wanted() and not threads_wanted(False)
    monkeypatch.delenv("MCPTRIO_STDIO")
    monkeypatch.delattr(trio.lowlevel, "FdStream")  # (as on Windows)
    assert threads_wanted()


def threads_of(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="counts threads in /proc (Linux)")
async def test_a_server_serves_through_threads_when_asked(monkeypatch):
    counts = {}
    for mode in ("", "threads"):
        monkeypatch.setenv("MCPTRIO_STDIO", mode)
        async with open_process_client(SERVE, env=dict(os.environ)) as client:
            result = await client.call_tool("test_simple_text")
            assert result["content"][0]["text"] == "This is a simple text response for testing."
            counts[mode] = threads_of(client.end.process.pid)
    assert counts["threads"] > counts[""]  # (the reader's thread, blocked on stdin)


async def test_eof_on_stdin_ends_a_threaded_server_at_once(monkeypatch):
    monkeypatch.setenv("MCPTRIO_STDIO", "threads")
    with trio.fail_after(20):
        async with open_process_client(SERVE, env=dict(os.environ)) as client:
            await client.call_tool("test_simple_text")
            await client.end.close()
            await client.end.process.wait()
    assert client.end.process.returncode == 0


@pytest.mark.long
def test_the_stdio_test_modules_pass_through_threads():
    """The stdio modules' own tests, every stdio server they start serving through threads."""
    modules = ["tests/runtime/test_stdio_process.py", "tests/interop/test_sdk_stdio.py"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *modules],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
        env={**os.environ, "MCPTRIO_STDIO": "threads"},
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert " passed" in done.stdout and " failed" not in done.stdout
