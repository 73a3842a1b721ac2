"""The App: a registry that serves, composed of its own handlers and any plugins it includes."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import TYPE_CHECKING, Any, Iterator

import attrs

from .protocol.session import META_SUBSCRIPTION_ID, ServerIdentity
from .protocol.versions import at_least
from .registry import Registry
from .runtime.limits import SessionLimits

if TYPE_CHECKING:
    from .runtime.core import SessionCore



@attrs.define(eq=False)
class Listener:
    """A live ``subscriptions/listen`` stream (2026-07-28) and what it opted in to."""

    session: SessionCore
    request_id: Any
    filter: dict[str, Any]
    route: Any = None


class App(Registry):
    """Everything one server offers, plus who it is and the limits its sessions run under."""

    def __init__(self, name: str = "mcptrio", version: str = "0.1.0", *, title: str | None = None,
                 instructions: str | None = None, limits: SessionLimits | None = None, page_size: int = 100,
                 cache_ttl_ms: int = 0, cache_scope: str = "public", state_key: bytes | None = None) -> None:
        super().__init__(name)
        self.version = version
        self.limits = limits or SessionLimits()
        self.page_size = page_size
        self.identity = ServerIdentity(name, version, self.capabilities, title=title, instructions=instructions,
                                       cache_ttl_ms=cache_ttl_ms, cache_scope=cache_scope)
        # Seals requestState; set one shared key (or MCPTRIO_STATE_KEY) when several processes serve.
        env_key = os.environ.get("MCPTRIO_STATE_KEY")
        self.state_key = state_key or (env_key.encode() if env_key else os.urandom(32))
        self.sessions: set[SessionCore] = set()
        self.listeners: set[Listener] = set()
        self.plugins: list[str] = []

    # -- composition ----------------------------------------------------------------------

    def include(self, plugin: Registry, *, prefix: str | None = None) -> None:
        """Add a plugin's handlers; a clash names both owners, ``prefix`` renames tools and prompts."""
        owner = plugin.name or "plugin"

        def claimed(entries: dict[str, Any], rename: bool) -> dict[str, Any]:
            out = {}
            for key, entry in entries.items():
                new = f"{prefix}_{key}" if prefix and rename else key
                out[new] = attrs.evolve(entry, name=new, owner=owner) if rename else attrs.evolve(entry, owner=owner)
            return out

        staged = [(self.tools, claimed(plugin.tools, True), "tool"),
                  (self.prompts, claimed(plugin.prompts, True), "prompt"),
                  (self.resources, claimed(plugin.resources, False), "resource"),
                  (self.templates, claimed(plugin.templates, False), "resource template")]
        for table, new, kind in staged:
            for key in new:
                if key in table:
                    raise ValueError(
                        f"{kind} {key!r} of plugin {owner!r} clashes with the one of "
                        f"{table[key].owner or self.name!r}; include one of them with a prefix"
                    )
        for table, new, _ in staged:
            table.update(new)
        self.plugins.append(owner)

    # -- what the protocol needs ----------------------------------------------------------

    def capabilities(self, era: str, version: str) -> dict[str, Any]:
        caps: dict[str, Any] = {"logging": {}}
        if self.tools:
            caps["tools"] = {"listChanged": True}
        if self.resources or self.templates:
            caps["resources"] = {"listChanged": True, "subscribe": True}
        if self.prompts:
            caps["prompts"] = {"listChanged": True}
        if (self.prompts or self.templates) and (era == "modern" or at_least(version, "2025-03-26")):
            caps["completions"] = {}
        return caps

    @contextlib.contextmanager
    def attach(self, session: SessionCore) -> Iterator[None]:
        self.sessions.add(session)
        try:
            yield
        finally:
            self.detach(session)

    def detach(self, session: SessionCore) -> None:
        """The session ended: no more notifications to it, nor to its subscriptions."""
        self.sessions.discard(session)
        self.listeners = {item for item in self.listeners if item.session is not session}

    def on_client_notification(self, method: str, params: dict[str, Any]) -> None:
        """Client notifications other than cancel/initialized; currently only noted on stderr."""
        if method not in ("notifications/roots/list_changed", "notifications/progress"):
            print(f"mcptrio: ignoring client notification {method}", file=sys.stderr)

    # -- change notifications -------------------------------------------------------------

    # These never wait on a client: a session that is not reading drops (stdio) or loses its
    # stream (HTTP) instead of stalling the caller.  They are async for symmetry and future use.

    async def notify_tools_changed(self) -> None:
        await self._list_changed("notifications/tools/list_changed", "toolsListChanged")

    async def notify_prompts_changed(self) -> None:
        await self._list_changed("notifications/prompts/list_changed", "promptsListChanged")

    async def notify_resources_changed(self) -> None:
        await self._list_changed("notifications/resources/list_changed", "resourcesListChanged")

    async def notify_resource_updated(self, uri: str) -> None:
        """``notifications/resources/updated`` to every session and stream subscribed to ``uri``."""
        message = {"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": uri}}
        for session in list(self.sessions):
            if uri in session.subscriptions:
                session.post(message)
        for listener in list(self.listeners):
            if uri in (listener.filter.get("resourceSubscriptions") or ()):
                self._to_listener(listener, "notifications/resources/updated", {"uri": uri})

    async def _list_changed(self, method: str, filter_key: str) -> None:
        message = {"jsonrpc": "2.0", "method": method}
        for session in list(self.sessions):
            if session.protocol.state != "new":
                session.post(message)
        for listener in list(self.listeners):
            if listener.filter.get(filter_key):
                self._to_listener(listener, method, {})

    @staticmethod
    def _to_listener(listener: Listener, method: str, params: dict[str, Any]) -> None:
        params = {"_meta": {META_SUBSCRIPTION_ID: listener.request_id}, **params}
        listener.session.post({"jsonrpc": "2.0", "method": method, "params": params}, listener.route)
