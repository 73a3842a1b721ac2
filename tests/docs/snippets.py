"""The code blocks of a Markdown page, and what the page says to do with each.

Every fenced block of Python or shell on the site and in the README is run by the test suite,
unless the line right above it says why not.  A directive is an HTML comment (the theme does not
render it) on the line directly above the fence::

    <!-- snippet: skip reason="opens a desktop application" -->
    <!-- snippet: file path=weather/pyproject.toml -->      the block is written to that file
    <!-- snippet: background ready=http://127.0.0.1:8000/healthz -->   a server, left running
    <!-- snippet: pytest cwd=weather -->                    the block is a test module, run by pytest
    <!-- snippet: run status=1 cwd=@repo timeout=60 -->    a shell block expected to exit 1, from the checkout
                                                            (cwd=@repo/conformance: a folder of the checkout)

Without a directive, Python blocks run in order in one interpreter per page (top-level ``await``
allowed, run by Trio), shell blocks run with ``bash -euo pipefail``, TOML, JSON and YAML blocks
must parse, and other languages (text, nginx, mermaid, ...) are left alone.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import attrs

PYTHON = {"python", "py"}
SHELL = {"sh", "bash", "shell", "console"}
DATA = {"toml", "json", "yaml", "yml"}
KINDS = {"run", "skip", "file", "background", "pytest"}
KEYS = {"reason", "path", "ready", "cwd", "status", "timeout"}

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<lang>[\w+-]*)[^\n]*$")
_DIRECTIVE = re.compile(r"^\s*<!--\s*snippet:\s*(?P<body>.*?)\s*-->\s*$")


class SnippetError(Exception):
    """A directive the harness cannot follow: the page must be fixed."""


@attrs.frozen
class Block:
    page: Path
    line: int  # 1-based line of the opening fence
    lang: str
    code: str
    kind: str  # run | skip | file | background | pytest | check | ignore
    options: dict[str, str] = attrs.field(factory=dict)

    @property
    def where(self) -> str:
        return f"{self.page.name}:{self.line}"


def parse_page(path: Path) -> list[Block]:
    return parse(path.read_text(encoding="utf-8"), path)


def parse(text: str, page: Path) -> list[Block]:
    lines = text.splitlines()
    blocks: list[Block] = []
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        indent, fence, lang = opening["indent"], opening["fence"], opening["lang"].lower()
        end = index + 1
        while end < len(lines) and not _closes(lines[end], indent, fence):
            end += 1
        body = [line[len(indent) :] if line.startswith(indent) else line.lstrip() for line in lines[index + 1 : end]]
        directive = _directive_above(lines, index)
        blocks.append(_block(page, index + 1, lang, "\n".join(body) + "\n", directive))
        index = end + 1
    return blocks


def _closes(line: str, indent: str, fence: str) -> bool:
    stripped = line.strip()
    return line.startswith(indent) and stripped.startswith(fence) and set(stripped) == {fence[0]}


def _directive_above(lines: list[str], index: int) -> str | None:
    if index == 0:
        return None
    match = _DIRECTIVE.match(lines[index - 1])
    return match["body"] if match else None


def _block(page: Path, line: int, lang: str, code: str, directive: str | None) -> Block:
    where = f"{page.name}:{line}"
    if directive is None:
        kind = "run" if lang in PYTHON | SHELL else "check" if lang in DATA else "ignore"
        return Block(page, line, lang, code, kind)
    try:
        words = shlex.split(directive)
    except ValueError as error:
        raise SnippetError(f"{where}: unreadable directive {directive!r}: {error}") from None
    if not words or words[0] not in KINDS:
        raise SnippetError(f"{where}: directive must start with one of {sorted(KINDS)}: {directive!r}")
    options: dict[str, str] = {}
    for word in words[1:]:
        key, sep, value = word.partition("=")
        if not sep or key not in KEYS:
            raise SnippetError(f"{where}: unknown option {word!r} (known: {sorted(KEYS)})")
        options[key] = value
    kind = words[0]
    if kind == "skip" and len(options.get("reason", "").split()) < 2:
        raise SnippetError(f'{where}: a skipped snippet must say why, in words: skip reason="..."')
    if kind == "file" and "path" not in options:
        raise SnippetError(f"{where}: file needs path=...")
    if kind == "background" and "ready" not in options:
        raise SnippetError(f"{where}: background needs ready=http://... or ready=tcp:HOST:PORT")
    if kind in {"run", "background"} and lang not in PYTHON | SHELL:
        raise SnippetError(f"{where}: only Python and shell blocks can be run, not {lang or 'plain'} blocks")
    if kind == "background" and lang not in SHELL:
        raise SnippetError(f"{where}: background runs shell blocks only")
    if kind == "pytest" and lang not in PYTHON:
        raise SnippetError(f"{where}: pytest runs Python blocks only")
    return Block(page, line, lang, code, kind, options)
