"""A stdio MCP server that misbehaves on request, for the gateway's fault tests (legacy era):
``huge`` answers with a line of ``HUGE`` bytes, ``flood`` sends 20,000 notifications before its
answer, ``garbage`` writes 1,000 lines that are not JSON before its answer, ``freeze`` stops
answering anything for a minute, ``ok`` answers."""

from __future__ import annotations

import json
import sys
import time

HUGE = 200_000
TOOLS = [{"name": name, "inputSchema": {"type": "object"}} for name in ("huge", "flood", "garbage", "freeze", "ok")]


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def answer(request: dict) -> None:
    method, rid = request.get("method"), request.get("id")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "protocolVersion": request["params"]["protocolVersion"], "capabilities": {"tools": {}},
            "serverInfo": {"name": "bad", "version": "1"}}})  # fmt: skip
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": rid, "result": {"tools": TOOLS}})
    elif method == "tools/call":
        name = request["params"]["name"]
        if name == "huge":
            send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "x" * HUGE}]}})
            return
        if name == "flood":
            for n in range(20_000):
                send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": n}})
        if name == "freeze":
            time.sleep(60)
        if name == "garbage":
            sys.stdout.write("this is not JSON\n" * 1000)
        send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": name}]}})
    elif rid is not None:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no such method"}})


for line in sys.stdin:
    if line.strip():
        answer(json.loads(line))
