"""``mcptrio serve`` says once on stderr that it serves, at every log level but ``--quiet``: its
version, plugins and transport, and where it waits for a client; the same for stdio and HTTP."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

import mcptrio

SERVE = [sys.executable, "-m", "mcptrio", "serve", "--plugins", "everything"]
READY = f"mcptrio {mcptrio.__version__} serving everything over stdio: waiting for a client on stdin"


def served_stdio(*flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*SERVE, *flags], stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60, check=True
    )


@pytest.mark.parametrize("level", ["debug", "info", "warning", "error"])
def test_stdio_says_it_is_waiting_for_a_client_at_every_level(level):
    done = served_stdio("--log-level", level)
    ready = [line for line in done.stderr.splitlines() if "mcptrio.ready" in line]
    assert len(ready) == 1 and ready[0].endswith(READY), done.stderr
    assert done.stdout == ""


def test_quiet_says_nothing():
    done = served_stdio("--quiet")
    assert done.stderr == "" and done.stdout == ""


def test_the_line_is_json_in_json_logs():
    import json

    done = served_stdio("--log-format", "json", "--log-level", "error")
    [line] = done.stderr.splitlines()
    assert json.loads(line)["msg"] == READY


def test_http_says_where_it_listens_in_the_same_words():
    with subprocess.Popen(
        [*SERVE, "--transport", "http", "--port", "0", "--log-level", "error"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    ) as server:
        assert server.stderr is not None
        try:
            line = server.stderr.readline()
        finally:
            server.terminate()
            server.wait(30)
    pattern = rf"mcptrio {re.escape(mcptrio.__version__)} serving everything at http://127\.0\.0\.1:\d+/mcp$"
    assert re.search(pattern, line.strip()), line
