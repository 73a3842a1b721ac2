"""MCP's wire format as frozen attrs classes, and the one converter between them and JSON values.

``structure(data, cls)`` reads parsed JSON into a wire type (raising WireError), ``unstructure(obj)``
writes one back as JSON-able values.  Types cover 2026-07-28 and the legacy 2025-11-25; where the
eras differ a field is optional, and checking what a given era requires is the protocol's job.
"""

from typing import Any, TypeVar, overload

from cattrs.errors import StructureHandlerNotFoundError

from ._base import CacheScope, Cursor, JSONObject, LoggingLevel, MetaObject, ProgressToken, RequestId, Role
from ._errors import WireError, wire_error
from .capabilities import (
    ClientCapabilities,
    ElicitationCapability,
    PromptsCapability,
    ResourcesCapability,
    RootsCapability,
    SamplingCapability,
    ServerCapabilities,
    ToolsCapability,
)
from .common import (
    Annotations,
    EmptyResult,
    Icon,
    Implementation,
    NotificationMeta,
    RequestMeta,
    Result,
    ResultMeta,
)
from .completion import (
    CompleteArgument,
    CompleteContext,
    CompleteResult,
    Completion,
    CompletionReference,
    PromptReference,
    ResourceTemplateReference,
)
from .content import (
    AudioContent,
    BlobResourceContents,
    ContentBlock,
    EmbeddedResource,
    ImageContent,
    ResourceContents,
    ResourceLink,
    SamplingContent,
    SamplingMessageContentBlock,
    TextContent,
    TextResourceContents,
    ToolResultContent,
    ToolUseContent,
)
from .converter import converter
from .elicitation import (
    BooleanSchema,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitRequestParams,
    ElicitRequestURLParams,
    ElicitResult,
    ElicitValue,
    EnumOption,
    EnumSchema,
    LegacyTitledEnumSchema,
    MultiSelectEnumSchema,
    NumberSchema,
    PrimitiveSchemaDefinition,
    RequestedSchema,
    SingleSelectEnumSchema,
    StringSchema,
    TitledEnumItems,
    TitledMultiSelectEnumSchema,
    TitledSingleSelectEnumSchema,
    UntitledEnumItems,
    UntitledMultiSelectEnumSchema,
    UntitledSingleSelectEnumSchema,
)
from .input import InputRequest, InputRequests, InputRequiredResult, InputResponse, InputResponses
from .jsonrpc import (
    Error,
    JSONRPCErrorResponse,
    JSONRPCMessage,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
    JSONRPCResultResponse,
    MissingRequiredClientCapabilityErrorData,
    UnsupportedProtocolVersionErrorData,
    URLElicitationRequiredErrorData,
)
from .lifecycle import (
    DiscoverResult,
    InitializeResult,
    SubscriptionFilter,
    SubscriptionsListenResult,
    SubscriptionsListenResultMeta,
)
from .methods import ERROR_DATA_BY_CODE, PARAMS_BY_METHOD, RESULT_BY_METHOD, SERVER_PARAMS_BY_METHOD
from .notifications import (
    CancelledNotificationParams,
    ElicitationCompleteNotificationParams,
    LoggingMessageNotificationParams,
    NotificationParams,
    ProgressNotificationParams,
    ResourceUpdatedNotificationParams,
    SubscriptionsAcknowledgedNotificationParams,
)
from .prompts import GetPromptResult, ListPromptsResult, Prompt, PromptArgument, PromptMessage
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
from .resources import (
    ListResourcesResult,
    ListResourceTemplatesResult,
    ReadResourceResult,
    Resource,
    ResourceTemplate,
)
from .roots import ListRootsRequest, ListRootsRequestParams, ListRootsResult, Root
from .sampling import (
    CreateMessageRequest,
    CreateMessageRequestParams,
    CreateMessageResult,
    ModelHint,
    ModelPreferences,
    SamplingMessage,
    ToolChoice,
)
from .tools import CallToolResult, ListToolsResult, Tool, ToolAnnotations

T = TypeVar("T")


@overload
def structure(data: Any, cls: type[T], *, path: str | None = None) -> T: ...
@overload
def structure(data: Any, cls: Any, *, path: str | None = None) -> Any: ...
def structure(data: Any, cls: Any, *, path: str | None = None) -> Any:
    """Read parsed JSON ``data`` as ``cls`` (a wire class, a union alias, ``list[...]``...).

    Raises WireError naming the offending field, e.g. ``name: required field missing``;
    ``path`` prefixes every field path (``path="params"`` → ``params.name: ...``).
    """
    try:
        return converter.structure(data, cls)
    except StructureHandlerNotFoundError:
        raise
    except Exception as exc:
        raise wire_error(exc, path) from exc


