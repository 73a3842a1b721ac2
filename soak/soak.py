#!/usr/bin/env python3
"""Bounded soak test of ``mcptrio serve --plugins bench --transport http``.

Starts the real command on a free 127.0.0.1 port (``--port 0``; the bound URL is read from its
stderr), then runs ``--clients`` simulated clients for ``--seconds`` that mix:

* legacy sessions: initialize (every legacy revision), echo calls with checked answers, batches
  (2025-03-26), sleep calls that complete, sleep calls cancelled by closing the response early
  or by ``notifications/cancelled``, a standalone GET stream ended by DELETE, DELETE;
* modern (2026-07-28) stateless calls: ``_meta`` envelope plus ``Mcp-Method`` / ``Mcp-Name`` /
  ``MCP-Protocol-Version`` headers; echo, tools/list, server/discover, sleeps, early closes;
* abrupt disconnects: mid-headers, mid-body, mid-stream (FIN or RST), before the answer;
* malformed messages: bad JSON, invalid UTF-8, wrong types, oversize bodies (over the
  ``--max-message-size`` set through a ``--config`` TOML file), bad headers, unknown sessions.

Phases: warm-up, then clean-up (DELETE every session still open) and RSS "before"; the timed run,
then clean-up and RSS "after"; then the bench counters (every sleep started was completed or
cancelled), a last echo, the server's stderr (no tracebacks), and SIGTERM (exit 0).

Exit status 0 only when there were no unexpected errors, the server stayed up and exited
cleanly, no sleep handler leaked and RSS grew by at most ``--max-rss-growth-mb``.
Every loop is bounded in count and in time; everything stays on loopback.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import random
import re
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any, Callable

import httpx
import trio

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.http.client import (  # noqa: E402  (the shared request builders and SSE parser)
    CLIENT_INFO,
    is_sse,
    legacy_headers,
    modern,
    notification,
    parse_sse,
    rpc,
)

LEGACY_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN_VERSION = "2026-07-28"
MB = 1024 * 1024

SCENARIO_TIMEOUT = 30.0  # a scenario still running after this is an unexpected error (a hang)
HTTP_TIMEOUT = 15.0  # per read/write/connect of one HTTP request
STREAM_END_TIMEOUT = 5.0  # a cancelled request's stream must end this soon
MAX_SAMPLES = 40  # unexpected errors kept in full for the report (all are counted)
TRACEBACK_MARKERS = ("Traceback (most recent call last)", 'File "/')


# -- bookkeeping ---------------------------------------------------------------------------------------

class Tally:
    """Everything the clients saw, counted; unexpected errors also kept (capped) with details."""

    def __init__(self) -> None:
        self.requests = 0
        self.checked_ok = 0
        self.expected = collections.Counter[str]()
        self.unexpected = collections.Counter[str]()
        self.samples: list[dict[str, Any]] = []
        self.scenarios = collections.Counter[str]()
        self.events = collections.Counter[str]()  # sleeps sent/answered, cancellations, disconnects

    def ok(self, n: int = 1) -> None:
        self.checked_ok += n

    def expect(self, case: str) -> None:
        self.expected[case] += 1

    def bad(self, kind: str, scenario: str, detail: str) -> None:
        self.unexpected[kind] += 1
        if len(self.samples) < MAX_SAMPLES:
            self.samples.append({"kind": kind, "scenario": scenario, "detail": detail[:600]})


class Failed(Exception):
    """A check failed; already recorded in the tally: abandon the rest of this scenario."""


def has_traceback(text: str) -> bool:
    return any(marker in text for marker in TRACEBACK_MARKERS)


def jsonrpc_problem(message: Any) -> str | None:
    """Why ``message`` is not a well-formed JSON-RPC message from a server, or None."""
    if not isinstance(message, dict):
        return f"not a JSON object: {message!r:.200}"
    if message.get("jsonrpc") != "2.0":
        return f'"jsonrpc" is not "2.0": {message!r:.200}'
    if "method" in message:
        return None if isinstance(message["method"], str) else f"bad method: {message!r:.200}"
    if "id" not in message:
        return f"response without id: {message!r:.200}"
    if ("result" in message) == ("error" in message):
        return f"response needs exactly one of result/error: {message!r:.200}"
    if "error" in message:
        error = message["error"]
        if not (isinstance(error, dict) and isinstance(error.get("code"), int) and isinstance(error.get("message"), str)):
            return f"malformed error object: {message!r:.200}"
    return None


def describe(body: Any, raw: bytes | None) -> str:
    """A few words naming a request, for the trail of requests in an error report."""
    if raw is not None:
        return f"raw {raw[:24]!r}"
    if isinstance(body, list):
        return f"batch of {len(body)}"
    if isinstance(body, dict):
        params = body.get("params") if isinstance(body.get("params"), dict) else {}
        return " ".join(str(part) for part in (body.get("method"), params.get("name"), body.get("id")) if part)
    return f"{type(body).__name__} body"


def random_text(rng: random.Random) -> str:
    alphabet = "abcxyz 0123456789 \"\\/\n\t{}[]:,'é中文😀\u2028\u00a0"
    size = rng.choice((0, 1, 8, 64, 512, 2048))
    if rng.random() < 0.03:  # a large answer (ASCII, so its JSON stays well under the message limit)
        return "".join(rng.choice("abcdefghij 0123456789") for _ in range(30_000))
    return "".join(rng.choice(alphabet) for _ in range(size))


def rss_bytes(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


# -- the server under test ----------------------------------------------------------------------------

class Server:
    """``mcptrio serve`` in a subprocess; stderr goes to a log file that is read for the URL."""

    def __init__(self, workdir: Path, max_message_size: int, grace: float) -> None:
        self.workdir = workdir
        self.config = workdir / "soak.toml"
        self.config.write_text(f"[serve.limits]\nmax_message_size = {max_message_size}\n"
                               f"shutdown_grace = {grace}\n")
        self.log_path = workdir / "server-stderr.log"
        self.grace = grace
        self.process: trio.Process | None = None
        self.url = ""
        self.port = 0
        self.exit_status: int | None = None
        self.exit_seconds: float | None = None

    def command(self) -> list[str]:
        script = Path(sys.executable).parent / "mcptrio"
        head = [str(script)] if script.exists() else [
            sys.executable, "-c", "import sys; from mcptrio.cli import main; sys.exit(main())"]
        return head + ["serve", "--plugins", "bench", "--transport", "http", "--host", "127.0.0.1",
                       "--port", "0", "--config", str(self.config)]

    async def start(self) -> None:
        log = open(self.log_path, "wb")
        try:
            self.process = await trio.lowlevel.open_process(
                self.command(), stdin=subprocess.DEVNULL, stdout=log, stderr=log, cwd=str(ROOT))
        finally:
            log.close()
        with trio.move_on_after(30):
            while self.alive():
                found = re.search(r"serving .* at (http://127\.0\.0\.1:(\d+)/\S*)", self.stderr())
                if found:
                    self.url, self.port = found.group(1), int(found.group(2))
                    return
                await trio.sleep(0.05)
        raise RuntimeError(f"server did not start; stderr:\n{self.stderr()[-3000:]}")

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stderr(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def rss(self) -> int | None:
        return rss_bytes(self.process.pid) if self.alive() else None  # type: ignore[union-attr]

    async def stop(self) -> None:
        """SIGTERM; record the exit status and how long it took (killed after grace + 10 s)."""
        process = self.process
        if process is None or process.poll() is not None:
            self.exit_status = process.returncode if process else None
            return
        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        with trio.move_on_after(self.grace + 10):
            await process.wait()
        if process.poll() is None:
            process.kill()
            await process.wait()
            self.exit_status = None  # did not exit by itself
        else:
            self.exit_status = process.returncode
        self.exit_seconds = time.monotonic() - started

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()


# -- one simulated client --------------------------------------------------------------------------------

class SimClient:
    """Runs randomly chosen scenarios until the deadline or ``max_iterations``."""

    def __init__(self, number: int, server: Server, tally: Tally, rng: random.Random,
                 sessions: set[str], max_message_size: int) -> None:
        self.number = number
        self.server = server
        self.url = server.url
        self.tally = tally
        self.rng = rng
        self.sessions = sessions  # every legacy session opened and not yet deleted (shared)
        self.limit = max_message_size
        self.ids = 0
        self.client = httpx.AsyncClient(trust_env=False, timeout=httpx.Timeout(HTTP_TIMEOUT))
        self.scenario = ""
        self.trail: collections.deque[str] = collections.deque(maxlen=4)  # the last requests, for reports
        self.scenarios: list[tuple[Callable[[], Any], int]] = [
            (self.legacy_session, 4), (self.modern_calls, 4), (self.disconnects, 2), (self.malformed, 2)]

    def next_id(self) -> str:
        self.ids += 1
        return f"c{self.number}-{self.ids}"

    async def run(self, deadline: float, max_iterations: int) -> None:
        functions = [f for f, _ in self.scenarios]
        weights = [w for _, w in self.scenarios]
        async with self.client:
            for _ in range(max_iterations):
                if trio.current_time() >= deadline or not self.server.alive():
                    return
                scenario = self.rng.choices(functions, weights)[0]
                self.scenario = scenario.__name__
                self.tally.scenarios[self.scenario] += 1
                try:
                    with trio.fail_after(SCENARIO_TIMEOUT):
                        await scenario()
                except Failed:
                    pass
                except trio.TooSlowError:
                    self.tally.bad("timeout", self.scenario, f"scenario did not finish within {SCENARIO_TIMEOUT} s")
                except (httpx.HTTPError, OSError, trio.BrokenResourceError) as exc:
                    if not self.server.alive():
                        return
                    # A request the server dropped without an answer (connection closed or reset).
                    dropped = "without sending a response" in str(exc)
                    self.report("connection_dropped" if dropped else "transport_error", f"{type(exc).__name__}: {exc}")
                except Exception as exc:  # an answer shaped so oddly that checking it failed
                    self.report("client_exception", "".join(traceback.format_exception_only(type(exc), exc)).strip())

    # -- request helpers ----------------------------------------------------------------------------

    def fail(self, kind: str, detail: str) -> Failed:
        self.report(kind, detail)
        return Failed()

    def report(self, kind: str, detail: str) -> None:
        self.tally.bad(kind, self.scenario, f"{detail} [requests so far: {' > '.join(self.trail)}]")

    def note(self, label: str) -> None:
        self.trail.append(label)

    def count(self, label: str) -> None:
        """One more request sent, named in the trail."""
        self.tally.requests += 1
        self.note(label)

    async def post(self, body: Any, headers: dict[str, str], *, raw: bytes | None = None) -> httpx.Response:
        """POST, read the whole answer, and check what every answer must be (no 5xx, no traceback)."""
        self.count(describe(body, raw))
        content = raw if raw is not None else json.dumps(body).encode()
        response = await self.client.post(self.url, content=content, headers=headers)
        self.check_common(response)
        return response

    def check_common(self, response: httpx.Response) -> None:
        text = response.text
        if response.status_code >= 500:
            raise self.fail("http_5xx", f"HTTP {response.status_code}: {text[:300]}")
        if has_traceback(text):
            raise self.fail("traceback_in_body", text[:600])

    def messages(self, response: httpx.Response) -> list[Any]:
        """The JSON-RPC messages of a whole response, each checked to be complete and well-formed."""
        try:
            if is_sse(response):
                if response.text and not response.text.endswith("\n\n"):
                    raise self.fail("truncated_stream", f"SSE body does not end with a blank line: {response.text[-200:]!r}")
                found = [event.message for event in parse_sse(response.text) if event.data]
            elif response.content:
                found = [response.json()]
            else:
                found = []
        except ValueError as exc:
            raise self.fail("malformed_answer", f"HTTP {response.status_code}: {exc}: {response.text[:300]!r}") from None
        for message in found:
            if isinstance(message, list):
                problems = [p for p in map(jsonrpc_problem, message) if p]
            else:
                problems = [p for p in [jsonrpc_problem(message)] if p]
            if problems:
                raise self.fail("malformed_answer", problems[0])
        return found

    def final(self, response: httpx.Response, request_id: Any, *, status: int = 200) -> dict[str, Any]:
        """The answer to ``request_id``: the last message, a response with that id."""
        if response.status_code != status:
            raise self.fail("wrong_answer", f"expected HTTP {status}, got {response.status_code}: {response.text[:300]}")
        found = self.messages(response)
        if not found or not isinstance(found[-1], dict) or "method" in found[-1] or found[-1].get("id") != request_id:
            raise self.fail("wrong_answer", f"no response to {request_id!r} in {response.text[:300]!r}")
        return found[-1]

    def result(self, response: httpx.Response, request_id: Any) -> dict[str, Any]:
        message = self.final(response, request_id)
        if "result" not in message:
            raise self.fail("wrong_answer", f"error answer to {request_id!r}: {message}")
        return message["result"]

    def check_text(self, result: dict[str, Any], expected: str, what: str, *, modern_era: bool = False) -> None:
        try:
            text = result["content"][0]["text"]
        except (KeyError, IndexError, TypeError):
            raise self.fail("wrong_answer", f"{what}: no text content in {result!r:.300}") from None
        if text != expected or result.get("isError"):
            raise self.fail("wrong_answer", f"{what}: expected {expected[:80]!r}, got {text[:80]!r} ({result!r:.200})")
        if modern_era and result.get("resultType") != "complete":
            raise self.fail("wrong_answer", f"{what}: modern result without resultType complete: {result!r:.300}")
        self.tally.ok()

    # -- legacy sessions ------------------------------------------------------------------------------

    async def initialize(self, version: str) -> str:
        params = {"protocolVersion": version, "capabilities": {}, "clientInfo": CLIENT_INFO}
        request_id = self.next_id()
        response = await self.post(rpc("initialize", params, request_id), legacy_headers(version=None))
        result = self.result(response, request_id)
        session_id = response.headers.get("mcp-session-id")
        if result.get("protocolVersion") != version or not session_id:
            raise self.fail("wrong_answer", f"initialize {version}: {result!r:.300}, session id {session_id!r}")
        self.sessions.add(session_id)
        self.tally.ok()
        done = await self.post(notification("notifications/initialized"), legacy_headers(session_id, version))
        if done.status_code != 202:
            raise self.fail("wrong_answer", f"notifications/initialized: HTTP {done.status_code} {done.text[:200]}")
        self.tally.ok()
        return session_id

    async def delete(self, session_id: str, version: str | None = None) -> None:
        self.count("DELETE")
        response = await self.client.delete(self.url, headers=legacy_headers(session_id, version))
        self.check_common(response)
        if response.status_code != 200:
            raise self.fail("wrong_answer", f"DELETE: HTTP {response.status_code} {response.text[:200]}")
        self.sessions.discard(session_id)
        self.tally.ok()
        # The session is gone: a request naming it gets 404.
        request_id = self.next_id()
        gone = await self.post(rpc("ping", None, request_id), legacy_headers(session_id, version))
        if gone.status_code != 404:
            raise self.fail("wrong_answer", f"request after DELETE: HTTP {gone.status_code} {gone.text[:200]}")
        self.tally.expect("deleted_session_404")

    async def legacy_echo(self, session_id: str, version: str) -> None:
        text = random_text(self.rng)
        request_id = self.next_id()
        body = rpc("tools/call", {"name": "echo", "arguments": {"text": text}}, request_id)
        response = await self.post(body, legacy_headers(session_id, version))
        self.check_text(self.result(response, request_id), text, "legacy echo")

    async def legacy_sleep(self, session_id: str, version: str) -> None:
        ms = self.rng.choice((1, 20, 100, 300))
        request_id = self.next_id()
        self.tally.events["sleeps_sent"] += 1
        body = rpc("tools/call", {"name": "sleep", "arguments": {"ms": ms}}, request_id)
        response = await self.post(body, legacy_headers(session_id, version))
        self.check_text(self.result(response, request_id), f"slept {ms} ms", "legacy sleep")
        self.tally.events["sleeps_answered"] += 1

    async def open_long_sleep(self, headers: dict[str, str], request_id: str, stack: Any) -> httpx.Response:
        """POST sleep(60 s) and wait for the response headers: in auto mode they come once the
        request has run for ``stream_after``, so the handler is certainly in flight."""
        self.count("POST sleep 60000 (to cancel)")
        self.tally.events["sleeps_sent"] += 1
        body = rpc("tools/call", {"name": "sleep", "arguments": {"ms": 60000}}, request_id)
        if headers.get("mcp-protocol-version") == MODERN_VERSION:
            body, headers = modern("tools/call", {"name": "sleep", "arguments": {"ms": 60000}}, request_id)
        response = await stack.enter_async_context(
            self.client.stream("POST", self.url, content=json.dumps(body).encode(), headers=headers))
        if response.status_code != 200 or not is_sse(response):
            await response.aread()
            self.check_common(response)
            raise self.fail("wrong_answer", f"long sleep: HTTP {response.status_code} "
                                            f"{response.headers.get('content-type')} {response.text[:200]}")
        return response

    async def cancel_by_closing(self, headers: dict[str, str]) -> None:
        async with contextlib.AsyncExitStack() as stack:
            response = await self.open_long_sleep(headers, self.next_id(), stack)
            if self.rng.random() < 0.5:
                async for _chunk in response.aiter_raw():
                    break  # a priming event or a probe: the stream is live; now go away
        self.tally.events["cancelled_by_close"] += 1
        self.tally.ok()

    async def cancel_by_notification(self, session_id: str, version: str) -> None:
        request_id = self.next_id()
        async with contextlib.AsyncExitStack() as stack:
            response = await self.open_long_sleep(legacy_headers(session_id, version), request_id, stack)
            cancel = notification("notifications/cancelled", {"requestId": request_id, "reason": "soak"})
            answer = await self.post(cancel, legacy_headers(session_id, version))
            if answer.status_code != 202:
                raise self.fail("wrong_answer", f"notifications/cancelled: HTTP {answer.status_code} {answer.text[:200]}")
            try:
                with trio.fail_after(STREAM_END_TIMEOUT):
                    await response.aread()  # to the end of the chunked body: a cut stream raises
            except trio.TooSlowError:
                raise self.fail("cancel_not_honoured", f"stream of cancelled {request_id} still open after "
                                                       f"{STREAM_END_TIMEOUT} s") from None
            except httpx.HTTPError as exc:
                raise self.fail("truncated_stream", f"stream of cancelled {request_id} cut: {exc!r}") from None
            if response.text and not response.text.endswith("\n\n"):
                raise self.fail("truncated_stream", f"SSE body ends mid-event: {response.text[-200:]!r}")
            for event in parse_sse(response.text):
                message = event.message if event.data else None
                if message is not None and jsonrpc_problem(message):
                    raise self.fail("malformed_answer", jsonrpc_problem(message) or "")
                if isinstance(message, dict) and message.get("id") == request_id and "method" not in message:
                    raise self.fail("answered_after_cancel", f"{request_id} was answered after cancel: {message!r:.200}")
        self.tally.events["cancelled_by_notification"] += 1
        self.tally.ok()

    async def legacy_batch(self, session_id: str, version: str) -> None:
        texts = [random_text(self.rng)[:100] for _ in range(3)]
        ids = [self.next_id() for _ in texts]
        batch = [rpc("tools/call", {"name": "echo", "arguments": {"text": t}}, i) for t, i in zip(texts, ids)]
        batch.append(notification("notifications/progress", {"progressToken": "x", "progress": 1}))
        response = await self.post(batch, legacy_headers(session_id, version))
        found = self.messages(response)
        if response.status_code != 200 or not found or not isinstance(found[-1], list):
            raise self.fail("wrong_answer", f"batch: HTTP {response.status_code} {response.text[:300]}")
        answers = {m.get("id"): m for m in found[-1]}
        if set(answers) != set(ids):
            raise self.fail("wrong_answer", f"batch answered ids {sorted(map(str, answers))}, sent {ids}")
        for text, request_id in zip(texts, ids):
            self.check_text(answers[request_id].get("result") or {}, text, "batch echo")

    async def standalone_stream_then_delete(self, session_id: str, version: str) -> None:
        """GET the session's stream, DELETE the session: the stream must end."""
        self.count("GET stream")
        headers = {"accept": "text/event-stream", "mcp-session-id": session_id, "mcp-protocol-version": version}
        async with self.client.stream("GET", self.url, headers=headers) as response:
            if response.status_code != 200 or not is_sse(response):
                await response.aread()
                self.check_common(response)
                raise self.fail("wrong_answer", f"GET stream: HTTP {response.status_code} {response.text[:200]}")
            await self.delete(session_id, version)
            try:
                with trio.fail_after(STREAM_END_TIMEOUT):
                    async for _chunk in response.aiter_raw():
                        pass
            except trio.TooSlowError:
                raise self.fail("stream_not_ended", f"GET stream still open {STREAM_END_TIMEOUT} s after DELETE") from None
            except httpx.HTTPError:
                pass  # the server closed the connection: ended too
        self.tally.ok()

    async def legacy_session(self) -> None:
        version = self.rng.choice(LEGACY_VERSIONS)
        session_id = await self.initialize(version)
        steps = [self.legacy_echo] * 4 + [self.legacy_sleep] * 2 + [self.tools_list_legacy]
        for _ in range(self.rng.randint(2, 8)):
            await self.rng.choice(steps)(session_id, version)
        if version == "2025-03-26":
            await self.legacy_batch(session_id, version)
        roll = self.rng.random()
        if roll < 0.35:
            await self.cancel_by_closing(legacy_headers(session_id, version))
        elif roll < 0.7:
            await self.cancel_by_notification(session_id, version)
        await self.legacy_echo(session_id, version)  # the session lives on after a cancel
        roll = self.rng.random()
        if roll < 0.15:
            await self.standalone_stream_then_delete(session_id, version)
        elif roll < 0.25:
            self.tally.events["sessions_left_open"] += 1  # deleted by the clean-up after the phase
        else:
            await self.delete(session_id, version)

    async def tools_list_legacy(self, session_id: str, version: str) -> None:
        request_id = self.next_id()
        response = await self.post(rpc("tools/list", {}, request_id), legacy_headers(session_id, version))
        names = {tool.get("name") for tool in self.result(response, request_id).get("tools", [])}
        if not {"echo", "sleep", "sleep_stats"} <= names:
            raise self.fail("wrong_answer", f"tools/list: {sorted(map(str, names))}")
        self.tally.ok()

    # -- modern stateless calls --------------------------------------------------------------------------

    async def modern_call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        request_id = self.next_id()
        body, headers = modern(method, params, request_id)
        response = await self.post(body, headers)
        result = self.result(response, request_id)
        meta = result.get("_meta") or {}
        if "io.modelcontextprotocol/serverInfo" not in meta or result.get("resultType") != "complete":
            raise self.fail("wrong_answer", f"modern {method}: result without serverInfo/resultType: {result!r:.300}")
        return result

    async def modern_calls(self) -> None:
        for _ in range(self.rng.randint(2, 8)):
            roll = self.rng.random()
            if roll < 0.55:
                text = random_text(self.rng)
                result = await self.modern_call("tools/call", {"name": "echo", "arguments": {"text": text}})
                self.check_text(result, text, "modern echo", modern_era=True)
            elif roll < 0.7:
                ms = self.rng.choice((1, 20, 100, 300))
                self.tally.events["sleeps_sent"] += 1
                result = await self.modern_call("tools/call", {"name": "sleep", "arguments": {"ms": ms}})
                self.check_text(result, f"slept {ms} ms", "modern sleep", modern_era=True)
                self.tally.events["sleeps_answered"] += 1
            elif roll < 0.8:
                result = await self.modern_call("server/discover", {})
                if MODERN_VERSION not in result.get("supportedVersions", []):
                    raise self.fail("wrong_answer", f"server/discover: {result!r:.300}")
                self.tally.ok()
            elif roll < 0.9:
                result = await self.modern_call("tools/list", {})
                if "echo" not in {t.get("name") for t in result.get("tools", [])}:
                    raise self.fail("wrong_answer", f"modern tools/list: {result!r:.300}")
                self.tally.ok()
            else:
                await self.cancel_by_closing({"mcp-protocol-version": MODERN_VERSION})

    # -- abrupt disconnects ----------------------------------------------------------------------------

    def raw_request(self, body: bytes, headers: dict[str, str], *, content_length: int | None = None) -> bytes:
        lines = ["POST /mcp HTTP/1.1", f"Host: 127.0.0.1:{self.server.port}",
                 f"Content-Length: {len(body) if content_length is None else content_length}"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body

    async def raw_send_then_close(self, data: bytes, *, read_until: bytes | None = None, rst: bool = False) -> bytes:
        """Open a TCP connection, send ``data``, optionally read until ``read_until``, then close
        (with RST when ``rst``: SO_LINGER 0).  Returns what was read."""
        self.count("raw TCP")
        self.tally.events["disconnects"] += 1
        stream = await trio.open_tcp_stream("127.0.0.1", self.server.port)
        received = b""
        try:
            await stream.send_all(data)
            if read_until is not None:
                with trio.fail_after(10):
                    while read_until not in received:
                        chunk = await stream.receive_some(65536)
                        if not chunk:
                            break
                        received += chunk
            if rst:
                stream.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        finally:
            await stream.aclose()
        return received

    async def disconnects(self) -> None:
        kind = self.rng.choice(("mid_headers", "mid_body", "mid_stream", "mid_stream_rst",
                                "unread_answer", "abandon_legacy", "abandon_modern"))
        self.note(f"disconnect {kind}")
        body, headers = modern("tools/call", {"name": "sleep", "arguments": {"ms": 60000}}, self.next_id())
        payload = json.dumps(body).encode()
        if kind == "mid_headers":
            full = self.raw_request(payload, headers)
            await self.raw_send_then_close(full[: self.rng.randint(5, full.index(b"\r\n\r\n"))])
        elif kind == "mid_body":
            full = self.raw_request(payload, headers)
            head = full.index(b"\r\n\r\n") + 4
            await self.raw_send_then_close(full[: head + self.rng.randint(0, len(payload) - 1)],
                                           rst=self.rng.random() < 0.5)
        elif kind in ("mid_stream", "mid_stream_rst"):
            self.tally.events["sleeps_sent"] += 1
            got = await self.raw_send_then_close(self.raw_request(payload, headers), read_until=b"\r\n\r\n",
                                                 rst=kind == "mid_stream_rst")
            if not got.startswith(b"HTTP/1.1 200") or b"text/event-stream" not in got:
                raise self.fail("wrong_answer", f"raw long sleep: {got[:300]!r}")
            self.tally.ok()
        elif kind == "unread_answer":
            body, headers = modern("tools/call", {"name": "echo", "arguments": {"text": "x" * 2000}}, self.next_id())
            await self.raw_send_then_close(self.raw_request(json.dumps(body).encode(), headers),
                                           rst=self.rng.random() < 0.5)
        else:
            # httpx gives up on the request before any answer (the connection is closed).
            if kind == "abandon_legacy":
                version = self.rng.choice(LEGACY_VERSIONS)
                session_id = await self.initialize(version)
                body = rpc("tools/call", {"name": "sleep", "arguments": {"ms": 60000}}, self.next_id())
                headers = legacy_headers(session_id, version)
            self.count("POST sleep 60000 (abandoned)")
            self.tally.events["sleeps_sent"] += 1
            self.tally.events["disconnects"] += 1
            with trio.move_on_after(self.rng.uniform(0.02, 0.2)) as scope:
                response = await self.client.post(self.url, json=body, headers=headers)
            if not scope.cancelled_caught:
                raise self.fail("wrong_answer", f"sleep(60 s) answered at once: {response.status_code} {response.text[:200]}")
            if kind == "abandon_legacy":
                await self.legacy_echo(session_id, version)
                await self.delete(session_id, version)

    # -- malformed messages -------------------------------------------------------------------------------

    async def malformed(self) -> None:
        version = self.rng.choice(LEGACY_VERSIONS)
        session_id = await self.initialize(version)
        cases = [name for name in dir(self) if name.startswith("bad_")]
        for name in self.rng.sample(cases, k=self.rng.randint(2, 6)):
            self.note(name)
            await getattr(self, name)(session_id, version)
        await self.legacy_echo(session_id, version)  # bad input never breaks the session
        await self.delete(session_id, version)

    async def expect_error(self, case: str, response: httpx.Response, statuses: tuple[int, ...],
                           code: int | None, *, text: str | None = None, json_body: bool = True,
                           request_id: Any = None) -> None:
        """Bad input must get one of ``statuses`` and (when JSON) a well-formed JSON-RPC error."""
        if response.status_code not in statuses:
            raise self.fail("wrong_answer", f"{case}: expected HTTP {statuses}, got {response.status_code}: "
                                            f"{response.text[:300]}")
        if json_body:
            found = self.messages(response)
            if len(found) != 1 or not isinstance(found[0], dict) or "error" not in found[0]:
                raise self.fail("wrong_answer", f"{case}: expected one JSON-RPC error, got {response.text[:300]}")
            error = found[0]["error"]
            if code is not None and error["code"] != code:
                raise self.fail("wrong_answer", f"{case}: expected code {code}, got {error}")
            if found[0].get("id") != request_id:
                raise self.fail("wrong_answer", f"{case}: expected id {request_id!r}, got {found[0].get('id')!r}")
            if text is not None and text not in error["message"]:
                raise self.fail("wrong_answer", f"{case}: expected {text!r} in {error['message']!r}")
        self.tally.expect(case)

    async def bad_json(self, session_id: str, version: str) -> None:
        raw = self.rng.choice((b'{"jsonrpc":"2.0","id":1,"method":', b"", b"{]", b"nul", b'{"a":1}}',
                               b"[" * 5000 + b"]" * 5000, b'{"jsonrpc":"2.0","id":1e999999,"method":"ping"}'))
        response = await self.post(None, legacy_headers(session_id, version), raw=raw)
        await self.expect_error("bad_json", response, (400,), -32700)

    async def bad_utf8(self, session_id: str, version: str) -> None:
        raw = self.rng.choice((b'{"jsonrpc":"2.0","id":2,"method":"ping","x":"\xc3\x28"}',
                               b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo",'
                               b'"arguments":{"text":"\xff\xfe"}}}', b"\xed\xa0\x80"))
        response = await self.post(None, legacy_headers(session_id, version), raw=raw)
        await self.expect_error("invalid_utf8", response, (400,), -32700)

    async def bad_types(self, session_id: str, version: str) -> None:
        request_id = self.next_id()
        cases = [
            ({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}, (400,), -32600, None),
            ({"jsonrpc": "2.0", "id": [1], "method": "ping"}, (400,), -32600, None),
            ({"jsonrpc": "2.0", "id": request_id, "method": "ping", "params": [1, 2]}, (200, 400), -32602, request_id),
            ({"jsonrpc": "1.0", "id": request_id, "method": "ping"}, (400,), -32600, request_id),
            ({"jsonrpc": "2.0", "id": request_id, "method": 42}, (400,), -32600, request_id),
            ("just a string", (400,), -32600, None),
            (12345, (400,), -32600, None),
            (None, (400,), -32600, None),
            ({"jsonrpc": "2.0", "id": request_id, "method": "no/such/method"}, (200, 400), -32601, request_id),
            ({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": "no_such_tool"}},
             (200, 400), -32602, request_id),
            ({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": 7}},
             (200, 400), -32602, request_id),
            ({"jsonrpc": "2.0", "id": request_id, "method": "initialize",
              "params": {"protocolVersion": version, "capabilities": {}}}, (200, 400), -32600, request_id),
        ]
        body, statuses, code, expected_id = self.rng.choice(cases)
        response = await self.post(body, legacy_headers(session_id, version))
        await self.expect_error("wrong_types", response, statuses, code, request_id=expected_id)

    async def bad_arguments(self, session_id: str, version: str) -> None:
        """Arguments failing the tool's schema: an isError result naming the field."""
        request_id = self.next_id()
        name, arguments, field = self.rng.choice((("echo", {"text": 5}, "text"), ("echo", {}, "text"),
                                                  ("sleep", {"ms": "soon"}, "ms"), ("sleep", {"ms": 1.5}, "ms")))
        body = rpc("tools/call", {"name": name, "arguments": arguments}, request_id)
        response = await self.post(body, legacy_headers(session_id, version))
        message = self.final(response, request_id)
        result = message.get("result") or {}
        text = json.dumps(result)
        if not (result.get("isError") and field in text) and not ("error" in message and message["error"]["code"] == -32602):
            raise self.fail("wrong_answer", f"bad arguments {arguments}: {message!r:.300}")
        self.tally.expect("bad_arguments")

    async def bad_oversize(self, session_id: str, version: str) -> None:
        body = rpc("tools/call", {"name": "echo", "arguments": {"text": "x" * (self.limit + 100)}}, self.next_id())
        raw = json.dumps(body).encode()
        headers = legacy_headers(session_id, version)
        self.count("POST oversize")
        if self.rng.random() < 0.5:
            sent = raw  # with Content-Length: refused before reading
            case = "oversize_declared"
        else:
            async def chunks() -> Any:  # chunked, no length: refused once the limit is passed
                for start in range(0, len(raw), 16384):
                    yield raw[start:start + 16384]
            sent = chunks()  # type: ignore[assignment]
            case = "oversize_chunked"
        try:
            response = await self.client.post(self.url, content=sent, headers=headers)
        except (httpx.WriteError, httpx.RemoteProtocolError, httpx.ReadError) as exc:
            # The server answered 413 and closed before the whole body was written: also a refusal.
            self.tally.expect(f"{case}_connection_closed")
            self.tally.events[f"oversize_{type(exc).__name__}"] += 1
            return
        self.check_common(response)
        await self.expect_error(case, response, (413,), -32600, text="exceeds the limit")

    async def bad_http(self, session_id: str, version: str) -> None:
        """Bad media types, missing or unknown sessions, wrong methods and paths, bad Host/Origin."""
        request_id = self.next_id()
        ping = rpc("ping", None, request_id)
        choice = self.rng.randrange(9)
        if choice == 0:
            response = await self.post(ping, legacy_headers(session_id, version, **{"content-type": "text/plain"}))
            await self.expect_error("unsupported_media_type", response, (415,), -32600)
        elif choice == 1:
            response = await self.post(ping, legacy_headers(session_id, version, accept="text/html"))
            await self.expect_error("not_acceptable", response, (406,), -32600)
        elif choice == 2:
            response = await self.post(ping, legacy_headers("no-such-session", version))
            await self.expect_error("unknown_session", response, (404,), -32600, request_id=request_id)
        elif choice == 3:
            response = await self.post(ping, legacy_headers(None, version))
            await self.expect_error("missing_session", response, (400,), -32600, request_id=request_id)
        elif choice == 4:
            response = await self.post(ping, legacy_headers(session_id, "1999-01-01"))
            await self.expect_error("bad_protocol_version_header", response, (400,), -32600, request_id=request_id)
        elif choice == 5:
            self.count("PUT")
            response = await self.client.put(self.url, content=b"{}", headers=legacy_headers(session_id, version))
            self.check_common(response)
            await self.expect_error("method_not_allowed", response, (405,), None, json_body=False)
        elif choice == 6:
            self.count("POST wrong path")
            response = await self.client.post(self.url.rsplit("/", 1)[0] + "/elsewhere", json=ping,
                                              headers=legacy_headers(session_id, version))
            self.check_common(response)
            await self.expect_error("wrong_path", response, (404,), None, json_body=False)
        elif choice == 7:
            response = await self.post(ping, legacy_headers(session_id, version, host="evil.example"))
            await self.expect_error("bad_host", response, (421,), -32600)
        else:
            response = await self.post(ping, legacy_headers(session_id, version, origin="http://evil.example"))
            await self.expect_error("bad_origin", response, (403,), -32600)

    async def bad_batch(self, session_id: str, version: str) -> None:
        batch = [rpc("ping", None, self.next_id())]
        if version == "2025-03-26":
            batch = []  # an empty batch is refused even where batches are allowed
        response = await self.post(batch, legacy_headers(session_id, version))
        await self.expect_error("refused_batch", response, (400,), -32600)

    async def bad_modern(self, session_id: str, version: str) -> None:
        """2026-07-28 requests whose headers or envelope are wrong."""
        request_id = self.next_id()
        params = {"name": "echo", "arguments": {"text": "hi"}}
        choice = self.rng.randrange(5)
        if choice == 0:
            body, headers = modern("tools/call", params, request_id, headers={"mcp-name": "sleep"})
            case, code = "header_mismatch_name", -32020
        elif choice == 1:
            body, headers = modern("tools/call", params, request_id, omit=("mcp-method",))
            case, code = "header_missing_method", -32020
        elif choice == 2:
            body, headers = modern("tools/call", params, request_id, headers={"mcp-method": "tools/list"})
            case, code = "header_mismatch_method", -32020
        elif choice == 3:
            body, headers = modern("tools/call", params, request_id, version="2099-01-01")
            case, code = "unsupported_version", -32022
        else:
            body, headers = modern("tools/call", params, request_id)
            del body["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]
            case, code = "missing_capabilities", -32602
        response = await self.post(body, headers)
        await self.expect_error(case, response, (400,), code, request_id=request_id)


# -- phases ------------------------------------------------------------------------------------------------

async def run_phase(server: Server, tally: Tally, seconds: float, clients: int, seed: int, sessions: set[str],
                    max_message_size: int, max_iterations: int) -> None:
    deadline = trio.current_time() + seconds
    with trio.move_on_after(seconds + SCENARIO_TIMEOUT + 10) as scope:
        async with trio.open_nursery() as nursery:
            for number in range(clients):
                sim = SimClient(number, server, tally, random.Random(seed * 1000 + number), sessions, max_message_size)
                nursery.start_soon(sim.run, deadline, max_iterations)
    if scope.cancelled_caught:
        tally.bad("timeout", "phase", "clients did not stop after the deadline")


async def call_stats(url: str) -> dict[str, int] | None:
    body, headers = modern("tools/call", {"name": "sleep_stats", "arguments": {}}, "stats")
    async with httpx.AsyncClient(trust_env=False, timeout=HTTP_TIMEOUT) as client:
        try:
            response = await client.post(url, json=body, headers=headers)
            return json.loads(response.json()["result"]["content"][0]["text"])
        except (httpx.HTTPError, ValueError, KeyError, IndexError, TypeError):
            return None


async def clean_up(server: Server, tally: Tally, sessions: set[str], settle: float) -> dict[str, Any]:
    """DELETE every session left open; wait for every sleep handler to end; settle; RSS."""
    async with httpx.AsyncClient(trust_env=False, timeout=HTTP_TIMEOUT) as client:
        for session_id in sorted(sessions):
            try:
                response = await client.delete(server.url, headers={"mcp-session-id": session_id})
            except httpx.HTTPError as exc:
                tally.bad("transport_error", "clean_up", f"DELETE: {exc}")
                continue
            if response.status_code != 200:
                tally.bad("wrong_answer", "clean_up", f"DELETE of a session left open: HTTP {response.status_code}")
        deleted = len(sessions)
        sessions.clear()
    stats = None
    with trio.move_on_after(15):
        while True:
            stats = await call_stats(server.url)
            if stats is not None and stats["started"] == stats["completed"] + stats["cancelled"]:
                break
            await trio.sleep(0.25)
    await trio.sleep(settle)
    return {"sessions_deleted": deleted, "stats": stats, "rss": server.rss()}


async def soak(args: argparse.Namespace) -> dict[str, Any]:
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    tally = Tally()
    sessions: set[str] = set()
    report: dict[str, Any] = {"seconds": args.seconds, "warmup": args.warmup, "clients": args.clients, "seed": seed,
                              "max_message_size": args.max_message_size}
    with tempfile.TemporaryDirectory(prefix="mcptrio-soak-") as workdir:
        server = Server(Path(workdir), args.max_message_size, args.grace)
        try:
            await server.start()
            report["url"] = server.url
            report["pid"] = server.process.pid  # type: ignore[union-attr]
            progress(args, f"server {server.url} (pid {report['pid']}); seed {seed}; warm-up {args.warmup:g} s")
            samples: list[tuple[float, int]] = []
            async with trio.open_nursery() as nursery:
                nursery.start_soon(sample_rss, server, samples)
                await run_phase(server, tally, args.warmup, args.clients, seed, sessions, args.max_message_size,
                                args.max_iterations)
                before = await clean_up(server, tally, sessions, args.settle)
                warm_requests = tally.requests
                progress(args, f"warm-up done ({warm_requests} requests); RSS before {mb(before['rss'])}; "
                               f"soaking {args.seconds:g} s with {args.clients} clients")
                started = time.monotonic()
                await run_phase(server, tally, args.seconds, args.clients, seed + 1, sessions, args.max_message_size,
                                args.max_iterations)
                report["elapsed"] = round(time.monotonic() - started, 1)
                after = await clean_up(server, tally, sessions, args.settle)
                nursery.cancel_scope.cancel()
            report["alive_at_end"] = server.alive()
            last_echo = await final_echo(server.url) if server.alive() else False
            await server.stop()
            stderr = server.stderr()
        finally:
            server.kill()
    report.update(summarise(args, tally, before, after, samples, last_echo, server, stderr, warm_requests))
    return report


async def final_echo(url: str) -> bool:
    body, headers = modern("tools/call", {"name": "echo", "arguments": {"text": "still here"}}, "last")
    async with httpx.AsyncClient(trust_env=False, timeout=HTTP_TIMEOUT) as client:
        try:
            response = await client.post(url, json=body, headers=headers)
            return response.json()["result"]["content"][0]["text"] == "still here"
        except (httpx.HTTPError, ValueError, KeyError, IndexError, TypeError):
            return False


async def sample_rss(server: Server, samples: list[tuple[float, int]]) -> None:
    started = trio.current_time()
    while server.alive():
        rss = server.rss()
        if rss is not None:
            samples.append((round(trio.current_time() - started, 1), rss))
        await trio.sleep(2)


def summarise(args: argparse.Namespace, tally: Tally, before: dict[str, Any], after: dict[str, Any],
              samples: list[tuple[float, int]], last_echo: bool, server: Server, stderr: str,
              warm_requests: int) -> dict[str, Any]:
    failures: list[str] = []
    stats = after["stats"]
    # Traffic-level problems.
    unexpected = sum(tally.unexpected.values())
    if unexpected:
        failures.append(f"{unexpected} unexpected error(s)")
    # The server: up all along, no traceback on stderr, a clean exit on SIGTERM.
    tracebacks = stderr.count("Traceback (most recent call last)")
    if not after.get("rss") or not last_echo:
        failures.append("server died or stopped answering")
    if tracebacks:
        failures.append(f"{tracebacks} traceback(s) on the server's stderr")
    if server.exit_status != 0:
        failures.append(f"server exit status after SIGTERM: {server.exit_status} (None: had to be killed)")
    # No leaked handler: every sleep started was completed or cancelled.
    leak_ok = stats is not None and stats["started"] == stats["completed"] + stats["cancelled"]
    if not leak_ok:
        failures.append(f"sleep handlers leaked (or stats unavailable): {stats}")
    elif stats["started"] > tally.events["sleeps_sent"] or stats["completed"] < tally.events["sleeps_answered"]:
        failures.append(f"sleep counters disagree with the clients: {stats} vs {dict(tally.events)}")
    # Memory.
    rss_before, rss_after = before.get("rss"), after.get("rss")
    growth = (rss_after - rss_before) if rss_before and rss_after else None
    bound = args.max_rss_growth_mb * MB
    if growth is None:
        failures.append("RSS not measured")
    elif growth > bound:
        failures.append(f"RSS grew by {growth / MB:.1f} MB (bound {args.max_rss_growth_mb:g} MB)")
    server_lines = [line for line in stderr.splitlines() if line.strip()]
    return {
        "requests": tally.requests,
        "requests_warmup": warm_requests,
        "checked_ok": tally.checked_ok,
        "expected_errors": sum(tally.expected.values()),
        "expected_by_case": dict(sorted(tally.expected.items())),
        "unexpected_errors": unexpected,
        "unexpected_by_kind": dict(tally.unexpected),
        "unexpected_samples": tally.samples,
        "scenarios": dict(tally.scenarios),
        "events": dict(sorted(tally.events.items())),
        "sleep_stats": stats,
        "no_leaked_handlers": leak_ok,
        "rss_before": rss_before,
        "rss_after": rss_after,
        "rss_growth": growth,
        "rss_bound": bound,
        "rss_samples": samples,
        "sessions_deleted_at_cleanup": before["sessions_deleted"] + after["sessions_deleted"],
        "server_alive_at_end": bool(rss_after) and last_echo,
        "server_stderr_tracebacks": tracebacks,
        "server_stderr_tail": server_lines[-30:],
        "server_exit_status": server.exit_status,
        "server_exit_seconds": None if server.exit_seconds is None else round(server.exit_seconds, 2),
        "failures": failures,
        "passed": not failures,
    }


def mb(value: int | None) -> str:
    return "n/a" if value is None else f"{value / MB:.1f} MB"


def render(report: dict[str, Any]) -> str:
    events = report["events"]
    stats = report["sleep_stats"] or {}
    growth = report["rss_growth"]
    lines = [
        f"mcptrio soak: {report['elapsed']} s + {report['warmup']:g} s warm-up, {report['clients']} clients, "
        f"seed {report['seed']}, {report['url']}",
        f"  requests sent        {report['requests']:>8}   ({report['requests_warmup']} in warm-up; scenarios "
        + ", ".join(f"{k} {v}" for k, v in sorted(report["scenarios"].items())) + ")",
        f"  answers checked ok   {report['checked_ok']:>8}",
        f"  expected errors      {report['expected_errors']:>8}   ({len(report['expected_by_case'])} kinds of bad input,"
        f" max-message-size {report['max_message_size']})",
        f"  cancellations        close {events.get('cancelled_by_close', 0)}, notification "
        f"{events.get('cancelled_by_notification', 0)}; abrupt disconnects {events.get('disconnects', 0)}",
        f"  UNEXPECTED errors    {report['unexpected_errors']:>8}   {report['unexpected_by_kind'] or ''}",
        f"  sleep handlers       started {stats.get('started')} = completed {stats.get('completed')} + cancelled "
        f"{stats.get('cancelled')}: {'no leak' if report['no_leaked_handlers'] else 'LEAK'}",
        f"  server RSS           before {mb(report['rss_before'])} -> after {mb(report['rss_after'])} "
        f"({'n/a' if growth is None else f'{growth / MB:+.1f} MB'}; bound +{report['rss_bound'] / MB:g} MB)",
        f"  server               {'alive' if report['server_alive_at_end'] else 'DEAD'}; stderr tracebacks "
        f"{report['server_stderr_tracebacks']}; SIGTERM -> exit {report['server_exit_status']} in "
        f"{report['server_exit_seconds']} s",
    ]
    for sample in report["unexpected_samples"][:8]:
        lines.append(f"    ! {sample['kind']} in {sample['scenario']}: {sample['detail'][:200]}")
    if report["server_stderr_tracebacks"]:
        lines.append("  server stderr (tail):")
        lines += [f"    | {line[:160]}" for line in report["server_stderr_tail"][-12:]]
    lines.append("RESULT: " + ("PASS" if report["passed"] else "FAIL: " + "; ".join(report["failures"])))
    return "\n".join(lines)


def progress(args: argparse.Namespace, text: str) -> None:
    if not args.quiet:
        print(f"soak: {text}", file=sys.stderr, flush=True)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Bounded soak test of mcptrio serve --transport http.")
    parser.add_argument("--seconds", type=float, default=60.0, help="length of the timed run (default 60)")
    parser.add_argument("--warmup", type=float, default=None,
                        help="warm-up before RSS 'before' is measured (default min(5, seconds/4))")
    parser.add_argument("--clients", type=int, default=16, help="concurrent simulated clients (default 16)")
    parser.add_argument("--max-message-size", type=int, default=65536,
                        help="server's message limit, set through a --config file (default 65536)")
    parser.add_argument("--max-rss-growth-mb", type=float, default=30.0,
                        help="fail when RSS after exceeds RSS before by more than this (default 30)")
    parser.add_argument("--max-iterations", type=int, default=100_000, help="scenarios per client per phase, at most")
    parser.add_argument("--grace", type=float, default=2.0, help="server shutdown_grace (default 2)")
    parser.add_argument("--settle", type=float, default=2.0, help="seconds to wait before measuring RSS (default 2)")
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: random, printed)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON on stdout")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    args = parser.parse_args(argv)
    if args.warmup is None:
        args.warmup = min(5.0, args.seconds / 4)
    if args.seconds <= 0 or args.clients <= 0 or args.max_message_size < 1024:
        parser.error("--seconds and --clients must be positive, --max-message-size at least 1024")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    report = trio.run(soak, args)
    if args.json:
        print(json.dumps(report, indent=2))
        print(render(report), file=sys.stderr)
    else:
        print(render(report))
    return 0 if report["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
