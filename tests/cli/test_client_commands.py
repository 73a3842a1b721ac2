"""``mcptrio inspect|list|call|read|prompt`` through real subprocesses: human and ``--json``
output, every kind of target, exit statuses (0, 1 for an isError result, 2 for usage and
connection errors), and an elicitation answered in a pseudo-terminal."""

import json
import os
import subprocess
import sys

import pytest
import trio

from ..runtime.apps import build_app
from ..transports.http.client import http_server

MCPTRIO = [sys.executable, "-m", "mcptrio"]


def mcptrio(*args, **kwargs):
    return subprocess.run([*MCPTRIO, *args], capture_output=True, text=True, timeout=60, **kwargs)


async def amcptrio(*args):
    return await trio.run_process([*MCPTRIO, *args], capture_stdout=True, capture_stderr=True, check=False)


def one_line_error(done):
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mcptrio: error: "), done.stderr
    return lines[0]


def test_inspect_human_and_json():
    human = mcptrio("inspect", "--plugins", "bench")
    assert human.returncode == 0
    assert "bench 0.1.0" in human.stdout and "modern era, protocol 2026-07-28" in human.stdout
    assert "6 tools, 2 resources, 0 templates, 1 prompts" in human.stdout
    machine = json.loads(mcptrio("inspect", "--plugins", "bench", "--era", "legacy", "--json").stdout)
    assert machine["era"] == "legacy" and machine["protocolVersion"] == "2025-11-25"
    assert machine["counts"] == {"tools": 6, "resources": 2, "templates": 0, "prompts": 1}
    assert machine["server"]["name"] == "bench" and "tools" in machine["capabilities"]


@pytest.mark.parametrize("what, expect", [("tools", "echo"), ("resources", "bench://info"), ("prompts", "greet")])
def test_list_human_and_json(what, expect):
    human = mcptrio("list", "--plugins", "bench", what)
    assert human.returncode == 0 and expect in human.stdout
    machine = json.loads(mcptrio("list", "--plugins", "bench", what, "--json").stdout)
    assert expect in [item.get("name") if what != "resources" else item["uri"] for item in machine]


def test_call_typed_arguments_human_and_json():
    assert mcptrio("call", "--plugins", "bench", "echo", "text=hello there").stdout.strip() == "hello there"
    machine = json.loads(mcptrio("call", "--plugins", "bench", "sleep", "ms=5", "--json").stdout)
    assert machine["content"][0]["text"] == "slept 5 ms"
    assert mcptrio("call", "--plugins", "bench", "sleep", "--args", '{"ms": 1}').stdout.strip() == "slept 1 ms"


def test_a_tool_error_exits_1_and_bad_input_exits_2():
    failed = mcptrio("call", "--plugins", "everything", "test_error_handling")
    assert failed.returncode == 1 and "intentionally returns an error" in failed.stdout
    assert "'ms' must be integer, got 'soon'" in one_line_error(
        mcptrio("call", "--plugins", "bench", "sleep", "ms=soon")
    )
    assert "arguments: 'text' is a required property" in one_line_error(mcptrio("call", "--plugins", "bench", "echo"))
    assert "no tool named 'nope'" in one_line_error(mcptrio("call", "--plugins", "bench", "nope"))
    assert "KEY=VALUE" in one_line_error(mcptrio("call", "--plugins", "bench", "echo", "oops"))
    assert "argument 'text' is given twice" in one_line_error(
        mcptrio("call", "--plugins", "bench", "echo", "text=a", "text=b")
    )
    assert "the server: 'http://' names no host" in one_line_error(mcptrio("call", "http://", "echo"))
    assert "the server: 'ftp://x' is not an http(s):// or ws(s):// URL" in one_line_error(mcptrio("list", "ftp://x"))
    assert "is not a URL: Port" in one_line_error(mcptrio("list", "http://h:x/mcp"))
    assert "--args is not JSON" in one_line_error(mcptrio("call", "--plugins", "bench", "echo", "--args", "{"))
    assert "name the server once" in one_line_error(mcptrio("list", "--plugins", "bench", "--stdio", "x"))
    assert "name the server first: mcptrio list http://127.0.0.1:1/mcp tools" in one_line_error(
        mcptrio("list", "tools", "http://127.0.0.1:1/mcp")
    )
    assert "list what?" in one_line_error(mcptrio("list", "--plugins", "bench", "everything"))
    assert "cannot reach the server" in one_line_error(mcptrio("inspect", "http://127.0.0.1:1/mcp"))
    assert "the server answered -32602" in one_line_error(mcptrio("read", "--plugins", "bench", "bench://nothing"))


