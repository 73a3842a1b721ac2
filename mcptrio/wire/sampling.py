"""Sampling: the server asks the client's LLM for a message (``sampling/createMessage``).

In 2026-07-28 the request travels inside an InputRequiredResult (``method`` and ``params`` only);
in legacy revisions it is a JSON-RPC request, so ``jsonrpc`` and ``id`` are optional here.
"""

from typing import Any, Literal

import attrs

from ._base import JSONObject, MetaObject, RequestId, Role
from .content import SamplingContent
from .tools import Tool


@attrs.frozen(kw_only=True)
class ModelHint:
    """A hint for model selection; ``name`` may be a substring of a model name."""

    name: str | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class ModelPreferences:
    """The server's preferences for model selection; priorities are between 0 and 1."""

    hints: list[ModelHint] | None = None
    cost_priority: float | None = None
    speed_priority: float | None = None
    intelligence_priority: float | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class ToolChoice:
    """Whether the model may, must or must not use the tools offered."""

    mode: Literal["auto", "required", "none"] | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class SamplingMessage:
    """One message of a sampling conversation."""

    role: Role
    content: SamplingContent
    meta: MetaObject | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class CreateMessageRequestParams:
    """The params of ``sampling/createMessage``."""

    messages: list[SamplingMessage]
    max_tokens: int
    model_preferences: ModelPreferences | None = None
    system_prompt: str | None = None
    include_context: Literal["none", "thisServer", "allServers"] | None = None
    temperature: float | None = None
    stop_sequences: list[str] | None = None
    metadata: JSONObject | None = None
    tools: list[Tool] | None = None
    tool_choice: ToolChoice | None = None
    meta: MetaObject | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class CreateMessageRequest:
    """A ``sampling/createMessage`` request; ``jsonrpc`` and ``id`` only in legacy revisions."""

    method: Literal["sampling/createMessage"] = "sampling/createMessage"
    params: CreateMessageRequestParams
    jsonrpc: Literal["2.0"] | None = None
    id: RequestId | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class CreateMessageResult:
    """The client's answer to ``sampling/createMessage``."""

    role: Role
    content: SamplingContent
    model: str
    stop_reason: str | None = None
    meta: MetaObject | None = None
    extra: dict[str, Any] = attrs.Factory(dict)
