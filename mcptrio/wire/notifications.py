"""The params of notifications, both directions and both eras.

``requestId`` of ``notifications/cancelled`` is optional because 2025-11-25 made it so.
"""

from typing import Any

import attrs

from ._base import LoggingLevel, ProgressToken, RequestId
from .common import NotificationMeta
from .lifecycle import SubscriptionFilter


@attrs.frozen(kw_only=True)
class NotificationParams:
    """Params with nothing but ``_meta``: the ``list_changed`` and ``initialized`` notifications."""

    meta: NotificationMeta | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class CancelledNotificationParams:
    """Params of ``notifications/cancelled``: which request to abandon, and why."""

    request_id: RequestId | None = None
    reason: str | None = None
    meta: NotificationMeta | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class ProgressNotificationParams:
    """Params of ``notifications/progress``."""

    progress_token: ProgressToken
    progress: float
    total: float | None = None
    message: str | None = None
    meta: NotificationMeta | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class LoggingMessageNotificationParams:
    """Params of ``notifications/message``: a log entry; ``data`` is any JSON value."""

    level: LoggingLevel
    data: Any
    logger: str | None = None
    meta: NotificationMeta | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class ResourceUpdatedNotificationParams:
    """Params of ``notifications/resources/updated``."""

    uri: str
    meta: NotificationMeta | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class SubscriptionsAcknowledgedNotificationParams:
    """Params of ``notifications/subscriptions/acknowledged``: what the listen stream was granted."""

    notifications: SubscriptionFilter
    meta: NotificationMeta | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class ElicitationCompleteNotificationParams:
    """Params of the legacy ``notifications/elicitation/complete``: a URL elicitation finished."""

    elicitation_id: str
    meta: NotificationMeta | None = None
    extra: dict[str, Any] = attrs.Factory(dict)
