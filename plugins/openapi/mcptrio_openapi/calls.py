"""One operation called over HTTP: the tool's arguments placed in the path, query, headers, cookies and
body as the document says, sent through the one pooled ``httpx.AsyncClient``, and the answer made a
tool result: JSON as ``structuredContent``, other media as text, image, audio or a blob.

A failure is an ``isError`` result with what went wrong (the HTTP status and the RFC 9457 problem
detail, a timeout, an answer too large), never a traceback.  A cancelled MCP call cancels the
request: the client runs under Trio, so the cancellation reaches the socket.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urljoin

import attrs
import httpx

from .credentials import Credentials
from .operations import FORM_MEDIA, JSON_MEDIA, OCTETS, Argument, Operation
from .upstream import CALLER_HEADERS

if TYPE_CHECKING:
    from mcptrio import Context

TEXT_MEDIA = ("text/", "application/xml", "application/javascript", "application/x-yaml", "application/yaml")
DETAIL_CHARS = 2000  # of an error's body, in its message


class CallFailed(Exception):
    """The call did not get a usable answer: the message says why, in one line."""


@attrs.define
class Answer:
    status: int
    reason: str
    media: str
    body: bytes
    url: str


@attrs.define
class Caller:
    """What every call shares: the API's base URL, the credentials, the limits and the pooled client
    (opened by the plugin's lifespan)."""

    base_url: str
    credentials: Credentials
    timeout: float
    max_response_bytes: int
    client: httpx.AsyncClient | None = None

    def request(self, operation: Operation, arguments: Mapping[str, Any]) -> httpx.Request:
        """The HTTP request of ``operation`` with the tool's ``arguments``."""
        path = operation.path
        query: list[tuple[str, str | int | float | bool | None]] = list(self.credentials.query.items())
        headers: dict[str, str] = {**self.credentials.headers, **CALLER_HEADERS.get()}
        cookies: dict[str, str] = dict(self.credentials.cookies)
        body: Any = None
        fields: dict[str, Any] = {}
        for argument in operation.arguments:
            if argument.name not in arguments:
                continue
            value = arguments[argument.name]
            if argument.location == "path":
                path = path.replace("{" + argument.wire_name + "}", quote(_simple(value, argument), safe=","))
            elif argument.location == "query":
                query.extend(_query(argument, value))
            elif argument.location == "header":
                headers[argument.wire_name] = _simple(value, argument)
            elif argument.location == "cookie":
                cookies[argument.wire_name] = _simple(value, argument)
            elif argument.location == "body":
                body = value
            else:
                fields[argument.wire_name] = value
        if fields:
            body = fields
        if cookies:
            headers["Cookie"] = "; ".join(f"{name}={value}" for name, value in cookies.items())
        url = _base(operation.server, self.base_url).rstrip("/") + path
        if operation.body_media == FORM_MEDIA and body is not None:
            return httpx.Request(operation.method, url, params=query, headers=headers, data=_form(body))
        if operation.body_media is not None and (
            operation.body_media == OCTETS or operation.body_media.startswith("text/")
        ):
            headers["Content-Type"] = operation.body_media
            raw = str(body or "")
            content = base64.b64decode(raw) if operation.body_media == OCTETS else raw.encode()
            return httpx.Request(operation.method, url, params=query, headers=headers, content=content)
        if body is not None or operation.body_media is not None and operation.method in ("POST", "PUT", "PATCH"):
            headers.setdefault("Content-Type", "application/json")
            content = json.dumps(body if body is not None else {}).encode()
            return httpx.Request(operation.method, url, params=query, headers=headers, content=content)
        return httpx.Request(operation.method, url, params=query, headers=headers)

    async def send(self, request: httpx.Request, ctx: Context | None = None) -> Answer:
        """The answer to ``request``, read whole up to the size limit (progress reported as it comes)."""
        if self.client is None:
            raise CallFailed("the API client is not running (the server is not serving)")
        try:
            response = await self.client.send(request, stream=True)
            try:
                return await self._read(response, ctx)
            finally:
                await response.aclose()
        except httpx.TimeoutException:
            raise CallFailed(
                f"{request.method} {request.url.path}: the API did not answer within {self.timeout:g} s"
            ) from None
        except httpx.HTTPError as exc:
            raise CallFailed(f"{request.method} {request.url.path}: cannot reach the API: {_reason(exc)}") from None

    async def _read(self, response: httpx.Response, ctx: Context | None) -> Answer:
        declared = response.headers.get("content-length", "")
        total = int(declared) if declared.isdigit() else None
        if total is not None and total > self.max_response_bytes:
            raise CallFailed(self._too_large(response, total))
        chunks: list[bytes] = []
        size = reported = 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > self.max_response_bytes:
                raise CallFailed(self._too_large(response, size))
            chunks.append(chunk)
            if ctx is not None and total and size - reported >= max(total // 20, 65536):
                reported = size
                await ctx.progress(size, total, "downloading")
        media = response.headers.get("content-type", "").split(";")[0].strip().lower()
        reason = response.reason_phrase or httpx.codes.get_reason_phrase(response.status_code)
        return Answer(response.status_code, reason, media, b"".join(chunks), str(response.url))

    def _too_large(self, response: httpx.Response, size: int) -> str:
        return (
            f"{response.request.method} {response.request.url.path}: the answer is larger than "
            f"max_response_bytes ({size} > {self.max_response_bytes} bytes)"
        )


def _base(server: str | None, base_url: str) -> str:
    """An operation's own server: an absolute URL as it is, a relative one from the API's base URL."""
    if server is None:
        return base_url
    if server.startswith(("http://", "https://")):
        return server
    return urljoin(base_url.rstrip("/") + "/", server.lstrip("/"))


def _reason(exc: httpx.HTTPError) -> str:
    return str(exc) or type(exc).__name__


def _simple(value: Any, argument: Argument) -> str:
    """A value in the ``simple`` (and cookie ``form``) style: lists and objects comma-separated."""
    if argument.as_json:
        return json.dumps(value)
    if isinstance(value, list):
        return ",".join(_scalar(item) for item in value)
    if isinstance(value, dict):
        pairs = [(k, _scalar(v)) for k, v in value.items()]
        return ",".join(f"{k}={v}" for k, v in pairs) if argument.explode else ",".join(f"{k},{v}" for k, v in pairs)
    return _scalar(value)


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return str(value)


def _query(argument: Argument, value: Any) -> list[tuple[str, str | int | float | bool | None]]:
    name = argument.wire_name
    if argument.as_json:
        return [(name, json.dumps(value))]
    if isinstance(value, list):
        if argument.explode and argument.style == "form":
            return [(name, _scalar(item)) for item in value]
        joiner = {"spaceDelimited": " ", "pipeDelimited": "|"}.get(argument.style, ",")
        return [(name, joiner.join(_scalar(item) for item in value))]
    if isinstance(value, dict):
        if argument.style == "deepObject":
            return [(f"{name}[{key}]", _scalar(item)) for key, item in value.items()]
        if argument.explode:
            return [(key, _scalar(item)) for key, item in value.items()]
        return [(name, ",".join(f"{key},{_scalar(item)}" for key, item in value.items()))]
    return [(name, _scalar(value))]


def _form(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        return {"value": _scalar(body)}
    return {key: [_scalar(v) for v in item] if isinstance(item, list) else _scalar(item) for key, item in body.items()}


# -- the answer as a tool result --------------------------------------------------------------------


def is_json(media: str) -> bool:
    return bool(JSON_MEDIA.match(media)) and media != "*/*" or media == "application/problem+json"


def text_of(answer: Answer) -> str:
    return answer.body.decode("utf-8", errors="replace")


def failure(message: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": message}], "isError": True}


def http_error(answer: Answer, method: str) -> dict[str, Any]:
    """An error answer as an ``isError`` result: the status, and the problem detail (RFC 9457) or body."""
    line = f"HTTP {answer.status} {answer.reason}".rstrip() + f" from {method} {answer.url}"
    problem: Any = None
    if is_json(answer.media):
        try:
            problem = json.loads(answer.body)
        except ValueError:
            problem = None
    if isinstance(problem, dict):
        said = [str(problem[key]) for key in ("title", "detail") if isinstance(problem.get(key), (str, int, float))]
        if not said and "detail" in problem:
            said = [json.dumps(problem["detail"])[:DETAIL_CHARS]]
        if said:
            line += ": " + " — ".join(said)
    content = [{"type": "text", "text": line}]
    if answer.body:
        content.append({"type": "text", "text": text_of(answer)[:DETAIL_CHARS]})
    result: dict[str, Any] = {"content": content, "isError": True}
    result["_meta"] = {"io.mcptrio/http": {"status": answer.status, **({"problem": problem} if problem else {})}}
    return result


def content_of(answer: Answer) -> list[dict[str, Any]]:
    """A successful answer that is not structured, as content by its media type."""
    if not answer.body:
        return [{"type": "text", "text": f"HTTP {answer.status} {answer.reason}".rstrip()}]
    if is_json(answer.media) or answer.media.startswith(TEXT_MEDIA) or not answer.media:
        return [{"type": "text", "text": text_of(answer)}]
    data = base64.b64encode(answer.body).decode()
    if answer.media.startswith("image/"):
        return [{"type": "image", "data": data, "mimeType": answer.media}]
    if answer.media.startswith("audio/"):
        return [{"type": "audio", "data": data, "mimeType": answer.media}]
    return [{"type": "resource", "resource": {"uri": answer.url, "mimeType": answer.media, "blob": data}}]
