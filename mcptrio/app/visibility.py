"""Who sees what: which tools, prompts, resources and templates each request may list and use.

Four things hide a component, all judged per request: the operator's tag filters
(``include_tags``/``exclude_tags``), what was switched off at run time (server-wide, or for one
legacy session), the rules in code (``visible(component, request) -> bool``), and, in *filter*
mode, the scopes the caller's token lacks.  A hidden component is absent from its list and is
answered as an unknown name.  In *show* mode the scopes hide nothing: the component is listed and
a call without its scopes gets the ``insufficient_scope`` step-up (``authorization.py``).

With none of these configured, ``Visibility.active`` is False and the method handlers skip it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..protocol import errors
from ..protocol.errors import McpError
from .middleware import Request
from .registry import PromptEntry, ResourceEntry, TemplateEntry, ToolEntry, tag_set

if TYPE_CHECKING:
    from ..auth import ScopePolicy
    from .context import Context
    from .registry import Registry

log = logging.getLogger("mcptrio.app")

Component = ToolEntry | PromptEntry | ResourceEntry | TemplateEntry
# (component, request) -> shown?
Rule = Callable[[Component, Request], bool]
MODES = ("filter", "show")
# Each kind's table in the registry, the scope policy's table for it, and the list_changed it sends.
KINDS = ("tools", "prompts", "resources", "templates")
POLICY_TABLE = {"tools": "tools", "prompts": "prompts", "resources": "resources", "templates": "resources"}
CHANGED = {
    "tools": ("notifications/tools/list_changed", "toolsListChanged"),
    "prompts": ("notifications/prompts/list_changed", "promptsListChanged"),
    "resources": ("notifications/resources/list_changed", "resourcesListChanged"),
    "templates": ("notifications/resources/list_changed", "resourcesListChanged"),
}


def key_of(entry: Component) -> str:
    """What names a component in switches and scope tables: a name, a URI or a URI template."""
    if isinstance(entry, TemplateEntry):
        return entry.uri_template
    return entry.uri if isinstance(entry, ResourceEntry) else entry.name


class Switches:
    """Components switched on and off by name (a name, URI or URI template) or by tag; a name beats
    a tag, and a tag switched off beats one switched on.  JSON-shaped, to be kept in a shared
    session record: ``{"names": {key: on}, "tags": {tag: on}}``."""

    __slots__ = ("names", "tags")

    def __init__(self, names: dict[str, bool] | None = None, tags: dict[str, bool] | None = None) -> None:
        self.names: dict[str, bool] = dict(names or {})
        self.tags: dict[str, bool] = dict(tags or {})

    @classmethod
    def from_json(cls, value: Any) -> Switches | None:
        if not isinstance(value, dict):
            return None
        names, tags = value.get("names"), value.get("tags")
        return cls(
            {str(k): bool(v) for k, v in names.items()} if isinstance(names, dict) else None,
            {str(k): bool(v) for k, v in tags.items()} if isinstance(tags, dict) else None,
        )

    def to_json(self) -> dict[str, dict[str, bool]]:
        return {"names": dict(self.names), "tags": dict(self.tags)}

    def __bool__(self) -> bool:
        return bool(self.names or self.tags)

    def set(self, on: bool, names: Iterable[str], tags: Iterable[str], *, forget: bool = False) -> None:
        """Switch ``names`` and ``tags`` ``on`` (or off); ``forget``: once nothing is off any more,
        forget it all (server-wide, where on is the default)."""
        for table, keys in ((self.names, names), (self.tags, tags)):
            for key in keys:
                table[key] = on
        if forget and all(self.names.values()) and all(self.tags.values()):
            self.names.clear()
            self.tags.clear()

    def opinion(self, key: str, tags: frozenset[str]) -> bool | None:
        """On, off, or None: nothing switched says."""
        found = self.names.get(key)
        if found is not None:
            return found
        if self.tags and tags:
            said = [self.tags[tag] for tag in tags if tag in self.tags]
            if said:
                return all(said)
        return None


class Visibility:
    """The app's visibility settings and run-time switches, and the one judgement made of them."""

    def __init__(
        self,
        mode: str = "show",
        include_tags: Iterable[str] = (),
        exclude_tags: Iterable[str] = (),
        rules: Iterable[Rule] = (),
    ) -> None:
        if mode not in MODES:
            raise ValueError(f'visibility must be "filter" or "show", not {mode!r}')
        self.mode = mode
        self.include = tag_set(include_tags, "include_tags")
        self.exclude = tag_set(exclude_tags, "exclude_tags")
        self.rules: list[Rule] = []
        self.switches = Switches()  # server-wide
        self.policy: ScopePolicy | None = None  # set by the App when authorization is on
        self.sessions_switched = False  # some session switched something for itself: look at each
        self.switched = False  # something is switched server-wide
        self.scopes_hide = False  # filter mode with authorization on: what a token lacks the scopes for is hidden
        self.active = False  # anything to judge at all (else lists and lookups skip this)
        self.per_caller = False  # lists may differ between callers (2026-07-28 cacheScope "private")
        for rule in rules:
            self.add_rule(rule)
        self.refresh()

    def add_rule(self, rule: Rule) -> Rule:
        if not callable(rule):
            raise TypeError(f"a visibility rule must be a callable (component, request) -> bool, not {rule!r}")
        self.rules.append(rule)
        self.refresh()
        return rule

    def session_switched(self) -> None:
        """Some session has components switched for it alone: each session's own are looked at."""
        if not self.sessions_switched:
            self.sessions_switched = True
            self.refresh()

    def use_policy(self, policy: ScopePolicy | None) -> None:
        self.policy = policy
        self.refresh()

    def refresh(self) -> None:
        """Work out again what there is to judge (after any change of the settings or switches)."""
        self.scopes_hide = self.mode == "filter" and self.policy is not None
        self.switched = bool(self.switches)
        self.per_caller = bool(self.rules) or self.scopes_hide or self.sessions_switched
        self.active = self.per_caller or bool(self.include or self.exclude or self.switched)

    # -- the judgement --------------------------------------------------------------------

    def hides(self, kind: str, entry: Component, ctx: Context, params: dict[str, Any] | None = None) -> bool:
        """Is ``entry`` hidden from ``ctx``'s caller (answered as if it did not exist)?  ``params``:
        the request's, where middleware changed them (the rules see those)."""
        if not self.active:
            return False
        request = None if params is None or params is ctx.incoming.params else Request(ctx, params)
        return not self.allows(kind, entry, ctx, request)

    def allows(self, kind: str, entry: Component, ctx: Context, request: Request | None = None) -> bool:
        """May ``ctx``'s caller see and use ``entry`` (of registry table ``kind``)?  A rule that raises
        fails the request with an internal error (logged), nothing more."""
        tags: frozenset[str] = entry.tags
        if self.include and self.include.isdisjoint(tags):
            return False
        if self.exclude and not self.exclude.isdisjoint(tags):
            return False
        key = key_of(entry) if self.sessions_switched or self.switched or self.scopes_hide else ""
        said: bool | None = None
        if self.sessions_switched:
            own: Switches | None = ctx.session.switches
            said = own.opinion(key, tags) if own is not None else None
        if said is None and self.switched:
            said = self.switches.opinion(key, tags)
        if said is False:
            return False
        if self.scopes_hide and not self._has_scopes(kind, key, entry, ctx):
            return False
        if self.rules:
            request = request or Request(ctx, ctx.incoming.params)
            for rule in self.rules:
                try:
                    shown = rule(entry, request)
                except Exception:
                    raise self._rule_failed(rule, kind, entry) from None
                if not shown:
                    return False
        return True

    def _has_scopes(self, kind: str, key: str, entry: Component, ctx: Context) -> bool:
        principal = ctx.principal
        policy = self.policy
        if principal is None or policy is None:
            return True  # (a transport that does not authenticate: nothing is checked)
        configured = getattr(policy, POLICY_TABLE[kind]).get(key)
        needed: frozenset[str] = entry.scopes if configured is None else entry.scopes | configured
        return not needed or not policy.missing(principal.scopes, needed)

    def judge(self, kind: str, ctx: Context) -> Callable[[Component], bool]:
        """``allows`` for one list request: whether each entry of ``kind`` is shown to ``ctx``'s caller.
        With nothing but rules configured, or nothing but the scopes (filter mode), a quicker test
        of that alone."""
        request = Request(ctx, ctx.incoming.params) if self.rules else None
        only_one_thing = not (self.include or self.exclude or self.switched or self.sessions_switched)
        if only_one_thing and request is not None and not self.scopes_hide:
            rules = self.rules

            def by_rules(entry: Component) -> bool:
                for rule in rules:
                    try:
                        if not rule(entry, request):
                            return False
                    except Exception:
                        raise self._rule_failed(rule, kind, entry) from None
                return True

            return by_rules
        if only_one_thing and request is None and self.scopes_hide:
            return self._by_scopes(kind, ctx)
        return lambda entry: self.allows(kind, entry, ctx, request)

    def _by_scopes(self, kind: str, ctx: Context) -> Callable[[Component], bool]:
        """Has the caller every scope each entry needs?  What it holds worked out once per list."""
        principal, policy = ctx.principal, self.policy
        if principal is None or policy is None:
            return lambda entry: True  # (a transport that does not authenticate: nothing is checked)
        granted = policy.granted(principal.scopes)
        configured: Mapping[str, frozenset[str]] = getattr(policy, POLICY_TABLE[kind])
        if not configured:
            return lambda entry: entry.scopes <= granted

        def by_scopes(entry: Component) -> bool:
            extra = configured.get(key_of(entry))
            return (entry.scopes if extra is None else entry.scopes | extra) <= granted

        return by_scopes

    @staticmethod
    def _rule_failed(rule: Rule, kind: str, entry: Component) -> McpError:
        log.exception("visibility rule %s failed on %s %r", getattr(rule, "__qualname__", rule), kind, key_of(entry))
        return errors.internal_error("a visibility rule failed")

    # -- checks at load -------------------------------------------------------------------

    def check(self, registry: Registry) -> None:
        """A tag in ``include_tags``/``exclude_tags`` no component has is a mistake: say which."""
        if not (self.include or self.exclude):
            return
        known = {tag for kind in KINDS for entry in getattr(registry, kind).values() for tag in entry.tags}
        for setting, tags in (("include_tags", self.include), ("exclude_tags", self.exclude)):
            unknown = sorted(tags - known)
            if unknown:
                raise ValueError(f"{setting}: no tool, prompt or resource has the tag {unknown[0]!r}")

    def affected(self, registry: Registry, names: Iterable[str], tags: Iterable[str]) -> list[str]:
        """The kinds (registry tables) with a component of one of ``names`` or ``tags``; a name or
        tag that no component has is refused (ValueError naming it)."""
        names, tags = set(names), set(tags)
        kinds: list[str] = []
        seen_names: set[str] = set()
        seen_tags: set[str] = set()
        for kind in KINDS:
            table: dict[str, Any] = getattr(registry, kind)
            hit = names & table.keys()
            seen_names |= hit
            tagged = {tag for entry in table.values() for tag in entry.tags & tags} if tags else set()
            seen_tags |= tagged
            if hit or tagged:
                kinds.append(kind)
        for what, wanted, seen in (("name", names, seen_names), ("tag", tags, seen_tags)):
            missing = sorted(wanted - seen)
            if missing:
                raise ValueError(f"no tool, prompt or resource has the {what} {missing[0]!r}")
        return kinds


def changed_lists(kinds: Iterable[str]) -> list[tuple[str, str]]:
    """The ``(list_changed method, listen filter key)`` pairs for ``kinds``, each once."""
    out: list[tuple[str, str]] = []
    for kind in kinds:
        if CHANGED[kind] not in out:
            out.append(CHANGED[kind])
    return out
