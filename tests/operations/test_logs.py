"""Logs: text or JSON lines, one access line per MCP request (never a token or an argument value)."""

from __future__ import annotations

import io
import json
import logging
import subprocess
import sys
from typing import Any

import pytest
import trio
from trio_websocket import open_websocket_url

import mcptrio
from mcptrio import McpError, ToolError
from mcptrio.app.access_log import reference
from mcptrio.cli import logs
from mcptrio.testing import open_client

from ..transports.http.client import (
    CLIENT_INFO,
    LEGACY,
    call_tool,
    final_of,
    http_server,
    initialize,
    legacy_headers,
    modern_tool,
    new_client,
    notification,
    rpc,
    ws_server,
)

MCPTRIO = [sys.executable, "-m", "mcptrio"]
SECRET = "hunter2-do-not-log"


class Lines(logging.Handler):
    """The access records, as the JSON formatter would write them."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[dict[str, Any]] = []
        self.setFormatter(logs.JsonFormatter())

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(json.loads(self.format(record)))


@pytest.fixture
def access():
    handler = Lines()
    logger = logging.getLogger("mcptrio.access")
    logger.addHandler(handler)
    old = logger.level
    logger.setLevel(logging.INFO)
    yield handler.lines
    logger.removeHandler(handler)
    logger.setLevel(old)


@pytest.fixture
def configured():
    """``logs.configure`` for a test, the root and third-party loggers restored afterwards."""
    names = ("", "httpx", "httpcore")
    saved = [(logger, logger.handlers[:], logger.level, logger.propagate) for logger in map(logging.getLogger, names)]
    yield logs.configure
    for logger, handlers, level, propagate in saved:
        logger.handlers, logger.propagate = handlers, propagate
        logger.setLevel(level)


def make_app() -> mcptrio.App:
    app = mcptrio.App("logged", access_log=True)

    @app.tool()
    async def echo(text: str) -> str:
        return text

    @app.tool()
    async def refuse(text: str) -> str:
        raise ToolError("no")

    @app.tool()
    async def invalid() -> str:
        raise McpError(-32602, "bad")

    @app.tool()
    async def nap(seconds: float) -> str:
        await trio.sleep(seconds)
        return "rested"

    return app


def test_json_lines_carry_fields_and_exceptions(configured):
    stream = io.StringIO()
    configured("info", "json", stream)
    logging.getLogger("mcptrio.test").info("hello %s", "world", extra={"fields": {"a": 1, "b": "two"}})
    try:
        raise ValueError("boom")
    except ValueError:
        logging.getLogger("mcptrio.test").exception("failed")
    logging.getLogger("mcptrio.test").debug("not shown at info")
    first, second = (json.loads(line) for line in stream.getvalue().splitlines())
    assert first["msg"] == "hello world" and first["a"] == 1 and first["b"] == "two"
    assert first["level"] == "info" and first["logger"] == "mcptrio.test" and first["ts"].endswith("Z")
    assert second["level"] == "error" and "ValueError: boom" in second["exc"]


def test_text_lines_append_fields_quoting_when_needed(configured):
    stream = io.StringIO()
    configured("DEBUG", "text", stream)  # a level in either case
    logging.getLogger("mcptrio.test").debug("request", extra={"fields": {"name": "a b", "n": 3}})
    line = stream.getvalue().strip()
    assert line.endswith('DEBUG mcptrio.test request name="a b" n=3'), line
    with pytest.raises(ValueError, match="'loud'"):
        logs.configure("loud")
    with pytest.raises(ValueError, match="'xml'"):
        logs.configure("info", "xml")


@pytest.mark.parametrize("level", ["debug", "info"])
async def test_third_party_messages_take_the_same_way(level, configured):
    """httpx's messages (the client of an authorization server, say) go through our handler; its
    INFO line per request repeats what mcptrio says itself, so it shows at debug only."""
    stream = io.StringIO()
    configured(level, "json", stream)
    async with http_server(make_app()) as url, new_client() as http:
        await initialize(http, url)
        logging.getLogger("httpx").warning("a warning of httpx's")
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    httpx = [line["msg"] for line in lines if line["logger"] == "httpx"]
    assert httpx[-1] == "a warning of httpx's"
    assert any(msg.startswith("HTTP Request: POST") for msg in httpx) == (level == "debug"), httpx


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_one_line_per_request_with_its_outcome(era, access, autojump_clock):
    async with open_client(make_app(), era=era, limits=mcptrio.SessionLimits(request_timeout=1)) as client:
        await client.call_tool("echo", {"text": SECRET})
        await client.call_tool("refuse", {"text": SECRET})
        await client.response("tools/call", {"name": "invalid", "arguments": {}})
        await client.call_tool("nap", {"seconds": 5})  # times out
        request_id, _ = await client.start_request("tools/call", {"name": "nap", "arguments": {"seconds": 5}})
        await trio.sleep(0.1)
        await client.notify("notifications/cancelled", {"requestId": request_id})
        await client.request("tools/list")
    assert [(line["name"] if "name" in line else None, line["outcome"], line.get("code")) for line in access] == [
        ("echo", "ok", None),
        ("refuse", "tool_error", None),
        ("invalid", "error", -32602),
        ("nap", "timeout", None),
        ("nap", "cancelled", None),
        (None, "ok", None),
    ]
    first = access[0]
    assert first["method"] == "tools/call" and first["era"] == era and first["transport"] == "memory"
    assert first["duration_ms"] >= 0 and "id" in first
    assert SECRET not in json.dumps(access)


async def test_over_http_the_session_is_a_reference_never_the_id(access):
    async with http_server(make_app()) as url, new_client() as http:
        session_id = await initialize(http, url)
        await http.post(url, json=call_tool("echo", {"text": SECRET}, 1), headers=legacy_headers(session_id))
        body, headers = modern_tool("echo", {"text": SECRET}, 2)
        assert final_of(await http.post(url, json=body, headers=headers))["result"]
    legacy, modern = access
    assert legacy["session"] == reference(session_id) and session_id not in json.dumps(access)
    assert "session" not in modern and modern["era"] == "modern"
    assert legacy["transport"] == "http" and legacy["client"] == "127.0.0.1"
    assert SECRET not in json.dumps(access)


async def test_over_websocket_both_eras_on_one_connection(access):
    async with ws_server(make_app()) as url:
        with trio.fail_after(10):
            async with open_websocket_url(url, subprotocols=["mcp"]) as ws:
                params = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": CLIENT_INFO}
                await ws_exchange(ws, rpc("initialize", params, 0), 0)
                await ws.send_message(json.dumps(notification("notifications/initialized")))
                await ws_exchange(ws, call_tool("refuse", {"text": SECRET}, 1), 1)
                body, _headers = modern_tool("echo", {"text": SECRET}, "m1")
                await ws_exchange(ws, body, "m1")
    assert [(line["era"], line["name"], line["outcome"], line["transport"]) for line in access] == [
        ("legacy", "refuse", "tool_error", "websocket"),
        ("modern", "echo", "ok", "websocket"),
    ]
    assert [line["id"] for line in access] == [1, "m1"]
    assert SECRET not in json.dumps(access)


async def ws_exchange(ws: Any, message: dict[str, Any], request_id: Any) -> dict[str, Any]:
    """Send one message; the response to ``request_id`` (messages before it are skipped)."""
    await ws.send_message(json.dumps(message))
    while True:
        received = json.loads(await ws.get_message())
        if received.get("id") == request_id and "method" not in received:
            return received


def serve_stdio(*flags: str, stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        MCPTRIO + ["serve", "--plugins", "bench", *flags], input=stdin, capture_output=True, text=True, timeout=60
    )


SESSION = (
    "\n".join(
        json.dumps(m)
        for m in [
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            },
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": SECRET}},
            },
        ]
    )
    + "\n"
)


def test_the_command_writes_json_access_lines_on_stderr():
    done = serve_stdio("--log-format", "json", "--access-log", stdin=SESSION)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stderr.splitlines()]
    (line,) = [entry for entry in lines if entry["logger"] == "mcptrio.access"]
    assert line["name"] == "echo" and line["outcome"] == "ok" and line["transport"] == "stdio"
    assert SECRET not in done.stderr and SECRET in done.stdout  # (the answer itself carries it)


def test_log_level_and_no_access_log_silence_the_access_lines():
    assert "mcptrio.access" not in serve_stdio("--access-log", "--log-level", "warning", stdin=SESSION).stderr
    assert "mcptrio.access" not in serve_stdio("--no-access-log", stdin=SESSION).stderr
    assert "mcptrio.access" not in serve_stdio(stdin=SESSION).stderr  # off by default on stdio
    assert "mcptrio.access" in serve_stdio("--access-log", stdin=SESSION).stderr


@pytest.mark.parametrize(
    "setting, says",
    [
        ('log_format = "xml"', "log format"),
        ("log_level = 3", "serve.log_level must be a string, got 3"),
        ('log_level = "loud"', "log level"),
        ('access_log = "yes"', "access_log"),
    ],
)
def test_bad_log_settings_are_one_line_errors(setting, says, tmp_path):
    config = tmp_path / "logs.toml"
    config.write_text(f'[serve]\nplugins = ["bench"]\n{setting}\n')
    done = subprocess.run(
        MCPTRIO + ["serve", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1 and says in done.stderr, done.stderr
    flag = subprocess.run(
        MCPTRIO + ["serve", "--plugins", "bench", "--log-level", "loud"],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert flag.returncode == 2 and "invalid choice" in flag.stderr
