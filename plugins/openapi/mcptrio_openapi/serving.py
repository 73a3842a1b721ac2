"""An OpenAPI document made a ``mcptrio.Registry``: each operation a tool, a resource or a resource
template as the route maps say, all calling the API through one pooled HTTP client that the
registry's lifespan opens and closes."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import attrs
import httpx
import jsonschema_rs
import orjson

from mcptrio import Registry, ToolError
from mcptrio.app.registry import ToolEntry
from mcptrio.app.signature import ToolSignature

from . import document as documents
from .calls import DETAIL_CHARS, Answer, Caller, CallFailed, content_of, failure, http_error, is_json, text_of
from .credentials import Redacted, credentials
from .document import DocumentError
from .operations import Operation, first_server, read_operations
from .route_maps import kind_of
from .settings import OpenApiSettings

log = logging.getLogger("mcptrio.openapi")
ANNOTATIONS = {
    "GET": {"readOnlyHint": True},
    "HEAD": {"readOnlyHint": True},
    "OPTIONS": {"readOnlyHint": True},
    "PUT": {"readOnlyHint": False, "idempotentHint": True},
    "DELETE": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True},
}
URI_SCHEME = "openapi"
CTX = "_mcptrio_openapi_ctx"  # the context's keyword (no tool argument is named so)


@attrs.frozen
class Served:
    """What a document became: the registry to serve, the operations in it (by what each became),
    and the one-line reason for each operation left out as invalid."""

    registry: Registry
    kinds: dict[str, str]  # operation name -> tool, resource, template or exclude
    skipped: list[str]
    base_url: str


def from_openapi(spec: str | Path | Mapping[str, Any], **settings: Any) -> Registry:
    """A Registry serving the HTTP API ``spec`` describes (a file, an http(s) URL or the document);
    ``settings`` are ``OpenApiSettings``' (``base_url``, ``route_maps``, ``bearer``, ...)."""
    return load(OpenApiSettings(spec, **settings)).registry


def load(settings: OpenApiSettings) -> Served:
    """The document read, checked and made a Registry (``DocumentError``: one line, naming where)."""
    if isinstance(settings.spec, Mapping):
        document, uri = dict(settings.spec), "urn:mcptrio:openapi"
    else:
        document, uri = documents.read(settings.spec, settings.timeout)
    where = str(settings.spec) if not isinstance(settings.spec, Mapping) else "document"
    document = documents.check(document, where)
    for problem in documents.problems(document, where):
        if not settings.skip_invalid:
            raise DocumentError(f"not a valid OpenAPI document: {problem}")
        log.warning("%s (skip_invalid: served as far as it can be)", problem)
    secrets = credentials(
        document,
        headers=settings.headers,
        bearer=settings.bearer,
        basic_user=settings.basic_user,
        basic_password=settings.basic_password,
        api_key=settings.api_key,
        api_key_scheme_name=settings.api_key_scheme,
    )
    operations, skipped = read_operations(
        document,
        documents.refs(document, uri),
        hidden_parameters=secrets.hidden_parameters(),
        skip_invalid=settings.skip_invalid,
    )
    base_url = settings.base_url or _server_url(document, uri)
    caller = Caller(base_url, secrets, settings.timeout, settings.max_response_bytes)
    title = document.get("info", {}).get("title") if isinstance(document.get("info"), dict) else None
    registry = Registry(settings.name, title=title if isinstance(title, str) else None)
    registry.lifespan(_client_lifespan(caller))
    kinds: dict[str, str] = {}
    for operation in operations:
        kind = kind_of(operation, settings.route_maps)
        try:
            if kind in ("tool",):
                _add_tool(registry, caller, operation)
            elif kind in ("resource", "template"):
                _add_resource(registry, caller, operation)
        except (TypeError, ValueError) as exc:
            problem = f"{operation.where}: operation {operation.name!r} cannot be served: {' '.join(str(exc).split())}"
            if not settings.skip_invalid:
                raise DocumentError(problem) from None
            skipped.append(problem)
            continue
        kinds[operation.name] = kind
    for problem in skipped:
        log.warning("openapi: skipped: %s", problem)
    return Served(registry, kinds, skipped, base_url)


