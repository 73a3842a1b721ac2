"""Which wire type the params and the result of each method have, in both eras.

The types are this table's one fact.  Which revisions have each request a client sends, and
which may answer with an InputRequiredResult (``resultType: "input_required"``) instead of the
result type below, is ``mcptrio/protocol/methods.py``'s.
"""

from typing import Any

from .common import EmptyResult
from .completion import CompleteResult
from .elicitation import ElicitRequestParams, ElicitResult
from .jsonrpc import (
    MissingRequiredClientCapabilityErrorData,
    UnsupportedProtocolVersionErrorData,
    URLElicitationRequiredErrorData,
)
from .lifecycle import DiscoverResult, InitializeResult, SubscriptionsListenResult
from .notifications import (
    CancelledNotificationParams,
    ElicitationCompleteNotificationParams,
    LoggingMessageNotificationParams,
    NotificationParams,
    ProgressNotificationParams,
    ResourceUpdatedNotificationParams,
    SubscriptionsAcknowledgedNotificationParams,
)
from .prompts import GetPromptResult, ListPromptsResult
from .requests import (
    CallToolRequestParams,
    CompleteRequestParams,
    GetPromptRequestParams,
    InitializeRequestParams,
    PaginatedRequestParams,
    ReadResourceRequestParams,
    RequestParams,
    SetLevelRequestParams,
    SubscribeRequestParams,
    SubscriptionsListenRequestParams,
    UnsubscribeRequestParams,
)
from .resources import ListResourcesResult, ListResourceTemplatesResult, ReadResourceResult
from .roots import ListRootsRequestParams, ListRootsResult
from .sampling import CreateMessageRequestParams, CreateMessageResult
from .tools import CallToolResult, ListToolsResult

PARAMS_BY_METHOD: dict[str, type] = {
    # client → server requests (the revisions of each: protocol/methods.py)
    "initialize": InitializeRequestParams,
    "ping": RequestParams,
    "server/discover": RequestParams,
    "tools/list": PaginatedRequestParams,
    "tools/call": CallToolRequestParams,
    "resources/list": PaginatedRequestParams,
    "resources/templates/list": PaginatedRequestParams,
    "resources/read": ReadResourceRequestParams,
    "resources/subscribe": SubscribeRequestParams,
    "resources/unsubscribe": UnsubscribeRequestParams,
    "prompts/list": PaginatedRequestParams,
    "prompts/get": GetPromptRequestParams,
    "completion/complete": CompleteRequestParams,
    "logging/setLevel": SetLevelRequestParams,
    "subscriptions/listen": SubscriptionsListenRequestParams,
    # client → server notifications
    "notifications/cancelled": CancelledNotificationParams,
    "notifications/progress": ProgressNotificationParams,
    "notifications/initialized": NotificationParams,  # legacy
    "notifications/roots/list_changed": NotificationParams,  # legacy
}
"""The params type of each request and notification a client sends a server."""

RESULT_BY_METHOD: dict[str, type] = {
    # results the server sends
    "initialize": InitializeResult,
    "ping": EmptyResult,
    "server/discover": DiscoverResult,
    "tools/list": ListToolsResult,
    "tools/call": CallToolResult,
    "resources/list": ListResourcesResult,
    "resources/templates/list": ListResourceTemplatesResult,
    "resources/read": ReadResourceResult,
    "resources/subscribe": EmptyResult,
    "resources/unsubscribe": EmptyResult,
    "prompts/list": ListPromptsResult,
    "prompts/get": GetPromptResult,
    "completion/complete": CompleteResult,
    "logging/setLevel": EmptyResult,
    "subscriptions/listen": SubscriptionsListenResult,
    # results the client sends (legacy: as responses; 2026-07-28: as inputResponses)
    "elicitation/create": ElicitResult,
    "sampling/createMessage": CreateMessageResult,
    "roots/list": ListRootsResult,
}
"""The result type of each request, whichever side answers it."""

SERVER_PARAMS_BY_METHOD: dict[str, Any] = {
    # server → client requests (legacy JSON-RPC requests; 2026-07-28 inputRequests)
    "elicitation/create": ElicitRequestParams,  # a union: form or URL
    "sampling/createMessage": CreateMessageRequestParams,
    "roots/list": ListRootsRequestParams,
    "ping": RequestParams,  # legacy
    # server → client notifications
    "notifications/cancelled": CancelledNotificationParams,
    "notifications/progress": ProgressNotificationParams,
    "notifications/message": LoggingMessageNotificationParams,
    "notifications/resources/updated": ResourceUpdatedNotificationParams,
    "notifications/resources/list_changed": NotificationParams,
    "notifications/tools/list_changed": NotificationParams,
    "notifications/prompts/list_changed": NotificationParams,
    "notifications/subscriptions/acknowledged": SubscriptionsAcknowledgedNotificationParams,  # 2026-07-28
    "notifications/elicitation/complete": ElicitationCompleteNotificationParams,  # legacy
}
"""The params type of each request and notification a server sends a client (for test clients)."""

ERROR_DATA_BY_CODE: dict[int, type] = {
    -32021: MissingRequiredClientCapabilityErrorData,
    -32022: UnsupportedProtocolVersionErrorData,
    -32042: URLElicitationRequiredErrorData,  # legacy
}
"""The type of ``error.data`` for MCP's own error codes."""
