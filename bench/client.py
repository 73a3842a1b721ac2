"""A raw JSON-RPC load client for MCP servers: stdio over subprocess pipes, HTTP/1.1 over raw
asyncio sockets.  No MCP SDK code: every message is built and checked here, by hand.

stdio: one thread, blocking ``os.write``/``os.read`` on the child's pipes, newline-delimited
JSON.  Pipelining keeps a window of k requests outstanding: each answer read lets one more
request go out (answers read in one ``os.read`` are refilled in one ``os.write``).

HTTP: one keep-alive connection per simulated client, a hand-written HTTP/1.1 request and a
response reader that understands Content-Length, chunked bodies and ``text/event-stream``.
"""

from __future__ import annotations

import asyncio
import os
import select
import socket
import ssl
import subprocess
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson

LEGACY_VERSION = "2025-11-25"
MODERN_VERSION = "2026-07-28"
CLIENT_INFO = {"name": "mcptrio-bench", "version": "1"}
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"

perf = time.perf_counter


class BenchError(Exception):
    """The server answered wrongly, too late, or not at all."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# -- /proc ------------------------------------------------------------------------------------

CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process (all its threads), in seconds."""
    with open(f"/proc/{pid}/stat", "rb") as f:
        stat = f.read()
    fields = stat[stat.rindex(b")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # fields 14 and 15 of proc(5)


def status_kib(pid: int, key: str) -> int:
    """A ``VmRSS``/``VmHWM`` line of /proc/<pid>/status, in KiB."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    raise BenchError(f"no {key} in /proc/{pid}/status")


# -- messages ---------------------------------------------------------------------------------


def initialize_params() -> dict[str, Any]:
    return {"protocolVersion": LEGACY_VERSION, "capabilities": {}, "clientInfo": CLIENT_INFO}


def modern_meta() -> dict[str, Any]:
    return {META_VERSION: MODERN_VERSION, META_CAPABILITIES: {}, META_CLIENT_INFO: CLIENT_INFO}


def tool_text(message: dict[str, Any]) -> str:
    """The text of a tools/call answer, checked to be a success."""
    if "result" not in message:
        raise BenchError(f"expected a result, got {str(message)[:300]}")
    result = message["result"]
    if result.get("isError"):
        raise BenchError(f"tool error: {str(result)[:300]}")
    return result["content"][0]["text"]


# -- stdio ------------------------------------------------------------------------------------


class StdioServer:
    """An MCP server child process spoken to over its stdin/stdout pipes."""

    def __init__(
        self, argv: list[str], *, env: dict[str, str] | None = None, stderr: Any = None, cwd: str | None = None
    ) -> None:
        self.spawned_at = perf()
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, bufsize=0, env=env, cwd=cwd
        )
        self.pid = self.proc.pid
        self._in = self.proc.stdin.fileno()
        self._out = self.proc.stdout.fileno()
        self._buf = b""
        self._next_id = 0
        self.stray: list[dict[str, Any]] = []  # notifications and unexpected answers seen
        self.startup_ms: float | None = None  # spawn → initialize answered

    def new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self._in, view) :]

    def send(self, message: dict[str, Any]) -> None:
        self.write(orjson.dumps(message) + b"\n")

    def read_lines(self, timeout: float) -> list[bytes]:
        """At least one complete line (blocking up to ``timeout``); [] at EOF."""
        deadline = perf() + timeout
        while b"\n" not in self._buf:
            left = deadline - perf()
            if left <= 0 or not select.select([self._out], [], [], left)[0]:
                raise BenchError(f"no answer from pid {self.pid} within {timeout} s")
            data = os.read(self._out, 1 << 16)
            if not data:
                return []
            self._buf += data
        *lines, self._buf = self._buf.split(b"\n")
        return [line for line in lines if line.strip()]

    def request(self, method: str, params: dict[str, Any] | None = None, *, timeout: float = 10.0) -> dict[str, Any]:
        request_id = self.new_id()
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return self.wait_for(request_id, timeout)

    def wait_for(self, request_id: int, timeout: float) -> dict[str, Any]:
        deadline = perf() + timeout
        while True:
            lines = self.read_lines(max(deadline - perf(), 0.001))
            if not lines:
                raise BenchError(f"pid {self.pid} closed stdout while we waited for answer {request_id}")
            found = None
            for line in lines:
                message = orjson.loads(line)
                if message.get("id") == request_id and "method" not in message:
                    found = message
                else:
                    self.stray.append(message)
            if found is not None:
                return found

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def initialize(self, timeout: float = 30.0) -> dict[str, Any]:
        answer = self.request("initialize", initialize_params(), timeout=timeout)
        if "result" not in answer:
            raise BenchError(f"initialize failed: {answer}")
        if self.startup_ms is None:
            self.startup_ms = (perf() - self.spawned_at) * 1000
        self.notify("notifications/initialized")
        return answer

    def call(self, name: str, arguments: dict[str, Any], *, timeout: float = 10.0) -> str:
        return tool_text(self.request("tools/call", {"name": name, "arguments": arguments}, timeout=timeout))

    def sequential(self, make: Callable[[int], bytes], *, max_calls: int, seconds: float) -> tuple[int, float]:
        """One request at a time: write, read its answer, repeat.  Returns (calls, elapsed)."""
        done = 0
        start = perf()
        deadline = start + seconds
        while done < max_calls and perf() < deadline:
            request_id = self.new_id()
            self.write(make(request_id))
            for line in self._lines_until_answer():
                _check_answer(line)
            done += 1
        return done, perf() - start

    def _lines_until_answer(self) -> list[bytes]:
        while True:
            lines = self.read_lines(10.0)
            if not lines:
                raise BenchError(f"pid {self.pid} closed stdout")
            answers = [line for line in lines if b'"method"' not in line]
            if answers:
                return answers

    def pipelined(
        self, make: Callable[[int], bytes], window: int, *, max_calls: int, seconds: float
    ) -> tuple[int, float]:
        """Keep ``window`` requests outstanding until the count or the time runs out."""
        start = perf()
        deadline = start + seconds
        first = min(window, max_calls)
        self.write(b"".join(make(self.new_id()) for _ in range(first)))
        sent, done = first, 0
        while done < sent:
            lines = self.read_lines(10.0)
            if not lines:
                raise BenchError(f"pid {self.pid} closed stdout with {sent - done} calls outstanding")
            answered = 0
            for line in lines:
                if b'"method"' in line:
                    continue  # a notification from the server
                _check_answer(line)
                answered += 1
            done += answered
            if answered and sent < max_calls and perf() < deadline:
                more = min(answered, max_calls - sent)
                self.write(b"".join(make(self.new_id()) for _ in range(more)))
                sent += more
        return done, perf() - start

    def close_stdin(self) -> None:
        self.proc.stdin.close()

    def drain_until_eof(self, timeout: float) -> list[dict[str, Any]]:
        """Every message until the server closes stdout (or ``timeout``)."""
        messages = []
        deadline = perf() + timeout
        while True:
            left = deadline - perf()
            if left <= 0:
                return messages
            try:
                lines = self.read_lines(left)
            except BenchError:
                return messages
            if not lines and b"\n" not in self._buf:
                return messages
            messages.extend(orjson.loads(line) for line in lines)

    def stop(self, timeout: float = 5.0) -> int | None:
        """Close stdin, wait for the exit; kill it if it will not go."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None
        finally:
            self.proc.stdout.close()


def _check_answer(line: bytes) -> None:
    message = orjson.loads(line)
    if "result" not in message:
        raise BenchError(f"error answer: {line[:300]!r}")
    result = message["result"]
    if isinstance(result, dict) and result.get("isError"):
        raise BenchError(f"tool error: {line[:300]!r}")


def stdio_line(method: str, params: dict[str, Any]) -> Callable[[int], bytes]:
    """A request factory: the same request with a fresh id, pre-serialised around the id."""
    head = b'{"jsonrpc":"2.0","id":'
    tail = b',"method":' + orjson.dumps(method) + b',"params":' + orjson.dumps(params) + b"}\n"
    return lambda request_id: head + str(request_id).encode() + tail


def rotating(factories: list[Callable[[int], bytes]]) -> Callable[[int], bytes]:
    return lambda request_id: factories[request_id % len(factories)](request_id)


# -- HTTP -------------------------------------------------------------------------------------


@dataclass
class Response:
    status: int
    headers: dict[bytes, bytes]
    body: bytes

    @property
    def is_sse(self) -> bool:
        return self.headers.get(b"content-type", b"").startswith(b"text/event-stream")

    def messages(self) -> list[dict[str, Any]]:
        """The JSON-RPC messages in the body: one JSON value, or the ``data:`` of SSE events."""
        if not self.body:
            return []
        if not self.is_sse:
            value = orjson.loads(self.body)
            return value if isinstance(value, list) else [value]
        out = []
        for block in self.body.replace(b"\r\n", b"\n").split(b"\n\n"):
            data = b"\n".join(line[5:].lstrip(b" ") for line in block.split(b"\n") if line.startswith(b"data:"))
            if data.strip():
                out.append(orjson.loads(data))
        return out

    def answer(self, request_id: Any) -> dict[str, Any]:
        for message in self.messages():
            if message.get("id") == request_id and "method" not in message:
                return message
        raise BenchError(f"HTTP {self.status}: no answer to id {request_id} in {self.body[:300]!r}")


class HttpConnection:
    """One keep-alive HTTP/1.1 connection to the server (in TLS with ``tls``), requests one at a time."""

    def __init__(self, host: str, port: int, tls: ssl.SSLContext | None = None) -> None:
        self.host, self.port, self.tls = host, port, tls
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self._host_header = f"Host: {host}:{port}\r\n".encode()
        self.server_closed = False
        self.reconnects = 0

    async def connect(self) -> HttpConnection:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port, ssl=self.tls)
        sock = self.writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return self

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None

    def head(self, method: str, path: str, headers: Iterable[tuple[str, str]], body_length: int | None) -> bytes:
        lines = [f"{method} {path} HTTP/1.1\r\n".encode(), self._host_header]
        lines.extend(f"{name}: {value}\r\n".encode() for name, value in headers)
        if body_length is not None:
            lines.append(f"Content-Length: {body_length}\r\n".encode())
        lines.append(b"\r\n")
        return b"".join(lines)

    def send(self, method: str, path: str, headers: Iterable[tuple[str, str]], body: bytes | None = None) -> None:
        if self.writer is None:
            raise BenchError("connection is closed")
        self.writer.write(self.head(method, path, headers, None if body is None else len(body)) + (body or b""))

    async def read_response(self) -> Response:
        reader = self.reader
        assert reader is not None
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError as exc:
            raise BenchError(f"server closed the connection: {exc.partial[:200]!r}") from None
        status_line, *header_lines = head[:-4].split(b"\r\n")
        status = int(status_line.split(b" ", 2)[1])
        headers: dict[bytes, bytes] = {}
        for line in header_lines:
            name, _, value = line.partition(b":")
            headers[name.strip().lower()] = value.strip()
        if b"content-length" in headers:
            body = await reader.readexactly(int(headers[b"content-length"]))
        elif headers.get(b"transfer-encoding", b"").lower() == b"chunked":
            chunks = []
            while True:
                size = int((await reader.readuntil(b"\r\n"))[:-2].split(b";")[0], 16)
                if size == 0:
                    await reader.readuntil(b"\r\n")  # no trailers are expected
                    break
                chunks.append((await reader.readexactly(size + 2))[:-2])
            body = b"".join(chunks)
        elif status in (204, 304) or 100 <= status < 200:
            body = b""
        else:
            body = await reader.read()
            self.close()
            self.server_closed = True
        if headers.get(b"connection", b"").lower() == b"close":
            self.close()
            self.server_closed = True
        return Response(status, headers, body)

    async def request(
        self, method: str, path: str, headers: Iterable[tuple[str, str]], body: bytes | None = None
    ) -> Response:
        if self.writer is None and self.server_closed:
            # The server ended the keep-alive connection (some do: hypercorn after 1,000 requests,
            # with "Connection: close"): open a new one, as any HTTP client would.
            self.server_closed = False
            self.reconnects += 1
            await self.connect()
        self.send(method, path, headers, body)
        return await self.read_response()


POST_HEADERS = (("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream"))


@dataclass
class McpHttpClient:
    """JSON-RPC over one connection to an MCP endpoint, either era.

    Legacy: ``open_session`` (initialize + notifications/initialized) gives an Mcp-Session-Id that
    later requests carry.  Stateless: legacy requests with no session, for servers that keep none
    (the TypeScript SDK's stateless mode).  Modern (2026-07-28): every request carries the ``_meta``
    envelope and the MCP-Protocol-Version / Mcp-Method / Mcp-Name headers, no session.
    """

    conn: HttpConnection
    path: str
    era: str = "legacy"
    session_id: str | None = None
    next_id: int = 0
    extra_headers: tuple[tuple[str, str], ...] = ()  # e.g. Authorization, on every request
    _cache: dict[tuple[str, str | None], list[tuple[str, str]]] = field(default_factory=dict)

    def _headers(self, method: str, name: str | None) -> list[tuple[str, str]]:
        key = (method, name)
        cached = self._cache.get(key)
        if cached is None:
            cached = list(POST_HEADERS)
            if self.era == "modern":
                cached += [("MCP-Protocol-Version", MODERN_VERSION), ("Mcp-Method", method)]
                if name is not None:
                    cached.append(("Mcp-Name", name))
            elif self.session_id is not None:
                cached += [("Mcp-Session-Id", self.session_id), ("MCP-Protocol-Version", LEGACY_VERSION)]
            elif self.era == "stateless":
                cached.append(("MCP-Protocol-Version", LEGACY_VERSION))
            cached += self.extra_headers
            self._cache[key] = cached
        return cached

    def build(
        self, method: str, params: dict[str, Any] | None = None, name: str | None = None
    ) -> tuple[int, list[tuple[str, str]], bytes]:
        self.next_id += 1
        params = dict(params or {})
        if self.era == "modern":
            params["_meta"] = modern_meta()
        body = orjson.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return self.next_id, self._headers(method, name), body

    async def request(
        self, method: str, params: dict[str, Any] | None = None, name: str | None = None, expect_status: int = 200
    ) -> dict[str, Any]:
        request_id, headers, body = self.build(method, params, name)
        response = await self.conn.request("POST", self.path, headers, body)
        if response.status != expect_status:
            raise BenchError(f"{method}: HTTP {response.status} {response.body[:300]!r}")
        return response.answer(request_id)

    async def call(self, tool: str, arguments: dict[str, Any]) -> str:
        return tool_text(await self.request("tools/call", {"name": tool, "arguments": arguments}, name=tool))

    async def open_session(self) -> str:
        request_id, headers, body = self.build("initialize", initialize_params())
        response = await self.conn.request("POST", self.path, headers, body)
        if response.status != 200 or b"mcp-session-id" not in response.headers:
            raise BenchError(f"initialize: HTTP {response.status} {response.headers} {response.body[:300]!r}")
        response.answer(request_id)
        self.session_id = response.headers[b"mcp-session-id"].decode()
        self._cache.clear()
        note = orjson.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})
        answer = await self.conn.request("POST", self.path, self._headers("notifications/initialized", None), note)
        if answer.status != 202:
            raise BenchError(f"notifications/initialized: HTTP {answer.status} {answer.body[:200]!r}")
        return self.session_id

    async def delete_session(self) -> int:
        headers = [("Mcp-Session-Id", self.session_id or ""), ("MCP-Protocol-Version", LEGACY_VERSION)]
        response = await self.conn.request("DELETE", self.path, headers)
        return response.status

    def raw_post(self, method: str, params: dict[str, Any], name: str | None = None) -> bytes:
        """A whole POST of this client (head and body) as bytes, for writing on a raw transport."""
        _, headers, body = self.build(method, params, name)
        return self.conn.head("POST", self.path, headers, len(body)) + body

    def share_session(self, conn: HttpConnection) -> McpHttpClient:
        """Another connection in this client's session (or era)."""
        return McpHttpClient(conn, self.path, self.era, self.session_id, self.next_id + 1_000_000, self.extra_headers)


