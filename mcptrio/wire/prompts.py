"""Prompts: Prompt, PromptArgument, PromptMessage and the results of ``prompts/list`` and ``prompts/get``."""

from typing import Any

import attrs

from ._base import CacheScope, MetaObject, Role
from .common import Icon, ResultMeta
from .content import ContentBlock


@attrs.frozen(kw_only=True)
class PromptArgument:
    """An argument a prompt template accepts."""

    name: str
    title: str | None = None
    description: str | None = None
    required: bool | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class Prompt:
    """A prompt or prompt template the server offers."""

    name: str
    title: str | None = None
    description: str | None = None
    arguments: list[PromptArgument] | None = None
    icons: list[Icon] | None = None
    meta: MetaObject | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class PromptMessage:
    """One message of a prompt's result."""

    role: Role
    content: ContentBlock
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class ListPromptsResult:
    """The server's answer to ``prompts/list``."""

    prompts: list[Prompt]
    next_cursor: str | None = None
    ttl_ms: int | None = None
    cache_scope: CacheScope | None = None
    result_type: str | None = None
    meta: ResultMeta | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class GetPromptResult:
    """The server's answer to ``prompts/get``."""

    messages: list[PromptMessage]
    description: str | None = None
    result_type: str | None = None
    meta: ResultMeta | None = None
    extra: dict[str, Any] = attrs.Factory(dict)
