"""The server side of one MCP connection as a sans-I/O state machine.

Theory of operation
-------------------
``receive(frame)`` takes one raw frame (bytes) and returns a list of events for the runtime:
``Send`` (answer now), ``Dispatch`` (run a handler), ``Cancel``, ``ClientReply``, ``Notified``.
It never does I/O and never awaits, so every rule below is testable without an event loop.

A request chooses its era by how it opens (see the spec's ``basic/versioning.mdx``):

* a request whose ``params._meta`` carries ``io.modelcontextprotocol/protocolVersion`` is
  *modern* (2026-07-28): served statelessly, judged only by its own ``_meta``;
* ``initialize`` starts a *legacy* session (2024-11-05 … 2025-11-25) scoped to this connection;
  after it, requests without a modern ``_meta`` are served under the negotiated revision.

Both may be interleaved on one connection.  The legacy session moves through the states in
``LEGACY_STATES``; which methods each revision accepts is the table in ``methods.py``.  Those
it marks ``PROTOCOL`` are answered here at once (ping, setLevel, discover) so that a slow handler
can never delay them; the rest become ``Dispatch`` events, each carrying its method's row.

The in-flight table refuses a request id that is still being served (-32600) so two answers
are never cross-wired; the runtime calls ``finished(id)`` when a worker is done.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeGuard

import attrs
import orjson

from . import errors, versions
from .errors import McpError
from .events import (
    BatchReply,
    Cancel,
    ClientReply,
    Dispatch,
    Event,
    IncomingRequest,
    Notified,
    RequestId,
    Send,
)
from .methods import METHODS, PROTOCOL

META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
META_LOG_LEVEL = "io.modelcontextprotocol/logLevel"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"
META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")

# Legacy session states: before initialize, after answering it, after notifications/initialized.
NEW, INITIALIZING, READY = "new", "initializing", "ready"
LEGACY_STATES = (NEW, INITIALIZING, READY)


@attrs.frozen
class ServerIdentity:
    """Who this server is and what it offers, as the protocol needs it to answer by itself."""

    name: str
    version: str
    capabilities: Callable[[str, str], dict[str, Any]]  # (era, version) -> ServerCapabilities
    title: str | None = None
    instructions: str | None = None
    cache_ttl_ms: int = 0
    cache_scope: str = "public"
    # The Implementation object for serverInfo, built once (every modern HTTP request makes a protocol).
    server_info: dict[str, Any] = attrs.field(init=False, eq=False)

    @server_info.default
    def _server_info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"name": self.name, "version": self.version}
        if self.title:
            info["title"] = self.title
        return info


def declares_modern(message: Any) -> bool:
    """Whether a message opens as a 2026-07-28 request: its ``params._meta`` names its protocol
    version.  The one test of the era; a transport that must choose a path before the protocol
    sees the message (HTTP: a session or none) asks it too."""
    if not isinstance(message, dict):
        return False
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and META_VERSION in meta


def _json_id(value: Any) -> TypeGuard[str | int]:
    return (isinstance(value, str) or isinstance(value, int)) and not isinstance(value, bool)


_ID_TYPES = (int, str)  # (exactly: a bool is no id) what decoded JSON ids are, checked first
_NO_ID = object()


def error_message(request_id: RequestId | None, error: McpError) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": error.to_dict()}


class ServerProtocol:
    """Per-connection protocol state; see the module docstring."""

    def __init__(self, identity: ServerIdentity) -> None:
        self.identity = identity
        self.state = NEW
        self.legacy_version: str | None = None
        self.client_capabilities: dict[str, Any] = {}
        self.client_info: dict[str, Any] | None = None
        self.log_level: str | None = None  # legacy logging/setLevel; None: everything
        self.in_flight: set[Any] = set()
        self._server_info = identity.server_info

    # -- receiving -------------------------------------------------------------------------

    def receive(self, frame: bytes) -> list[Event]:
        try:
            message = orjson.loads(frame)
        except orjson.JSONDecodeError as exc:
            reason = "invalid UTF-8" if "utf-8" in str(exc).lower() else "invalid JSON"
            return [Send(error_message(None, McpError(errors.PARSE_ERROR, f"parse error: {reason}")))]
        if type(message) is dict:
            return self.receive_message(message)
        return self.receive_value(message)

    def receive_value(self, message: Any) -> list[Event]:
        """One decoded JSON value: a message, or a batch array."""
        if isinstance(message, list):
            return self._receive_batch(message)
        return self.receive_message(message)

    def receive_oversize(self, size: int, limit: int) -> list[Event]:
        err = McpError(errors.INVALID_REQUEST, f"message of {size} bytes exceeds the limit of {limit} bytes")
        return [Send(error_message(None, err))]

    def receive_message(self, message: Any) -> list[Event]:
        """One decoded JSON value that is not a batch."""
        if not isinstance(message, dict):
            return [Send(error_message(None, errors.invalid_request("message must be a JSON object")))]
        request_id = message.get("id", _NO_ID)
        has_id = request_id is not _NO_ID
        if message.get("jsonrpc") != "2.0":
            return self._refuse(message, has_id, errors.invalid_request('"jsonrpc" must be "2.0"'))
        method = message.get("method")
        if method is None:
            return self._receive_response(message)
        if type(method) is not str and not isinstance(method, str):
            return self._refuse(message, has_id, errors.invalid_request('"method" must be a string'))
        params = message.get("params")
        if params is None:
            params = {}
        if not has_id:
            if not isinstance(params, dict):
                return []
            return self._receive_notification(method, params)
        if type(request_id) not in _ID_TYPES and not _json_id(request_id):
            return [Send(error_message(None, errors.invalid_request('"id" must be a string or an integer')))]
        if type(params) is not dict and not isinstance(params, dict):
            return [Send(error_message(request_id, errors.invalid_params('"params" must be an object')))]
        if request_id in self.in_flight:
            err = errors.invalid_request(f"request id {request_id!r} is already in flight")
            return [Send(error_message(request_id, err))]
        try:
            return self._receive_request(request_id, method, params)
        except McpError as err:
            return [Send(error_message(request_id, err))]

    def _refuse(self, message: dict[str, Any], has_id: bool, err: McpError) -> list[Event]:
        request_id = message.get("id") if has_id and _json_id(message.get("id")) else None
        if has_id or "method" not in message:
            return [Send(error_message(request_id, err))]
        return []  # a malformed notification has no id to answer

    def _receive_batch(self, batch: list[Any]) -> list[Event]:
        if self.legacy_version not in versions.BATCH_VERSIONS or self.state == NEW:
            negotiated = self.legacy_version or "none yet"
            err = errors.invalid_request(
                f"JSON-RPC batches are accepted only on protocol version 2025-03-26 (this session: {negotiated})"
            )
            return [Send(error_message(None, err))]
        if not batch:
            return [Send(error_message(None, errors.invalid_request("empty batch")))]
        reply = BatchReply()
        passed: list[Event] = []
        for item in batch:
            if isinstance(item, dict) and item.get("method") == "initialize":
                reply.replies.append(
                    error_message(item.get("id"), errors.invalid_request("initialize must not be part of a batch"))
                )
                continue
            for event in self.receive_message(item):
                if isinstance(event, Send):
                    reply.replies.append(event.message)  # type: ignore[arg-type]  # (one message: batches do not nest)
                elif isinstance(event, Dispatch):
                    event.request.batch = reply
                    reply.pending += 1
                    passed.append(event)
                else:
                    passed.append(event)
        if reply.pending == 0 and reply.replies:
            passed.append(Send(reply.replies))
        return passed

    def _receive_response(self, message: dict[str, Any]) -> list[Event]:
        request_id = message.get("id")
        result, error = message.get("result"), message.get("error")
        if not _json_id(request_id) or (result is None) == (error is None):
            # A request that lost its method still has an id the client can match (-32600 with it).
            answer_id = request_id if _json_id(request_id) else None
            err = errors.invalid_request("message has no method and is not a valid response")
            return [Send(error_message(answer_id, err))]
        if result is not None and not isinstance(result, dict):
            result = {"value": result}
        if error is not None and not isinstance(error, dict):
            error = {"code": errors.INTERNAL_ERROR, "message": str(error)}
        return [ClientReply(request_id, result, error)]

    def _receive_notification(self, method: str, params: dict[str, Any]) -> list[Event]:
        if method == "notifications/cancelled":
            request_id = params.get("requestId")
            if _json_id(request_id) and request_id in self.in_flight:
                reason = params.get("reason")
                return [Cancel(request_id, reason if isinstance(reason, str) else None)]
            return []  # unknown or finished ids are ignored
        if method == "notifications/initialized":
            if self.state == INITIALIZING:
                self.state = READY
            return []
        return [Notified(method, params)]

    def _receive_request(self, request_id: RequestId, method: str, params: dict[str, Any]) -> list[Event]:
        meta = params.get("_meta")
        if meta is not None and not isinstance(meta, dict):
            raise errors.invalid_params('"params._meta" must be an object')
        if meta and META_VERSION in meta:  # (declares_modern, on params already unpacked)
            return self._modern(request_id, method, params, meta)  # modern initialize: -32601
        if method == "initialize":
            return self._initialize(request_id, params)
        if self.state != NEW:
            return self._legacy(request_id, method, params, meta)
        if method == "ping":
            return [Send(self._legacy_result(request_id, {}))]
        if method not in METHODS:
            raise errors.method_not_found(method)
        raise errors.invalid_params(
            f'missing "params._meta[{META_VERSION!r}]": a 2026-07-28 request must declare its '
            "protocol version (a legacy client must send initialize first)"
        )

    # -- legacy era -------------------------------------------------------------------------

    def _initialize(self, request_id: RequestId, params: dict[str, Any]) -> list[Event]:
        if self.state != NEW:
            raise errors.invalid_request("session is already initialized")
        requested = params.get("protocolVersion")
        if not isinstance(requested, str):
            raise errors.invalid_params('"protocolVersion" is required and must be a string')
        capabilities = params.get("capabilities", {})
        if not isinstance(capabilities, dict):
            raise errors.invalid_params('"capabilities" must be an object')
        client_info = params.get("clientInfo")
        if client_info is not None and not isinstance(client_info, dict):
            raise errors.invalid_params('"clientInfo" must be an object')
        version = versions.negotiate_legacy(requested)
        self.state = INITIALIZING
        self.legacy_version = version
        self.client_capabilities = capabilities
        self.client_info = client_info
        result: dict[str, Any] = {
            "protocolVersion": version,
            "capabilities": self.identity.capabilities("legacy", version),
            "serverInfo": self._server_info,
        }
        if self.identity.instructions:
            result["instructions"] = self.identity.instructions
        return [Send(self._legacy_result(request_id, result))]

    def _legacy(self, request_id: RequestId, method: str, params: dict[str, Any], meta: Any) -> list[Event]:
        spec = METHODS.get(method)
        version = self.legacy_version or versions.LATEST_LEGACY
        if spec is None or spec.legacy is None or version < spec.legacy:  # (revisions are dates: versions.at_least)
            raise errors.method_not_found(method, f"not available in protocol version {version}")
        if spec.answer == PROTOCOL:
            return [Send(self._legacy_protocol(request_id, method, params))]
        token = meta.get("progressToken") if meta else None
        # (positional: IncomingRequest's fields in order; a call with keywords costs twice as much)
        request = IncomingRequest(
            request_id,
            method,
            params,
            "legacy",
            version,
            self.client_capabilities,
            self.client_info,
            None,
            token if token is not None and _json_id(token) else None,
            spec,
        )
        self.in_flight.add(request_id)
        return [Dispatch(request)]

    def _legacy_protocol(self, request_id: RequestId, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """The answer to a legacy request this module gives by itself (ping, logging/setLevel)."""
        if method == "logging/setLevel":
            level = params.get("level")
            if level not in LOG_LEVELS:
                raise errors.invalid_params(f'"level" must be one of {", ".join(LOG_LEVELS)}')
            self.log_level = level
        return self._legacy_result(request_id, {})

    @staticmethod
    def _legacy_result(request_id: RequestId, result: dict[str, Any]) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": request_id, "result": result}

    # -- modern era -------------------------------------------------------------------------

    def _modern(self, request_id: RequestId, method: str, params: dict[str, Any], meta: dict[str, Any]) -> list[Event]:
        version = meta[META_VERSION]
        if not isinstance(version, str):
            raise errors.invalid_params(f'"params._meta[{META_VERSION!r}]" must be a string')
        if version not in versions.MODERN_VERSIONS:
            raise McpError(
                errors.UNSUPPORTED_PROTOCOL_VERSION,
                "Unsupported protocol version",
                {"supported": list(versions.SUPPORTED_VERSIONS), "requested": version},
            )
        spec = METHODS.get(method)
        if spec is None or spec.modern is None or version < spec.modern:
            raise errors.method_not_found(method, f"not available in protocol version {version}")
        capabilities = meta.get(META_CAPABILITIES)
        if not isinstance(capabilities, dict):
            raise errors.invalid_params(f'"params._meta[{META_CAPABILITIES!r}]" is required and must be an object')
        client_info = meta.get(META_CLIENT_INFO)
        if client_info is not None and not isinstance(client_info, dict):
            raise errors.invalid_params(f'"params._meta[{META_CLIENT_INFO!r}]" must be an object')
        log_level = meta.get(META_LOG_LEVEL)
        if log_level is not None and log_level not in LOG_LEVELS:
            raise errors.invalid_params(f'"params._meta[{META_LOG_LEVEL!r}]" must be one of {", ".join(LOG_LEVELS)}')
        request = IncomingRequest(
            id=request_id,
            method=method,
            params=params,
            era="modern",
            version=version,
            client_capabilities=capabilities,
            client_info=client_info,
            log_level=log_level,
            progress_token=meta.get("progressToken") if _json_id(meta.get("progressToken")) else None,
            spec=spec,
        )
        if spec.answer == PROTOCOL:
            return [Send(self.result_message(request, self._discover_result(version)))]
        self.in_flight.add(request_id)
        return [Dispatch(request)]

    def _discover_result(self, version: str) -> dict[str, Any]:
        result: dict[str, Any] = {
            "supportedVersions": list(versions.SUPPORTED_VERSIONS),
            "capabilities": self.identity.capabilities("modern", version),
        }
        if self.identity.instructions:
            result["instructions"] = self.identity.instructions
        return result

    # -- sending ----------------------------------------------------------------------------

    def result_message(self, request: IncomingRequest, result: dict[str, Any]) -> dict[str, Any]:
        """The response for a request, with the modern era's required result fields."""
        if request.era == "modern":
            result.setdefault("resultType", "complete")
            meta = result.get("_meta")
            if meta is None:
                result["_meta"] = {META_SERVER_INFO: self._server_info}
            else:
                meta.setdefault(META_SERVER_INFO, self._server_info)
            if request.spec.cacheable and result["resultType"] == "complete":
                result.setdefault("ttlMs", self.identity.cache_ttl_ms)
                result.setdefault("cacheScope", self.identity.cache_scope)
        return {"jsonrpc": "2.0", "id": request.id, "result": result}

    def finished(self, request_id: RequestId) -> None:
        """The worker for this id is done (answered, failed or cancelled)."""
        self.in_flight.discard(request_id)

    def should_log(self, request: IncomingRequest, level: str) -> bool:
        """Whether a log message at ``level`` may be sent for this request."""
        threshold = request.log_level if request.era == "modern" else self.log_level
        if threshold is None:
            return request.era == "legacy"  # modern: nothing without an explicit level
        return LOG_LEVELS.index(level) >= LOG_LEVELS.index(threshold)
