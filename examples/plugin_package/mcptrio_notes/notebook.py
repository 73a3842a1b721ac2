"""The notes themselves: an in-memory notebook, one per server process."""

from __future__ import annotations

import datetime
import re

import attrs


@attrs.frozen
class Note:
    """A note; its id names it in ``notes://{id}``."""

    id: str
    title: str
    text: str
    tags: list[str]
    created: str  # ISO 8601, UTC

    def markdown(self) -> str:
        tags = f"\n\nTags: {', '.join(self.tags)}" if self.tags else ""
        return f"# {self.title}\n\n{self.text}{tags}\n"


def slug(title: str) -> str:
    """``"Buy milk!"`` → ``"buy-milk"``: a readable id."""
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:40].strip("-") or "note"


class Notebook:
    """Notes by id, in the order they were added."""

    def __init__(self) -> None:
        self._notes: dict[str, Note] = {}

    def add(self, title: str, text: str, tags: list[str]) -> Note:
        base = slug(title)
        note_id, n = base, 1
        while note_id in self._notes:
            n += 1
            note_id = f"{base}-{n}"
        created = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        note = Note(note_id, title, text, sorted(set(tags)), created)
        self._notes[note_id] = note
        return note

    def get(self, note_id: str) -> Note | None:
        return self._notes.get(note_id)

    def remove(self, note_id: str) -> Note | None:
        return self._notes.pop(note_id, None)

    def all(self, tag: str | None = None) -> list[Note]:
        return [note for note in self._notes.values() if tag is None or tag in note.tags]

    def search(self, query: str) -> list[Note]:
        """Notes whose title, text or tags hold every word of ``query`` (case-insensitive)."""
        words = query.lower().split()
        return [
            note
            for note in self._notes.values()
            if all(w in f"{note.title}\n{note.text}\n{' '.join(note.tags)}".lower() for w in words)
        ]

    def ids(self) -> list[str]:
        return list(self._notes)

    def tags(self) -> list[str]:
        return sorted({tag for note in self._notes.values() for tag in note.tags})

    def clear(self) -> None:
        self._notes.clear()


notebook = Notebook()
