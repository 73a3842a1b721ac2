"""Malformed traffic: bad JSON and UTF-8, wrong types and arguments, oversize bodies, bad headers,
refused batches, modern mismatches."""

from __future__ import annotations

import json
from typing import Any

import httpx
from limits import LEGACY_VERSIONS
from traffic_legacy import LegacyTraffic

from tests.transports.http.client import legacy_headers, modern, rpc


class MalformedTraffic(LegacyTraffic):
    """The malformed scenario: each ``bad_*`` case must get its exact status and error; the session lives on."""

    async def malformed(self) -> None:
        version = self.rng.choice(LEGACY_VERSIONS)
        session_id = await self.initialize(version)
        cases = [name for name in dir(self) if name.startswith("bad_")]
        for name in self.rng.sample(cases, k=self.rng.randint(2, 6)):
            self.note(name)
            await getattr(self, name)(session_id, version)
        await self.legacy_echo(session_id, version)  # bad input never breaks the session
        await self.delete(session_id, version)

    async def bad_json(self, session_id: str, version: str) -> None:
        raw = self.rng.choice(
            (
                b'{"jsonrpc":"2.0","id":1,"method":',
                b"",
                b"{]",
                b"nul",
                b'{"a":1}}',
                b"[" * 5000 + b"]" * 5000,
                b'{"jsonrpc":"2.0","id":1e999999,"method":"ping"}',
            )
        )
        response = await self.post(None, legacy_headers(session_id, version), raw=raw)
        await self.expect_error("bad_json", response, (400,), -32700)

    async def bad_utf8(self, session_id: str, version: str) -> None:
        raw = self.rng.choice(
            (
                b'{"jsonrpc":"2.0","id":2,"method":"ping","x":"\xc3\x28"}',
                b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo",'
                b'"arguments":{"text":"\xff\xfe"}}}',
                b"\xed\xa0\x80",
            )
        )
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
            (
                {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": "no_such_tool"}},
                (200, 400),
                -32602,
                request_id,
            ),
            (
                {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": 7}},
                (200, 400),
                -32602,
                request_id,
            ),
            (
                {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "method": "initialize",
                    "params": {"protocolVersion": version, "capabilities": {}},
                },
                (200, 400),
                -32600,
                request_id,
            ),
        ]
        body, statuses, code, expected_id = self.rng.choice(cases)
        response = await self.post(body, legacy_headers(session_id, version))
        await self.expect_error("wrong_types", response, statuses, code, request_id=expected_id)

    async def bad_arguments(self, session_id: str, version: str) -> None:
        """Arguments failing the tool's schema: an isError result naming the field."""
        request_id = self.next_id()
        name, arguments, field = self.rng.choice(
            (
                ("echo", {"text": 5}, "text"),
                ("echo", {}, "text"),
                ("sleep", {"ms": "soon"}, "ms"),
                ("sleep", {"ms": 1.5}, "ms"),
            )
        )
        body = rpc("tools/call", {"name": name, "arguments": arguments}, request_id)
        response = await self.post(body, legacy_headers(session_id, version))
        message = self.final(response, request_id)
        result = message.get("result") or {}
        text = json.dumps(result)
        if not (result.get("isError") and field in text) and not (
            "error" in message and message["error"]["code"] == -32602
        ):
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
                    yield raw[start : start + 16384]

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
            response = await self.client.post(
                self.url.rsplit("/", 1)[0] + "/elsewhere", json=ping, headers=legacy_headers(session_id, version)
            )
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
