"""What `mcptrio serve` over stdio imports: nothing of the network transports, the client, the
optional extras or what only an error message needs (start-up time, issue 19).

Checked in a real subprocess through ``sys.modules`` once it has answered requests: no timing.
"""

import json
import os
import re
import subprocess
import sys

import httpx
import pytest

# Imported by none of a stdio server's requests below, nor by its start-up.
NOT_IMPORTED = (
    "hypercorn",
    "trio_websocket",
    "wsproto",
    "h11",
    "httpx",
    "coredis",
    "opentelemetry",
    "rich",
    "jsonschema",
    "referencing",
    "cattrs",
    "watchfiles",
    "jwt",
    "pydantic",
    "mcptrio.wire",
    "mcptrio.client",
    "mcptrio.transports.http",
    "mcptrio.transports.websocket",
    "mcptrio.cli.network",
    "mcptrio.cli.worker_processes",
    "mcptrio.state.redis",
    "mcptrio.state.fanout",
    "mcptrio.auth.config",
    "mcptrio.app.telemetry",
    "mcptrio.app.reshape",
    "mcptrio.state.url",
)

# Imported by none of a plain HTTP server's requests (no authorization, TLS, shared state or
# reshaping configured), nor by its start-up.
HTTP_NOT_IMPORTED = (
    "hypercorn",
    "trio_websocket",
    "mcptrio.client",
    "mcptrio.transports.websocket",
    "mcptrio.state.url",
    "mcptrio.state.redis",
    "mcptrio.auth.config",
    "mcptrio.auth.gate",
    "mcptrio.transports.http.server.tls",
    "mcptrio.app.reshape",
    "mcptrio.app.telemetry",
)

SERVE = """
import atexit, sys
atexit.register(lambda: sys.stderr.write("\\nMODULES " + " ".join(sorted(sys.modules)) + "\\n"))
from mcptrio.cli import main
sys.exit(main(["serve", "--plugins", *sys.argv[1:]]))
"""


def line(message) -> bytes:
    return json.dumps(message).encode() + b"\n"


def serve(plugin: str, *requests: dict) -> tuple[list[dict], set[str]]:
    """Serve ``plugin`` over stdio for an initialize and ``requests``, then EOF: answers, modules."""
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        *requests,
    ]
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    done = subprocess.run(
        [sys.executable, "-c", SERVE, plugin],
        input=b"".join(map(line, messages)),
        capture_output=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    answers = [json.loads(text) for text in done.stdout.decode().splitlines() if text.strip()]
    modules_line = [text for text in done.stderr.decode().splitlines() if text.startswith("MODULES ")]
    assert modules_line, done.stderr.decode()[-3000:]
    return answers, set(modules_line[-1].split()[1:])


def loaded(modules: set[str], name: str) -> bool:
    return name in modules or any(m.startswith(name + ".") for m in modules)


@pytest.mark.parametrize(
    "plugin, calls",
    [
        ("bench", [("echo", {"text": "hi"}), ("sleep", {"ms": 1})]),
        ("everything", [("test_simple_text", {}), ("test_tool_with_logging", {})]),
    ],
)
def test_a_stdio_server_imports_nothing_it_does_not_use(plugin, calls):
    requests = [
        {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
        for i, (name, arguments) in enumerate(calls, 1)
    ]
    requests.append({"jsonrpc": "2.0", "id": 99, "method": "tools/list"})
    answers, modules = serve(plugin, *requests)
    by_id = {a["id"]: a for a in answers if "id" in a}
    assert by_id[0]["result"]["serverInfo"]["name"] == plugin  # (one plugin served: its name)
    for i in range(1, len(calls) + 1):
        assert not by_id[i]["result"].get("isError"), by_id[i]
    assert by_id[99]["result"]["tools"]
    assert "trio" in modules and "mcptrio.runtime.stream_session" in modules  # (the check itself works)
    assert [name for name in NOT_IMPORTED if loaded(modules, name)] == []


def test_invalid_arguments_still_name_the_field():
    """The Python validator that explains a refusal is imported when the first one is refused."""
    answers, modules = serve(
        "bench",
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": 5}}},
    )
    (answer,) = [a for a in answers if a.get("id") == 1]
    assert answer["result"]["isError"] is True
    assert "'text'" in answer["result"]["content"][0]["text"]
    assert "jsonschema" in modules


def test_a_plain_http_server_imports_nothing_it_does_not_use():
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    argv = [sys.executable, "-c", SERVE, "bench", "--transport", "http", "--port", "0", "--log-level", "error"]
    with subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env) as server:
        assert server.stderr is not None
        try:
            ready = server.stderr.readline()
            url = re.search(r"at (http://\S+)$", ready.strip())
            assert url, ready
            headers = {"accept": "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28"}
            call = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {
                    "name": "echo",
                    "arguments": {"text": "hi"},
                    "_meta": {
                        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                        "io.modelcontextprotocol/clientCapabilities": {},
                    },
                },
            }
            headers |= {"mcp-method": "tools/call", "mcp-name": "echo"}
            answer = httpx.post(url[1], json=call, headers=headers, timeout=30)
        finally:
            server.terminate()
            stderr = server.stderr.read()
            server.wait(30)
    assert answer.status_code == 200, answer.text
    assert answer.json()["result"]["content"][0]["text"] == "hi"
    [modules_line] = [text for text in stderr.splitlines() if text.startswith("MODULES ")]
    modules = set(modules_line.split()[1:])
    assert "mcptrio.transports.http.asgi" in modules  # (the check itself works)
    assert [name for name in HTTP_NOT_IMPORTED if loaded(modules, name)] == []