def unstructure(obj: Any) -> Any:
    """Write a wire object (or a dict or list of them) as JSON-able values, bytes as base64."""
    return converter.unstructure(obj)


__all__ = [
    "CacheScope",
    "Cursor",
    "JSONObject",
    "LoggingLevel",
    "MetaObject",
    "ProgressToken",
    "RequestId",
    "Role",
    "WireError",
    "converter",
    "structure",
    "unstructure",
    "ERROR_DATA_BY_CODE",
    "PARAMS_BY_METHOD",
    "RESULT_BY_METHOD",
    "SERVER_PARAMS_BY_METHOD",
    # capabilities
    "ClientCapabilities",
    "ElicitationCapability",
    "PromptsCapability",
    "ResourcesCapability",
    "RootsCapability",
    "SamplingCapability",
    "ServerCapabilities",
    "ToolsCapability",
    # common
    "Annotations",
    "EmptyResult",
    "Icon",
    "Implementation",
    "NotificationMeta",
    "RequestMeta",
    "Result",
    "ResultMeta",
    # completion
    "CompleteArgument",
    "CompleteContext",
    "CompleteResult",
    "Completion",
    "CompletionReference",
    "PromptReference",
    "ResourceTemplateReference",
    # content
    "AudioContent",
    "BlobResourceContents",
    "ContentBlock",
    "EmbeddedResource",
    "ImageContent",
    "ResourceContents",
    "ResourceLink",
    "SamplingContent",
    "SamplingMessageContentBlock",
    "TextContent",
    "TextResourceContents",
    "ToolResultContent",
    "ToolUseContent",
    # elicitation
    "BooleanSchema",
    "ElicitRequest",
    "ElicitRequestFormParams",
    "ElicitRequestParams",
    "ElicitRequestURLParams",
    "ElicitResult",
    "ElicitValue",
    "EnumOption",
    "EnumSchema",
    "LegacyTitledEnumSchema",
    "MultiSelectEnumSchema",
    "NumberSchema",
    "PrimitiveSchemaDefinition",
    "RequestedSchema",
    "SingleSelectEnumSchema",
    "StringSchema",
    "TitledEnumItems",
    "TitledMultiSelectEnumSchema",
    "TitledSingleSelectEnumSchema",
    "UntitledEnumItems",
    "UntitledMultiSelectEnumSchema",
    "UntitledSingleSelectEnumSchema",
    # input (2026-07-28)
    "InputRequest",
    "InputRequests",
    "InputRequiredResult",
    "InputResponse",
    "InputResponses",
    # jsonrpc
    "Error",
    "JSONRPCErrorResponse",
    "JSONRPCMessage",
    "JSONRPCNotification",
    "JSONRPCRequest",
    "JSONRPCResponse",
    "JSONRPCResultResponse",
    "MissingRequiredClientCapabilityErrorData",
    "UnsupportedProtocolVersionErrorData",
    "URLElicitationRequiredErrorData",
    # lifecycle
    "DiscoverResult",
    "InitializeResult",
    "SubscriptionFilter",
    "SubscriptionsListenResult",
    "SubscriptionsListenResultMeta",
    # notifications
    "CancelledNotificationParams",
    "ElicitationCompleteNotificationParams",
    "LoggingMessageNotificationParams",
    "NotificationParams",
    "ProgressNotificationParams",
    "ResourceUpdatedNotificationParams",
    "SubscriptionsAcknowledgedNotificationParams",
    # prompts
    "GetPromptResult",
    "ListPromptsResult",
    "Prompt",
    "PromptArgument",
    "PromptMessage",
    # requests
    "CallToolRequestParams",
    "CompleteRequestParams",
    "GetPromptRequestParams",
    "InitializeRequestParams",
    "PaginatedRequestParams",
    "ReadResourceRequestParams",
    "RequestParams",
    "SetLevelRequestParams",
    "SubscribeRequestParams",
    "SubscriptionsListenRequestParams",
    "UnsubscribeRequestParams",
    # resources
    "ListResourcesResult",
    "ListResourceTemplatesResult",
    "ReadResourceResult",
    "Resource",
    "ResourceTemplate",
    # roots
    "ListRootsRequest",
    "ListRootsRequestParams",
    "ListRootsResult",
    "Root",
    # sampling
    "CreateMessageRequest",
    "CreateMessageRequestParams",
    "CreateMessageResult",
    "ModelHint",
    "ModelPreferences",
    "SamplingMessage",
    "ToolChoice",
    # tools
    "CallToolResult",
    "ListToolsResult",
    "Tool",
    "ToolAnnotations",
]