def test_read_and_prompt():
    assert json.loads(mcptrio("read", "--plugins", "bench", "bench://info").stdout) == {
        "server": "mcptrio",
        "version": "0.1.0",
    }
    prompt = mcptrio("prompt", "--plugins", "bench", "greet", "name=Ada")
    assert prompt.returncode == 0 and "user:" in prompt.stdout and "Hello, Ada!" in prompt.stdout
    machine = json.loads(mcptrio("prompt", "--plugins", "bench", "greet", "name=Ada", "--json").stdout)
    assert machine["messages"][0]["content"]["text"] == "Hello, Ada!"


async def test_a_url_and_a_command_line_as_targets():
    async with http_server(build_app()) as url:
        done = await amcptrio("call", url, "echo", "text=over http", "--era", "legacy")
        assert done.returncode == 0 and done.stdout.decode().strip() == "over http"
    stdio = mcptrio("call", "--stdio", f"{sys.executable} -m mcptrio serve --plugins bench", "echo", "text=over stdio")
    assert stdio.returncode == 0 and stdio.stdout.strip() == "over stdio"


def test_an_elicitation_is_declined_without_a_terminal():
    done = mcptrio(
        "call", "--plugins", "everything", "test_elicitation", "message=Who are you?", stdin=subprocess.DEVNULL
    )
    assert done.returncode == 0 and "action=decline" in done.stdout


def in_a_terminal(args: list[str], answers: list[bytes], term: str = "dumb") -> tuple[int, str]:
    """Run ``mcptrio ARGS`` in a pseudo-terminal, typing each answer when a prompt (a line ending
    in ":") waits; its exit status and all it wrote."""
    import pty

    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [*MCPTRIO, *args],
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        close_fds=True,
        env={**os.environ, "COLUMNS": "120", "TERM": term},
    )
    os.close(terminal)
    seen = b""
    waiting = iter(answers)
    try:
        while process.poll() is None or seen.count(b"\n") == 0:
            try:
                chunk = os.read(controller, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
            if seen.rstrip().endswith(b":"):  # a prompt is waiting
                answer = next(waiting, None)
                if answer is not None:
                    os.write(controller, answer)
                    seen += b"\n"
    finally:
        process.wait(30)
        os.close(controller)
    return process.returncode, seen.decode(errors="replace")


def test_an_elicitation_is_answered_in_a_terminal():
    """Through a pseudo-terminal, as a person at the keyboard would answer the form."""
    status, text = in_a_terminal(
        ["call", "--plugins", "everything", "test_elicitation", "message=Who are you?"],
        [b"alice\n", b"alice@example.org\n"],
    )
    assert status == 0, text
    assert "Who are you?" in text
    assert "action=accept" in text and '"username":"alice"' in text and '"email":"alice@example.org"' in text


# rich is the `cli` extra: a blocked import (sys.modules[name] = None) is how it looks uninstalled.
WITHOUT_RICH = """
import sys
sys.modules["rich"] = None
from mcptrio.cli import main
sys.exit(main(sys.argv[1:]))
"""


def without_rich(*args):
    return subprocess.run([sys.executable, "-c", WITHOUT_RICH, *args], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(
    "command",
    [
        ["inspect", "--plugins", "bench"],
        ["list", "--plugins", "bench", "--json"],
        ["call", "--plugins", "bench", "echo", "text=hi"],
    ],
)
def test_without_the_cli_extra_a_client_command_names_it(command):
    line = one_line_error(without_rich(*command))
    assert line == "mcptrio: error: the client commands need rich: pip install 'mcptrio[cli]'"


def test_without_the_cli_extra_serve_and_plugins_work():
    listed = without_rich("plugins")
    assert listed.returncode == 0 and "bench" in listed.stdout, listed.stderr
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    served = subprocess.run(
        [sys.executable, "-c", WITHOUT_RICH, "serve", "--plugins", "bench"],
        input=json.dumps(initialize) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert served.returncode == 0, served.stderr
    assert json.loads(served.stdout)["result"]["serverInfo"]["name"] == "bench"


def test_call_watch_follows_a_task_and_answers_its_question_in_a_terminal():
    """``call --watch``: the tool runs as a task; its states on stderr, its question asked here."""
    status, text = in_a_terminal(
        ["call", "--plugins", "everything", "confirm_delete", "filename=a.txt", "--watch"], [b"y\n"]
    )
    assert status == 0, text
    assert "Delete a.txt?" in text and "confirm (y/n):" in text and "Deleted a.txt" in text
    assert ": input_required" in text and ": completed" in text  # (each state the polls saw)
