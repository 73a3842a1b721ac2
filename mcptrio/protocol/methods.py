"""Every request a client sends an MCP server, and what the code needs to know of each: one table.

Theory of operation
-------------------
Much of how a request is served follows from its method alone: which revisions have it, whether
the protocol answers it at once or a handler does, what it acts on, whether it may end a round
with an ``InputRequiredResult``, whether its result carries cache hints, whether it is a stream,
and which scopes it needs.  Each of those facts is written here once, as a column of ``TABLE``,
and every other place reads it from there:

* ``protocol/session.py``: which methods each era accepts, who answers them, the cache hints;
* ``runtime/core.py``: a stream has no deadline, and a shutdown closes it first, with a result;
* ``app/``: the name a middleware, the access log and a span see (``Request.name``, telemetry),
  the requests a handler may ask the client's input on (``pipeline.py``), the scopes a tool,
  prompt or resource declares (``authorization.py``); ``auth/scopes.py``: those the operator adds;
* ``transports/http/asgi.py`` and ``client/http.py``: the 2026-07-28 ``Mcp-Name`` and
  ``Mcp-Param-*`` headers.

The protocol looks a request's method up once, and the request carries its row from there on
(``IncomingRequest.spec``).  The wire types of each method's params and result are another fact,
kept with the types in ``wire/methods.py``.

Columns:

* ``legacy``: the first legacy (``initialize``) revision that has the method; None: none has it.
* ``modern``: the first stateless revision (2026-07-28 on) that has it; None: none has it.
  ``tasks/*`` there are the ``io.modelcontextprotocol/tasks`` extension's.
* ``answer``: ``PROTOCOL``: ``protocol/session.py`` answers it at once, so a slow handler never
  delays it; ``APP``: a handler does, in a worker, through the middleware.
* ``target``: the param that names what the request acts on, and which table of tools, prompts
  or resources that name is looked up in (``Target.kind``; None for a reference object).
* ``mcp_name``: the param the ``Mcp-Name`` header mirrors (``basic/transports/streamable-http.mdx``,
  and the tasks extension's routing header); ``mcp_params``: the param whose values the
  ``Mcp-Param-*`` headers mirror, as the target's ``x-mcp-header`` annotations say.
* ``input``: a 2026-07-28 handler may answer with an ``InputRequiredResult`` (``mrtr.mdx``).
* ``cacheable`` (column *cache*): its 2026-07-28 result is a ``CacheableResult`` (``ttlMs``, ``cacheScope``).
* ``stream``: it lasts until the client or a shutdown ends it (``subscriptions/listen``).
* ``scoped``: besides the scopes every request needs, it needs those its target declares
  (``@plugin.tool(scopes=...)``) and those the operator adds for the target by name or URI.
"""

from __future__ import annotations

import attrs

PROTOCOL, APP = "protocol", "app"


@attrs.frozen
class Target:
    """The param naming what a request acts on, and the kind of thing it names (``tools``,
    ``prompts``, ``resources``: the registry's and the scope policy's tables), if one kind."""

    param: str
    kind: str | None


TOOL, PROMPT, RESOURCE = Target("name", "tools"), Target("name", "prompts"), Target("uri", "resources")
REF = Target("ref", None)  # completion/complete: a ref/prompt or a ref/resource (template)


@attrs.frozen
class MethodSpec:
    """One row of ``TABLE``: what the code needs to know of one request method."""

    name: str
    legacy: str | None
    modern: str | None
    answer: str
    target: Target | None
    mcp_name: str | None
    mcp_params: str | None
    input: bool
    cacheable: bool
    stream: bool
    scoped: bool


# The revisions the table names (versions.py lists every one), and its cells: yes, or blank.
R2024, R2025, R2026 = "2024-11-05", "2025-11-25", "2026-07-28"
YES, _ = True, False

TABLE = [
    MethodSpec(*row)
    for row in [
        # method                      legacy modern answer    target    Mcp-Name  Mcp-Param-*  input cache stream scoped
        ("initialize", R2024, None, PROTOCOL, None, None, None, _, _, _, _),
        ("ping", R2024, None, PROTOCOL, None, None, None, _, _, _, _),
        ("logging/setLevel", R2024, None, PROTOCOL, None, None, None, _, _, _, _),
        ("server/discover", None, R2026, PROTOCOL, None, None, None, _, YES, _, _),
        ("tools/list", R2024, R2026, APP, None, None, None, _, YES, _, _),
        ("tools/call", R2024, R2026, APP, TOOL, "name", "arguments", YES, _, _, YES),
        ("resources/list", R2024, R2026, APP, None, None, None, _, YES, _, _),
        ("resources/templates/list", R2024, R2026, APP, None, None, None, _, YES, _, _),
        ("resources/read", R2024, R2026, APP, RESOURCE, "uri", None, YES, YES, _, YES),
        ("resources/subscribe", R2024, None, APP, RESOURCE, None, None, _, _, _, YES),
        ("resources/unsubscribe", R2024, None, APP, RESOURCE, None, None, _, _, _, _),
        ("prompts/list", R2024, R2026, APP, None, None, None, _, YES, _, _),
        ("prompts/get", R2024, R2026, APP, PROMPT, "name", None, YES, _, _, YES),
        ("completion/complete", R2024, R2026, APP, REF, None, None, _, _, _, _),
        ("subscriptions/listen", None, R2026, APP, None, None, None, _, _, YES, _),
        ("tasks/get", R2025, R2026, APP, None, "taskId", None, _, _, _, _),
        ("tasks/update", None, R2026, APP, None, "taskId", None, _, _, _, _),
        ("tasks/cancel", R2025, R2026, APP, None, "taskId", None, _, _, _, _),
        ("tasks/result", R2025, None, APP, None, None, None, _, _, _, _),
        ("tasks/list", R2025, None, APP, None, None, None, _, _, _, _),
    ]
]

METHODS: dict[str, MethodSpec] = {spec.name: spec for spec in TABLE}
"""``TABLE`` by method name."""
