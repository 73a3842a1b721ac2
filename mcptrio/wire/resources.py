"""Resources: Resource, ResourceTemplate and the results of the ``resources/*`` requests."""

from typing import Any

import attrs

from ._base import CacheScope, MetaObject
from .common import Annotations, Icon, ResultMeta
from .content import ResourceContents


@attrs.frozen(kw_only=True)
class Resource:
    """A resource the server can read."""

    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None
    annotations: Annotations | None = None
    icons: list[Icon] | None = None
    meta: MetaObject | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class ResourceTemplate:
    """A family of resources, named by an RFC 6570 URI template."""

    uri_template: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    annotations: Annotations | None = None
    icons: list[Icon] | None = None
    meta: MetaObject | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class ListResourcesResult:
    """The server's answer to ``resources/list``."""

    resources: list[Resource]
    next_cursor: str | None = None
    ttl_ms: int | None = None
    cache_scope: CacheScope | None = None
    result_type: str | None = None
    meta: ResultMeta | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class ListResourceTemplatesResult:
    """The server's answer to ``resources/templates/list``."""

    resource_templates: list[ResourceTemplate]
    next_cursor: str | None = None
    ttl_ms: int | None = None
    cache_scope: CacheScope | None = None
    result_type: str | None = None
    meta: ResultMeta | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class ReadResourceResult:
    """The server's answer to ``resources/read``."""

    contents: list[ResourceContents]
    ttl_ms: int | None = None
    cache_scope: CacheScope | None = None
    result_type: str | None = None
    meta: ResultMeta | None = None
    extra: dict[str, Any] = attrs.Factory(dict)
