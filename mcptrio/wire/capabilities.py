"""What a client and a server declare they can do (ClientCapabilities, ServerCapabilities).

Fields of both eras: ``extensions`` is new in 2026-07-28, ``roots.listChanged`` is legacy, and a
legacy ``tasks`` capability is kept verbatim in ``extra``.
"""

from typing import Any

import attrs

from ._base import JSONObject

# -- client ---------------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class RootsCapability:
    """The client can list its roots (``roots/list``)."""

    list_changed: bool | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class SamplingCapability:
    """The client can sample an LLM; ``tools`` and ``context`` are opt-in sub-features."""

    context: JSONObject | None = None
    tools: JSONObject | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class ElicitationCapability:
    """The client can ask its user; an empty object means form mode only."""

    form: JSONObject | None = None
    url: JSONObject | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class ClientCapabilities:
    """Capabilities a client supports."""

    experimental: dict[str, JSONObject] | None = None
    extensions: dict[str, JSONObject] | None = None
    roots: RootsCapability | None = None
    sampling: SamplingCapability | None = None
    elicitation: ElicitationCapability | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


# -- server ---------------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class PromptsCapability:
    """The server offers prompts."""

    list_changed: bool | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class ResourcesCapability:
    """The server offers resources."""

    subscribe: bool | None = None
    list_changed: bool | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class ToolsCapability:
    """The server offers tools."""

    list_changed: bool | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class ServerCapabilities:
    """Capabilities a server supports."""

    experimental: dict[str, JSONObject] | None = None
    extensions: dict[str, JSONObject] | None = None
    logging: JSONObject | None = None
    completions: JSONObject | None = None
    prompts: PromptsCapability | None = None
    resources: ResourcesCapability | None = None
    tools: ToolsCapability | None = None
    extra: dict[str, Any] = attrs.Factory(dict)
