"""Tool search (``App(tool_search=True)``, ``--tool-search``): for catalogues too big to list.

``tools/list`` shows two tools instead of the catalogue: ``search_tools`` ranks the tools the caller
may see (BM25, by ``bm25s``) over their names, titles, descriptions and argument names, and
``call_tool`` calls one by name.  A ``call_tool`` request is rewritten into the direct ``tools/call``
before the scopes are checked (``unwrapped``), so it gets exactly what a direct call gets.  Direct
calls by name keep working for clients that know the names.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .context import Context
from .errors import ToolError
from .registry import Registry, ToolEntry
from .results import json_text, text_block

if TYPE_CHECKING:
    from .middleware import CallNext, Request
    from .visibility import Visibility

SEARCH, CALL = "search_tools", "call_tool"
MAX_LIMIT = 50
INSTALL_HINT = "tool search needs bm25s: pip install 'mcptrio[search]'"
# Words of names and text: camelCase and snake_case split, letters and digits, lower-cased.
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_HIT = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "title": {"type": "string"},
        "description": {"type": "string"},
        "inputSchema": {"type": "object"},
    },
    "required": ["name", "inputSchema"],
}
_OUTPUT_SCHEMA = {"type": "object", "properties": {"tools": {"type": "array", "items": _HIT}}, "required": ["tools"]}


def available() -> bool:
    """Is the ranking library installed?"""
    try:
        import bm25s  # noqa: F401
    except ImportError:
        return False
    return True


def words(text: str) -> list[str]:
    return [word.lower() for word in _WORD.findall(text)]


def tool_words(entry: ToolEntry) -> list[str]:
    """What a tool is found by: its name, title, description and argument names."""
    properties = entry.input_schema.get("properties")
    arguments = " ".join(properties) if isinstance(properties, dict) else ""
    return words(" ".join((entry.name, entry.title or "", entry.description or "", arguments)))


def hit(entry: ToolEntry) -> dict[str, Any]:
    """What ``search_tools`` tells of a tool: enough to call it."""
    out: dict[str, Any] = {"name": entry.name}
    if entry.title:
        out["title"] = entry.title
    if entry.description:
        out["description"] = entry.description
    out["inputSchema"] = entry.input_schema
    return out


class Index:
    """A BM25 index of one set of tools."""

    def __init__(self, tools: dict[str, ToolEntry]) -> None:
        import bm25s

        self.entries = list(tools.values())
        self.bm25: Any = None
        if self.entries:
            self.bm25 = bm25s.BM25()
            # (a tool with no words at all still needs a document: one word no query has)
            self.bm25.index([tool_words(entry) or ["\x00"] for entry in self.entries], show_progress=False)

    def ranked(self, query: list[str]) -> Iterator[ToolEntry]:
        """Every tool with a word of ``query``, best first (ties in registration order)."""
        if self.bm25 is None:
            return
        import numpy as np

        scores = self.bm25.get_scores(query)
        found = np.flatnonzero(scores > 0)
        for i in found[np.argsort(-scores[found], kind="stable")]:
            yield self.entries[i]


class ToolSearch:
    """The two tools ``tools/list`` shows instead of the catalogue, and the index ``search_tools``
    ranks, built once per set of tools (again when tools are added, included or reloaded; what is
    switched off or hidden is judged per caller at each search, as ``tools/list`` judges it)."""

    def __init__(self) -> None:
        if not available():
            raise ImportError(INSTALL_HINT)
        self.front = _front_tools(self)
        self._index: Index | None = None
        self._indexed: tuple[int, int] = (0, -1)  # (which tools table, how many tools) it was built of

    def invalidate(self) -> None:
        """The tools changed in place (a plugin included, a reload): build the index again."""
        self._index = None

    def index(self, tools: dict[str, ToolEntry]) -> Index:
        key = (id(tools), len(tools))
        if self._index is None or key != self._indexed:
            self._index, self._indexed = Index(tools), key
        return self._index

    def check(self, tools: dict[str, ToolEntry]) -> None:
        """A tool of the catalogue named as one of the two would be out of reach: refused."""
        for name in self.front:
            if name in tools:
                raise ValueError(f"tool {name!r} clashes with tool search's own; rename it or serve without it")

    def search(self, ctx: Context, query: str, limit: int) -> dict[str, Any]:
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_LIMIT:
            raise ToolError(f'"limit" must be a whole number from 1 to {MAX_LIMIT}, not {limit!r}')
        query_words = words(query) if isinstance(query, str) else []
        if not query_words:
            raise ToolError('"query" must hold at least one word')
        app = ctx.app
        visibility: Visibility = app.visibility
        found: list[dict[str, Any]] = []
        for entry in self.index(app.tools).ranked(query_words):
            if visibility.hides("tools", entry, ctx):
                continue  # (hidden from this caller: the next best instead)
            found.append(hit(entry))
            if len(found) == limit:
                break
        return {"tools": found}

    async def __call__(self, request: Request, call_next: CallNext) -> dict[str, Any]:
        """The middleware: a ``call_tool`` request becomes the direct call it asks for."""
        if request.method == "tools/call":
            request.params = unwrapped(request.params)
        return await call_next(request)


def unwrapped(params: Any) -> Any:
    """``tools/call`` params of ``call_tool`` as those of the direct call they ask for (the scopes
    that call needs are checked, by HTTP too); anything else, or a malformed ``call_tool`` call (its
    own arguments then fail as any tool's would), as it is."""
    if not isinstance(params, dict) or params.get("name") != CALL:
        return params
    outer = params.get("arguments")
    if not isinstance(outer, dict) or not isinstance(outer.get("name"), str) or outer.keys() - {"name", "arguments"}:
        return params
    inner = outer.get("arguments", {})
    if not isinstance(inner, dict):
        return params
    return {**params, "name": outer["name"], "arguments": inner}


def _front_tools(search: ToolSearch) -> dict[str, ToolEntry]:
    front = Registry("tool-search")

    @front.tool(
        name=SEARCH,
        title="Search tools",
        description="Find the tools for a task: ranks the tools you may use by words of their names, titles, "
        f"descriptions and argument names; returns up to `limit` (1-{MAX_LIMIT}) with the schema to call them "
        f"with `{CALL}`.",
        output_schema=_OUTPUT_SCHEMA,
    )
    async def search_tools(query: str, ctx: Context, limit: int = 10) -> dict[str, Any]:
        found = search.search(ctx, query, limit)
        return {"content": [text_block(json_text(found))], "structuredContent": found}

    @front.tool(
        name=CALL,
        title="Call a tool",
        description=f"Call a tool found with `{SEARCH}` by its name, with its arguments.",
    )
    async def call_tool(name: str, arguments: dict[str, Any] | None = None) -> str:
        # (a well-formed call is answered by the tool it names: see ``unwrapped``)
        raise ToolError(f"{CALL} calls another tool, not {name!r}")

    return front.tools
