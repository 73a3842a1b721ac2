"""Argument completion: the references it completes for, and the result of ``completion/complete``."""

from typing import Any, Literal

import attrs

from .common import ResultMeta


@attrs.frozen(kw_only=True)
class PromptReference:
    """Completion for an argument of a prompt."""

    type: Literal["ref/prompt"] = "ref/prompt"
    name: str
    title: str | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class ResourceTemplateReference:
    """Completion for a variable of a resource template."""

    type: Literal["ref/resource"] = "ref/resource"
    uri: str
    extra: dict[str, Any] = attrs.Factory(dict)


CompletionReference = PromptReference | ResourceTemplateReference


@attrs.frozen(kw_only=True)
class CompleteArgument:
    """The argument being completed, and what the user typed so far."""

    name: str
    value: str
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class CompleteContext:
    """Arguments already resolved, to narrow the completion."""

    arguments: dict[str, str] | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class Completion:
    """Completion values (at most 100), with the total and whether more exist."""

    values: list[str]
    total: int | None = None
    has_more: bool | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class CompleteResult:
    """The server's answer to ``completion/complete``."""

    completion: Completion
    result_type: str | None = None
    meta: ResultMeta | None = None
    extra: dict[str, Any] = attrs.Factory(dict)
