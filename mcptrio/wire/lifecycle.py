"""How a session starts and listens: ``initialize`` (legacy), ``server/discover`` and ``subscriptions/listen``."""

from typing import Any

import attrs

from ._base import CacheScope, RequestId, renamed
from .capabilities import ServerCapabilities
from .common import Implementation, ResultMeta


@attrs.frozen(kw_only=True)
class InitializeResult:
    """The server's answer to the legacy ``initialize`` handshake."""

    protocol_version: str
    capabilities: ServerCapabilities
    server_info: Implementation
    instructions: str | None = None
    meta: ResultMeta | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class DiscoverResult:
    """The server's answer to ``server/discover`` (2026-07-28): its versions and capabilities."""

    supported_versions: list[str]
    capabilities: ServerCapabilities
    ttl_ms: int
    cache_scope: CacheScope
    instructions: str | None = None
    result_type: str = "complete"
    meta: ResultMeta | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class SubscriptionFilter:
    """Which notifications a ``subscriptions/listen`` stream asks for (or was granted)."""

    tools_list_changed: bool | None = None
    prompts_list_changed: bool | None = None
    resources_list_changed: bool | None = None
    resource_subscriptions: list[str] | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class SubscriptionsListenResultMeta:
    """The ``_meta`` of a closed ``subscriptions/listen`` stream: which stream it was."""

    subscription_id: RequestId = renamed("io.modelcontextprotocol/subscriptionId", default=attrs.NOTHING)
    server_info: Implementation | None = renamed("io.modelcontextprotocol/serverInfo")
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class SubscriptionsListenResult:
    """Ends a ``subscriptions/listen`` stream."""

    meta: SubscriptionsListenResultMeta
    result_type: str = "complete"
    extra: dict[str, Any] = attrs.Factory(dict)
