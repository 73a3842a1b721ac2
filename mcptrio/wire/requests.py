"""The params of every client→server request, in both eras.

``_meta`` is optional here because legacy revisions make it so; that 2026-07-28 requires it (with
the protocol version and client capabilities) is for the protocol layer to enforce.
"""

from typing import Any

import attrs

from ._base import JSONObject, LoggingLevel
from .capabilities import ClientCapabilities
from .common import Implementation, RequestMeta
from .completion import CompleteArgument, CompleteContext, CompletionReference
from .input import InputResponses
from .lifecycle import SubscriptionFilter


@attrs.frozen(kw_only=True)
class RequestParams:
    """Params with nothing but ``_meta``: ``ping``, ``server/discover``."""

    meta: RequestMeta | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class PaginatedRequestParams:
    """Params of the ``*/list`` requests."""

    cursor: str | None = None
    meta: RequestMeta | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class InitializeRequestParams:
    """Params of the legacy ``initialize`` handshake."""

    protocol_version: str
    capabilities: ClientCapabilities
    client_info: Implementation
    meta: RequestMeta | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class CallToolRequestParams:
    """Params of ``tools/call``; a retry after InputRequiredResult adds the answers and the state."""

    name: str
    arguments: JSONObject | None = None
    input_responses: InputResponses | None = None
    request_state: str | None = None
    meta: RequestMeta | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class GetPromptRequestParams:
    """Params of ``prompts/get``."""

    name: str
    arguments: dict[str, str] | None = None
    input_responses: InputResponses | None = None
    request_state: str | None = None
    meta: RequestMeta | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class ReadResourceRequestParams:
    """Params of ``resources/read``."""

    uri: str
    input_responses: InputResponses | None = None
    request_state: str | None = None
    meta: RequestMeta | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class SubscribeRequestParams:
    """Params of the legacy ``resources/subscribe``."""

    uri: str
    meta: RequestMeta | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class UnsubscribeRequestParams:
    """Params of the legacy ``resources/unsubscribe``."""

    uri: str
    meta: RequestMeta | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class CompleteRequestParams:
    """Params of ``completion/complete``."""

    ref: CompletionReference
    argument: CompleteArgument
    context: CompleteContext | None = None
    meta: RequestMeta | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class SetLevelRequestParams:
    """Params of the legacy ``logging/setLevel``."""

    level: LoggingLevel
    meta: RequestMeta | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class SubscriptionsListenRequestParams:
    """Params of ``subscriptions/listen`` (2026-07-28 only, so ``_meta`` is required)."""

    notifications: SubscriptionFilter
    meta: RequestMeta
    extra: dict[str, Any] = attrs.Factory(dict)
