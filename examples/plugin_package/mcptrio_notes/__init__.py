"""mcptrio-notes: an example plugin.  Notes live in memory while the server runs.

pip install -e examples/plugin_package
mcptrio serve --plugins notes
"""

from __future__ import annotations

import os
from typing import Annotated, Any

import mcptrio

from .notebook import Note, notebook

__all__ = ["Note", "notebook", "plugin"]

plugin = mcptrio.Registry("notes")

READ_ONLY = {"readOnlyHint": True, "openWorldHint": False}
READ_ONLY_ENV = "MCPTRIO_NOTES_READ_ONLY"


# -- a policy the package ships: middleware around every request -------------------------------


@plugin.use
async def read_only_policy(request: mcptrio.Request, call_next: Any) -> dict[str, Any]:
    """With MCPTRIO_NOTES_READ_ONLY=1 in the server's environment, tools that change notes are refused."""
    if request.method == "tools/call" and os.environ.get(READ_ONLY_ENV) == "1":
        tool = plugin.tools.get(request.name or "")
        if tool is not None and not (tool.annotations or {}).get("readOnlyHint"):
            raise mcptrio.ToolError(f"{request.name} is refused: the notes are read-only on this server")
    return await call_next(request)


# -- tools -------------------------------------------------------------------------------------


@plugin.tool(
    annotations={"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False, "openWorldHint": False}
)
async def add_note(
    title: Annotated[str, "A short title; it also makes the note's id"],
    text: Annotated[str, "The note, in Markdown"],
    tags: list[str] | None = None,
) -> Note:
    """Add a note. Returns it, with the id to read it as the resource notes://{id}."""
    if not title.strip():
        raise mcptrio.ToolError("the title must not be empty")
    return notebook.add(title.strip(), text, tags or [])


@plugin.tool(annotations=READ_ONLY)
async def list_notes(tag: Annotated[str | None, "Only notes with this tag"] = None) -> str:
    """List notes as `id: title [tags]`, oldest first."""
    notes = notebook.all(tag)
    if not notes:
        return "no notes" + (f" tagged {tag!r}" if tag else "")
    return "\n".join(f"{n.id}: {n.title}" + (f" [{', '.join(n.tags)}]" if n.tags else "") for n in notes)


@plugin.tool(annotations=READ_ONLY)
async def search_notes(query: Annotated[str, "Words that must all appear (any case)"]) -> list[Note]:
    """Find notes whose title, text or tags contain every word of the query."""
    return notebook.search(query)


@plugin.tool(
    annotations={"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True, "openWorldHint": False}
)
async def delete_note(id: str) -> str:
    """Delete a note by id."""
    if notebook.remove(id) is None:
        raise mcptrio.ToolError(f"no note with id {id!r} (see list_notes)")
    return f"deleted {id}"


# -- resources ---------------------------------------------------------------------------------


async def complete_note_id(value: str, context: dict[str, str]) -> list[str]:
    """Completion for ``notes://{id}``: the ids that start with what was typed."""
    return [note_id for note_id in notebook.ids() if note_id.startswith(value)]


@plugin.resource("notes://{id}", name="note", mime_type="text/markdown", complete={"id": complete_note_id})
async def note_resource(id: str) -> str:
    """One note as Markdown."""
    note = notebook.get(id)
    if note is None:
        raise LookupError(id)  # the client gets "resource not found"
    return note.markdown()


# -- prompts -----------------------------------------------------------------------------------


async def complete_tag(value: str, context: dict[str, str]) -> list[str]:
    return [tag for tag in notebook.tags() if tag.startswith(value)]


@plugin.prompt(arguments={"tag": "only summarise notes with this tag"}, complete={"tag": complete_tag})
async def summarize_notes(tag: str | None = None) -> list[Any]:
    """Ask the model to summarise the notes (each embedded as a resource)."""
    notes = notebook.all(tag)
    scope = f" tagged {tag!r}" if tag else ""
    if not notes:
        return [f"There are no notes{scope}. Say so in one sentence."]
    request = f"Summarise these {len(notes)} notes{scope} in a few bullet points, grouping related ones."
    return [request] + [
        {"type": "resource", "resource": {"uri": f"notes://{n.id}", "mimeType": "text/markdown", "text": n.markdown()}}
        for n in notes
    ]
