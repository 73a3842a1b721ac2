"""The app's part of authorization: which scopes each request needs, checked in the pipeline.

The HTTP transport checks scopes itself before it dispatches (a missing scope is a ``403``
on the HTTP response, the spec's step-up challenge); this middleware checks them wherever no
status can be sent (WebSocket, the 2024-11-05 SSE transport) and is the second lock on HTTP.
A request without a principal came over a transport that does not authenticate (stdio, in
memory) and is not checked.  With ``visibility="filter"`` only the scopes every request needs are
checked here: a component the token lacks the scopes for is hidden instead (``visibility.py``), and
answered as an unknown name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..protocol.errors import FORBIDDEN, McpError
from ..protocol.methods import METHODS
from .tool_search import unwrapped

if TYPE_CHECKING:
    from ..auth import ScopePolicy
    from ..auth.principal import Principal
    from .middleware import CallNext, Request
    from .registry import Registry


def declared_scopes(registry: Registry, method: str, params: Any) -> frozenset[str]:
    """The scopes the tool, prompt, resource or template the request names declares, when its
    method is ``scoped`` (``protocol/methods.py``)."""
    spec = METHODS.get(method)
    target = spec.target if spec is not None and spec.scoped else None
    name = params.get(target.param) if target is not None and isinstance(params, dict) else None
    if target is None or not isinstance(name, str):
        return frozenset()
    entry: Any
    if target.kind == "tools":
        entry = registry.tools.get(name)
    elif target.kind == "prompts":
        entry = registry.prompts.get(name)
    else:
        entry = registry.resources.get(name)
        if entry is None:
            entry = next((t for t in registry.templates.values() if t.match(name) is not None), None)
    return entry.scopes if entry is not None else frozenset()


class ScopeCheck:
    """The middleware: a principal without every scope the request needs gets ``FORBIDDEN``."""

    def __init__(self, registry: Registry, policy: ScopePolicy, hides: bool = False, by_name: bool = False) -> None:
        self.registry = registry
        self.policy = policy
        self.hides = hides  # filter mode: what a token lacks the scopes for is hidden, not refused
        self.by_name = by_name  # tool search: a call_tool call needs what its tool needs

    def needed(self, method: str, params: Any) -> frozenset[str]:
        if self.hides:
            return self.policy.required
        if self.by_name and method == "tools/call":
            params = unwrapped(params)
        return self.policy.needed(method, params, declared_scopes(self.registry, method, params))

    def check(self, principal: Principal, method: str, params: Any) -> None:
        """Raise ``FORBIDDEN`` unless ``principal`` has every scope the request needs."""
        needed = self.needed(method, params)
        if self.policy.missing(principal.scopes, needed):
            scopes = sorted(needed)
            raise McpError(
                FORBIDDEN,
                f"insufficient scope: this request needs {' '.join(scopes)}",
                {"error": "insufficient_scope", "requiredScopes": scopes},
            )

    async def __call__(self, request: Request, call_next: CallNext) -> dict[str, Any]:
        principal = request.principal
        if principal is not None and request.transport != "http":  # (HTTP checked before dispatching)
            self.check(principal, request.method, request.params)
        return await call_next(request)
