"""Change notifications from the server to its clients: legacy sessions and listen streams.

They never wait on a client: a session that is not reading drops the message (stdio) or loses
its stream (HTTP) instead of stalling the caller.  Listen streams are found by what they listen
to (a list's changes, a resource's URI, a task's id), so a change visits only its own listeners.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from ..protocol.session import META_SUBSCRIPTION_ID

if TYPE_CHECKING:
    from ..protocol.events import RequestId, Route
    from ..runtime.core import SessionCore
    from .tasks.records import TaskRecord

LISTEN_FILTER_KEYS = ("toolsListChanged", "promptsListChanged", "resourcesListChanged", "resourceSubscriptions")


@attrs.define(eq=False)
class Listener:
    """A live ``subscriptions/listen`` stream (2026-07-28) and what it opted in to."""

    session: SessionCore | None  # None once parked: the route alone carries the stream
    request_id: RequestId
    filter: dict[str, Any]
    route: Route | None = None

    def park(self, route: Route) -> None:
        """The transport keeps the stream now (``SessionCore.park``): posted to ``route``, and
        the session (its request is over) is let go."""
        self.route, self.session = route, None


class Audience:
    """Who receives change notifications: live sessions and open listen streams."""

    def __init__(self) -> None:
        self.sessions: set[SessionCore] = set()
        self.listeners: set[Listener] = set()
        # What a listener listens to -> the listeners, in the order they came (a dict as an ordered set).
        self._by_topic: dict[tuple[str, str], dict[Listener, None]] = {}

    def listen(self, listener: Listener) -> None:
        """An open listen stream: told of the changes its filter names from now on."""
        self.listeners.add(listener)
        for topic in _topics(listener):
            self._by_topic.setdefault(topic, {})[listener] = None

    def unlisten(self, listener: Listener) -> None:
        """The stream ended: its registrations go with it."""
        self.listeners.discard(listener)
        for topic in _topics(listener):
            members = self._by_topic.get(topic)
            if members is not None:
                members.pop(listener, None)
                if not members:
                    del self._by_topic[topic]

    def listening(self, key: str, value: str = "") -> list[Listener]:
        """The listen streams registered for ``key`` (a list's filter key; ``resourceSubscriptions``
        with a URI, ``taskIds`` with a task id)."""
        return list(self._by_topic.get((key, value), ()))

    def forget(self, session: SessionCore) -> None:
        """The session ended: no more notifications to it, nor to its listen streams."""
        self.sessions.discard(session)
        for listener in [item for item in self.listeners if item.session is session]:
            self.unlisten(listener)

    def list_changed(self, method: str, filter_key: str) -> None:
        message = {"jsonrpc": "2.0", "method": method}
        for session in list(self.sessions):
            if session.protocol.state != "new":
                session.post(message)
        for listener in self.listening(filter_key):
            _to_listener(listener, method, {})

    def task_changed(self, record: TaskRecord) -> None:
        """A task's status changed: ``notifications/tasks`` to the listen streams that asked for it
        (2026-07-28), ``notifications/tasks/status`` to the session that made it (2025-11-25)."""
        if record.era == "modern":
            for listener in self.listening("taskIds", record.task_id):
                _to_listener(listener, "notifications/tasks", record.modern())
            return
        for session in list(self.sessions):
            if record.owner.endswith(task_session(session)):
                session.post({"jsonrpc": "2.0", "method": "notifications/tasks/status", "params": record.legacy()})

    def resource_updated(self, uri: str) -> None:
        message = {"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": uri}}
        for session in list(self.sessions):
            if uri in session.subscriptions:
                session.post(message)
        for listener in self.listening("resourceSubscriptions", uri):
            _to_listener(listener, "notifications/resources/updated", {"uri": uri})


def task_session(session: SessionCore) -> str:
    """How a 2025-11-25 session's tasks name it in their owner (tasks/methods.owner_of)."""
    return f"session:{session.session_id or id(session)}"


def _topics(listener: Listener) -> list[tuple[str, str]]:
    """What ``listener`` is registered under: each list it follows, each URI and task id it names."""
    found = listener.filter
    topics = [(key, "") for key in LISTEN_FILTER_KEYS[:3] if found.get(key)]
    topics += [("resourceSubscriptions", uri) for uri in dict.fromkeys(found.get("resourceSubscriptions") or ())]
    topics += [("taskIds", task_id) for task_id in dict.fromkeys(found.get("taskIds") or ())]
    return topics


def _to_listener(listener: Listener, method: str, params: dict[str, Any]) -> None:
    params = {"_meta": {META_SUBSCRIPTION_ID: listener.request_id}, **params}
    message = {"jsonrpc": "2.0", "method": method, "params": params}
    if listener.session is not None:
        listener.session.post(message, listener.route)
    elif listener.route is not None:  # (parked)
        listener.route.post(message)
