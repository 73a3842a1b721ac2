"""The floor under the stdio figures: a Trio loop that answers each JSON-RPC line at once.

Reads newline-delimited requests from stdin (non-blocking FdStream, as mcptrio does), parses each
for its id, and writes a fixed echo-sized result per request, everything read at once answered in
one write.  No MCP: what the pipes, the JSON and Trio alone cost.
"""

from __future__ import annotations

import os

import orjson
import trio

HEAD = b'{"jsonrpc":"2.0","id":'
TAIL = b',"result":{"content":[{"type":"text","text":"hello"}]}}\n'


async def main() -> None:
    stdin = trio.lowlevel.FdStream(os.dup(0))
    stdout = trio.lowlevel.FdStream(os.dup(1))
    pending = b""
    while True:
        data = await stdin.receive_some(65536)
        if not data:
            return
        *lines, pending = (pending + data).split(b"\n")
        out = []
        for line in lines:
            if line.strip():
                message = orjson.loads(line)
                if "id" in message:
                    out.append(HEAD + orjson.dumps(message["id"]) + TAIL)
        if out:
            await stdout.send_all(b"".join(out))


if __name__ == "__main__":
    trio.run(main)
