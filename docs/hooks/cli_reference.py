"""MkDocs hook: the command-line reference is generated from mcptrio's own argument parser.

A page holding the line ``<!-- cli-reference -->`` gets, in its place, one section per command:
its usage, description and a table of its options, read from ``mcptrio.cli.make_parser()`` at
build time, so the reference cannot drift from the code.
"""

from __future__ import annotations

import argparse
from typing import Any

MARKER = "<!-- cli-reference -->"


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if MARKER not in markdown:
        return markdown
    from mcptrio.cli import make_parser

    return markdown.replace(MARKER, render(make_parser()))


def render(parser: argparse.ArgumentParser) -> str:
    """Markdown for the parser and each of its subcommands, in the parser's order."""
    sections = [_section("mcptrio", parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, sub in action.choices.items():
                sections.append(_section(f"mcptrio {name}", sub, helps.get(name)))
    return "\n\n".join(sections)


def _section(title: str, parser: argparse.ArgumentParser, summary: str | None = None) -> str:
    lines = [f"## `{title}`", ""]
    if summary:
        lines += [f"*{_escape(summary)}.*", ""]
    lines += ["```text", parser.format_usage().strip().replace("usage: ", "", 1), "```", ""]
    if parser.description:
        lines += [_escape(parser.description), ""]
    rows = [_row(action) for action in parser._actions if _documented(action)]
    if any(default for _, _, default in rows):
        lines += [
            "| Option | Meaning | Default |",
            "| --- | --- | --- |",
            *(f"| {name} | {meaning} | {default} |" for name, meaning, default in rows),
        ]
    elif rows:  # (the defaults are in the help texts: no empty column)
        lines += ["| Option | Meaning |", "| --- | --- |", *(f"| {name} | {meaning} |" for name, meaning, _ in rows)]
    return "\n".join(lines)


def _documented(action: argparse.Action) -> bool:
    return action.help is not argparse.SUPPRESS and not isinstance(action, argparse._SubParsersAction)


def _row(action: argparse.Action) -> tuple[str, str, str]:
    if action.option_strings:
        metavar = "" if action.nargs == 0 else " " + (action.metavar or action.dest.upper())
        if action.choices and not action.metavar:
            metavar = " {" + ",".join(map(str, action.choices)) + "}"
        name = ", ".join(f"`{flag}{metavar}`" for flag in action.option_strings)
    else:
        name = f"`{action.metavar or action.dest}`"
    default = action.default
    shown = "" if default in (None, False, [], argparse.SUPPRESS) or action.nargs == 0 else f"`{default}`"
    if getattr(action, "required", False) and action.option_strings:
        shown = "required"
    return name, _escape(action.help or ""), shown


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("<", "&lt;")
