"""Which scopes an operation needs, and whether a token's scopes (with what they imply) suffice.

Three sources, all added together: the scopes every request needs (``--auth-scopes``), those a
tool, prompt or resource declares (``@plugin.tool(scopes=[...])``) and those the operator adds
by name or URI in configuration (for plugins they cannot change).  Hierarchies are the
operator's too: ``implied`` maps a broad scope to the narrower ones it includes, transitively
(``files:write`` → ``files:read``), as the spec's "Servers MUST account for scope hierarchies"
asks.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from ..protocol.methods import METHODS


def _frozen(scopes: Iterable[str]) -> frozenset[str]:
    return frozenset(scopes)  # (converter=frozenset itself would type the parameter Iterable[_T_co])


def _frozen_table(table: Mapping[str, Any]) -> Mapping[str, frozenset[str]]:
    return {str(key): frozenset(value) for key, value in dict(table).items()}


@attrs.frozen
class ScopePolicy:
    """The scopes of every request, those added per tool/prompt/resource, and the hierarchy."""

    required: frozenset[str] = attrs.field(default=frozenset(), converter=_frozen)
    tools: Mapping[str, frozenset[str]] = attrs.field(factory=dict, converter=_frozen_table)
    prompts: Mapping[str, frozenset[str]] = attrs.field(factory=dict, converter=_frozen_table)
    resources: Mapping[str, frozenset[str]] = attrs.field(factory=dict, converter=_frozen_table)
    implied: Mapping[str, frozenset[str]] = attrs.field(factory=dict, converter=_frozen_table)

    def needed(self, method: str, params: Any, declared: frozenset[str] = frozenset()) -> frozenset[str]:
        """Every scope ``method`` on ``params`` needs: the required ones, ``declared`` by its handler,
        and, when the method is ``scoped`` (``protocol/methods.py``), those configured for its target
        (the table named by the target's kind)."""
        needed = self.required | declared
        spec = METHODS.get(method)
        target = spec.target if spec is not None and spec.scoped else None
        if target is not None and target.kind is not None and isinstance(params, dict):
            name = params.get(target.param)
            if isinstance(name, str):
                configured: Mapping[str, frozenset[str]] = getattr(self, target.kind)
                needed |= configured.get(name, frozenset())
        return needed

    def granted(self, scopes: frozenset[str]) -> frozenset[str]:
        """``scopes`` with everything they imply, transitively."""
        if not self.implied:
            return scopes
        seen, todo = set(scopes), list(scopes)
        while todo:
            for narrower in self.implied.get(todo.pop(), ()):
                if narrower not in seen:
                    seen.add(narrower)
                    todo.append(narrower)
        return frozenset(seen)

    def missing(self, scopes: frozenset[str], needed: frozenset[str]) -> frozenset[str]:
        """What of ``needed`` the token's ``scopes`` lack, hierarchy considered (empty: enough)."""
        if needed <= scopes:
            return frozenset()
        return needed - self.granted(scopes)
