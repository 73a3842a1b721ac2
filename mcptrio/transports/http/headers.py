"""2026-07-28 request-metadata headers: ``Mcp-Method``, ``Mcp-Name``, ``Mcp-Param-*``, checked
against the body (``basic/transports/streamable-http.mdx``, "Server Validation"), pure.  Which
param each method's ``Mcp-Name`` and ``Mcp-Param-*`` mirror: ``protocol/methods.py``."""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from ...protocol import errors
from ...protocol.errors import McpError
from ...protocol.methods import METHODS

_SENTINEL_HEAD, _SENTINEL_TAIL = "=?base64?", "?="
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f]")  # control characters other than tab


def decode_value(raw: bytes) -> str:
    """A header value, with the ``=?base64?…?=`` sentinel decoded."""
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError:
        raise mismatch("header value is not ASCII") from None
    if text.startswith(_SENTINEL_HEAD) and text.endswith(_SENTINEL_TAIL) and len(text) >= 11:
        try:
            return base64.b64decode(text[len(_SENTINEL_HEAD) : -len(_SENTINEL_TAIL)], validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            raise mismatch("header value has an invalid base64 encoding") from None
    if _CONTROL.search(text):
        raise mismatch("header value contains control characters")
    return text


def mismatch(detail: str) -> McpError:
    return McpError(errors.HEADER_MISMATCH, f"Header mismatch: {detail}")


def check(
    headers: dict[bytes, bytes], message: dict[str, Any], header_params: list[tuple[str, tuple[str, ...]]] | None
) -> None:
    """Raise a -32020 McpError unless the mirrored headers match the request body;
    ``header_params``: the called tool's mirrored arguments (``ToolSignature.header_params``)."""
    method = message.get("method")
    params = given if isinstance(given := message.get("params"), dict) else {}
    meta = given if isinstance(given := params.get("_meta"), dict) else {}
    body_version = meta.get("io.modelcontextprotocol/protocolVersion")
    header_version = headers.get(b"mcp-protocol-version")
    if header_version is None:
        raise mismatch("MCP-Protocol-Version header is required")
    if body_version is not None and header_version.decode("latin-1") != body_version:
        raise mismatch(
            f"MCP-Protocol-Version header value {header_version.decode('latin-1')!r} does not "
            f"match body value {body_version!r}"
        )
    header_method = headers.get(b"mcp-method")
    if header_method is None:
        raise mismatch("Mcp-Method header is required")
    if decode_value(header_method) != method:
        raise mismatch(
            f"Mcp-Method header value {header_method.decode('latin-1')!r} does not match body value {method!r}"
        )
    spec = METHODS.get(method)  # (a str: it matched Mcp-Method)
    if spec is None:
        return
    if spec.mcp_name is not None:
        header_name = headers.get(b"mcp-name")
        if header_name is None:
            raise mismatch("Mcp-Name header is required for " + str(method))
        if decode_value(header_name) != params.get(spec.mcp_name):
            raise mismatch(f"Mcp-Name header value does not match body value {params.get(spec.mcp_name)!r}")
    if spec.mcp_params is not None and header_params:
        _check_params(headers, params.get(spec.mcp_params), header_params)


def _check_params(
    headers: dict[bytes, bytes], arguments: Any, header_params: list[tuple[str, tuple[str, ...]]]
) -> None:
    for name, path in header_params:
        value: Any = arguments
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        raw = headers.get(b"mcp-param-" + name.lower().encode("latin-1"))
        if value is None:
            continue  # the client must omit it; a stray header is tolerated
        if raw is None:
            raise mismatch(f"Mcp-Param-{name} header is required: argument {'.'.join(path)!r} is present")
        if decode_value(raw) != _as_header_text(value):
            if not _numerically_equal(decode_value(raw), value):
                raise mismatch(f"Mcp-Param-{name} header value does not match argument {'.'.join(path)!r}")


def _as_header_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _numerically_equal(text: str, value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return float(text) == float(value)
    except ValueError:
        return False