def modern_post(
    host: str, port: int, path: str, method: str, params: dict[str, Any], request_id: int, name: str | None = None
) -> bytes:
    """A whole 2026-07-28 POST (head and body) as bytes, for clients that write it on a raw transport."""
    params = {**params, "_meta": modern_meta()}
    body = orjson.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
    headers = [
        f"POST {path} HTTP/1.1",
        f"Host: {host}:{port}",
        "Content-Type: application/json",
        "Accept: application/json, text/event-stream",
        f"MCP-Protocol-Version: {MODERN_VERSION}",
        f"Mcp-Method: {method}",
        f"Content-Length: {len(body)}",
    ]
    if name is not None:
        headers.append(f"Mcp-Name: {name}")
    return ("\r\n".join(headers) + "\r\n\r\n").encode() + body


async def connect_client(
    host: str,
    port: int,
    path: str,
    era: str,
    extra_headers: tuple[tuple[str, str], ...] = (),
    tls: ssl.SSLContext | None = None,
) -> McpHttpClient:
    client = McpHttpClient(await HttpConnection(host, port, tls).connect(), path, era, extra_headers=extra_headers)
    if era == "legacy":
        await client.open_session()
    return client


async def wait_for_http(
    host: str, port: int, path: str, deadline: float, proc: subprocess.Popen, tls: ssl.SSLContext | None = None
) -> float:
    """Poll until the endpoint answers an initialize; the time it first did (perf_counter)."""
    while True:
        if proc.poll() is not None:
            raise BenchError(f"server exited with status {proc.returncode} before answering")
        try:
            client = McpHttpClient(await HttpConnection(host, port, tls).connect(), path, "legacy")
        except OSError:
            if perf() > deadline:
                raise BenchError(f"nothing listens on {host}:{port}") from None
            await asyncio.sleep(0.005)
            continue
        try:
            request_id, headers, body = client.build("initialize", initialize_params())
            response = await client.conn.request("POST", path, headers, body)
            if response.status == 401 and b"www-authenticate" in response.headers:
                return perf()  # a server with authorization on answers: it is ready
            response.answer(request_id)
            return perf()
        finally:
            client.conn.close()


