"""The messages workers send each other through the shared state's fan-out, and their one codec.

Each kind is a frozen attrs class.  On the wire a message is one compact JSON object: ``k`` its
kind, ``w`` the worker that sent it, then its fields, under the short names of ``WIRE_NAMES`` (a
field's own name otherwise); an optional field that is None is left out.  The decoder is
tolerant, because workers of two releases share one fan-out while they are upgraded: a kind it
does not know, or a message it cannot read, is logged at debug level and skipped, and a field it
does not know is ignored.
"""

from __future__ import annotations

import logging
import types
import typing
from typing import Any, ClassVar, Union

import attrs
import orjson

from ..protocol.events import RequestId

log = logging.getLogger("mcptrio.state")

JsonObject = dict[str, Any]  # a JSON object carried as it is (a task record, a client's answer)


# -- the shared state itself ------------------------------------------------------------------


@attrs.frozen
class KeysRotated:
    """The ``requestState`` sealing keys changed: every worker reads them again."""

    KIND: ClassVar[str] = "keys"


# -- change notifications (app) ---------------------------------------------------------------


@attrs.frozen
class ListChanged:
    """A ``notifications/*/list_changed``, for the sessions and listen streams of every worker."""

    KIND: ClassVar[str] = "list"
    method: str
    filter_key: str  # the subscriptions/listen filter it belongs to, e.g. ``toolsListChanged``


@attrs.frozen
class ResourceUpdated:
    """A ``notifications/resources/updated`` of ``uri``, for every worker's subscribers."""

    KIND: ClassVar[str] = "updated"
    uri: str


@attrs.frozen
class ComponentsSwitched:
    """Components switched on or off server-wide (``app.enable``/``app.disable``), by name or tag."""

    KIND: ClassVar[str] = "switched"
    on: bool
    names: list[str]
    tags: list[str]


# -- tasks (app.tasks) ------------------------------------------------------------------------


@attrs.frozen
class TaskChanged:
    """A task's record changed (for other workers' listeners)."""

    KIND: ClassVar[str] = "task"
    record: JsonObject


@attrs.frozen
class TaskCancelRequested:
    """Cancel task ``task_id``: for the worker running it."""

    KIND: ClassVar[str] = "task-cancel"
    task_id: str


@attrs.frozen
class TaskInputDelivered:
    """``inputResponses`` for task ``task_id``: for the worker running it."""

    KIND: ClassVar[str] = "task-update"
    task_id: str
    responses: JsonObject


# -- legacy sessions (transports.http) --------------------------------------------------------


@attrs.frozen
class RequestCancelled:
    """A ``notifications/cancelled`` for a request of ``session`` that another worker runs."""

    KIND: ClassVar[str] = "cancel"
    session: str
    request_id: RequestId


@attrs.frozen
class ClientReplied:
    """A client's answer to a server→client request another worker is waiting for."""

    KIND: ClassVar[str] = "reply"
    session: str
    request_id: RequestId
    result: JsonObject | None = None
    error: JsonObject | None = None


@attrs.frozen
class StreamCarried:
    """Another worker started (``carried``) or stopped carrying ``stream`` to a resumed client."""

    KIND: ClassVar[str] = "carried"
    session: str
    stream: int
    carried: bool


@attrs.frozen
class SessionChanged:
    """A request changed these fields of the session's shared record (log level, subscriptions...)."""

    KIND: ClassVar[str] = "session"
    session: str
    fields: JsonObject


@attrs.frozen
class SessionEnded:
    """The session was deleted: every worker holding it lets go."""

    KIND: ClassVar[str] = "ended"
    session: str


SessionMessage = RequestCancelled | ClientReplied | StreamCarried | SessionChanged | SessionEnded
FanoutMessage = (
    KeysRotated
    | ListChanged
    | ResourceUpdated
    | ComponentsSwitched
    | TaskChanged
    | TaskCancelRequested
    | TaskInputDelivered
    | SessionMessage
)

# Field names that are shorter on the wire.  Kept as the first release wrote them, so workers of
# two releases read each other's messages while a deployment upgrades.
WIRE_NAMES = {"session": "s", "request_id": "id", "task_id": "id", "filter_key": "filter", "carried": "on"}


@attrs.frozen
class _Field:
    name: str
    wire: str
    types: tuple[type, ...]  # what a decoded value must be an instance of
    optional: bool  # may be absent (None); left out of the wire when None


def _runtime_types(hint: Any) -> tuple[type, ...]:
    origin = typing.get_origin(hint)
    if origin is Union or origin is types.UnionType:
        return tuple(t for arg in typing.get_args(hint) for t in _runtime_types(arg))
    return (origin or hint,)


def _fields_of(cls: type) -> tuple[_Field, ...]:
    hints = typing.get_type_hints(cls)
    out = []
    for field in attrs.fields(cls):
        kinds = _runtime_types(hints[field.name])
        out.append(_Field(field.name, WIRE_NAMES.get(field.name, field.name), kinds, type(None) in kinds))
    return tuple(out)


_KINDS: dict[str, tuple[type[FanoutMessage], tuple[_Field, ...]]] = {
    cls.KIND: (cls, _fields_of(cls)) for cls in typing.get_args(FanoutMessage)
}


def encode(message: FanoutMessage, worker: str) -> bytes:
    """``message`` from ``worker``, as the fan-out carries it."""
    data: dict[str, Any] = {"k": message.KIND, "w": worker}
    for field in _KINDS[message.KIND][1]:
        value = getattr(message, field.name)
        if value is not None or not field.optional:
            data[field.wire] = value
    return orjson.dumps(data)


def decode(data: str | bytes) -> tuple[str, FanoutMessage] | None:
    """(the sending worker, the message), or None for what this release cannot read (logged)."""
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        log.debug("a fan-out message that is not JSON was skipped: %r", data[:80])
        return None
    kind = value.get("k") if isinstance(value, dict) else None
    known = _KINDS.get(kind) if isinstance(kind, str) else None
    if known is None:
        log.debug("a fan-out message of a kind this release does not know was skipped: %r", data[:80])
        return None
    cls, fields = known
    sender = value.get("w")
    if not isinstance(sender, str):
        log.debug("a fan-out message without its sender was skipped: %r", data[:80])
        return None
    arguments: dict[str, Any] = {}
    for field in fields:
        found = value.get(field.wire)
        if not isinstance(found, field.types) or (isinstance(found, bool) and bool not in field.types):
            log.debug("a malformed fan-out message was skipped (%s): %r", field.wire, data[:80])
            return None
        if found is not None:
            arguments[field.name] = found
    return sender, cls(**arguments)