def _server_url(document: dict[str, Any], uri: str) -> str:
    """The document's first server (relative: to where the document came from), else where it came from."""
    url = first_server(document)
    web = urlsplit(uri).scheme in ("http", "https")
    if url is not None and web:
        url = urljoin(uri, url)
    if url is not None and urlsplit(url).scheme in ("http", "https"):
        return url
    if web:
        parts = urlsplit(uri)
        return f"{parts.scheme}://{parts.netloc}"
    raise DocumentError("plugins.openapi.base_url is required: the document names no http(s) server")


def _client_lifespan(caller: Caller) -> Any:
    async def http_client(app: object) -> AsyncIterator[None]:
        timeout = httpx.Timeout(caller.timeout)
        with Redacted(caller.credentials.secrets):
            async with httpx.AsyncClient(timeout=timeout, follow_redirects=False) as client:
                caller.client = client
                try:
                    yield
                finally:
                    caller.client = None

    return http_client


def _describe(operation: Operation) -> str | None:
    parts = [part.strip() for part in (operation.summary, operation.description) if part and part.strip()]
    if len(parts) == 2 and parts[1].startswith(parts[0]):
        parts = parts[1:]
    return "\n\n".join(parts) or f"{operation.method} {operation.path}"


def _add_tool(registry: Registry, caller: Caller, operation: Operation) -> None:
    """The operation as a tool whose handler returns whole results.  Its input schema is checked now
    (a bad one is refused at load); its output schema, which only its own answers are checked
    against, is compiled at the first call (most of a large document's load time otherwise)."""
    output = OutputCheck(operation.output_schema) if operation.output_schema is not None else None

    async def call(**arguments: Any) -> dict[str, Any]:
        ctx = arguments.pop(CTX)
        try:
            answer = await caller.send(caller.request(operation, arguments), ctx)
        except CallFailed as exc:
            return failure(str(exc))
        if not 200 <= answer.status < 300:
            return http_error(answer, operation.method)
        if output is None or not (is_json(answer.media) and answer.body):
            return {"content": content_of(answer)}
        return _structured(output, operation, answer)

    signature = ToolSignature.for_schema(
        operation.input_schema, operation.name, output_schema=operation.output_schema, context_parameter=CTX
    )
    registry.tools[operation.name] = ToolEntry(
        name=operation.name,
        fn=call,
        signature=signature,
        title=operation.summary,
        description=_describe(operation),
        annotations={**ANNOTATIONS.get(operation.method, {"readOnlyHint": False}), "openWorldHint": True},
        tags=operation.tags,
    )


class OutputCheck:
    """An output schema's validator, compiled when first needed."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema
        self.validator: Any = None

    def problem(self, value: Any) -> str | None:
        if self.validator is None:
            self.validator = jsonschema_rs.validator_for(self.schema)
        if self.validator.is_valid(value):
            return None
        error = next(iter(self.validator.iter_errors(value)))
        at = "/".join(str(part) for part in error.instance_path) or "the answer"
        return f"at {at}: {error.message}"


def _structured(output: OutputCheck, operation: Operation, answer: Answer) -> dict[str, Any]:
    """A JSON answer as ``structuredContent``, checked against the published output schema."""
    try:
        data = orjson.loads(answer.body)
    except orjson.JSONDecodeError:
        return failure(f"{operation.method} {operation.path}: the API's answer is not the JSON it says it is")
    structured = {"result": data} if operation.wraps_output else data
    problem = output.problem(structured)
    if problem is not None:
        result = failure(f"{operation.name}: the API's answer does not fit its documented schema: {problem}")
        result["content"].append({"type": "text", "text": text_of(answer)[:DETAIL_CHARS]})
        return result
    return {"content": [{"type": "text", "text": text_of(answer)}], "structuredContent": structured}


def _add_resource(registry: Registry, caller: Caller, operation: Operation) -> None:
    uri = f"{URI_SCHEME}://{operation.path.lstrip('/')}"

    async def read(**variables: str) -> str | bytes:
        try:
            answer = await caller.send(caller.request(operation, variables))
        except CallFailed as exc:
            raise ToolError(str(exc)) from None
        if not 200 <= answer.status < 300:
            raise ToolError(http_error(answer, operation.method)["content"][0]["text"])
        if is_json(answer.media) or answer.media.startswith("text/") or not answer.media:
            return text_of(answer)
        return answer.body

    registry.resource(
        uri,
        name=operation.name,
        title=operation.summary,
        description=_describe(operation),
        mime_type=operation.answer_media,
        tags=operation.tags,
    )(read)