async def echo_load(port: int, clients: int, seconds: float, era: str) -> float:
    """Calls per second of ``clients`` clients of ``era``, each a keep-alive connection sending one echo at
    a time (after a warm-up of 0.3 s)."""
    done, stop = 0, 0.0

    async def run_client(client: McpHttpClient) -> None:
        nonlocal done
        n = 0
        while time.perf_counter() < stop:
            n += 1
            if await client.call("echo", {"text": f"hi {n}"}) != f"hi {n}":
                raise RuntimeError("a wrong echo")
            done += 1

    connected = [await connect_client("127.0.0.1", port, "/mcp", era) for _ in range(clients)]
    for phase in (0.3, seconds):  # a warm-up, then the measured phase
        done, started = 0, time.perf_counter()
        stop = started + phase
        await asyncio.gather(*(run_client(client) for client in connected))
    for client in connected:
        client.conn.close()
    return done / (time.perf_counter() - started)


def spawn_startup(
    argv: list[str], *, env: dict[str, str] | None = None, stderr: Any = None, cwd: str | None = None
) -> tuple[float, float]:
    """Spawn a stdio server, have its initialize answered, stop it: (ms from spawn to the answer,
    ms of CPU it spent)."""
    server = StdioServer(argv, env=env, stderr=stderr, cwd=cwd)
    try:
        server.initialize()
        assert server.startup_ms is not None
        return server.startup_ms, cpu_seconds(server.pid) * 1000
    finally:
        server.stop()
