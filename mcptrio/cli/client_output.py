"""How the client commands show what they got: rich tables and text on a terminal, JSON lines with
``--json``; a call's progress as a bar (and with ``--watch`` its status as lines); an
elicitation as a form in the terminal."""

from __future__ import annotations

import json
import sys
from typing import Any, cast

import trio

from .usage import UsageError


async def list_of(client: Any, what: str) -> list[Any]:
    fetch = {
        "tools": client.list_tools,
        "resources": client.list_resources,
        "templates": client.list_resource_templates,
        "prompts": client.list_prompts,
    }[what]
    return cast("list[Any]", await fetch())


def listing(what: str, items: list[Any]) -> tuple[list[str], list[list[str]]]:
    """The columns and rows of a list of tools, prompts, resources or templates."""
    if what == "tools":
        rows = []
        for tool in items:
            props = tool.input_schema.get("properties", {})
            required = set(tool.input_schema.get("required", []))
            rows.append(
                [
                    tool.name,
                    ", ".join(f"{k}{'' if k in required else '?'}: {v.get('type', 'any')}" for k, v in props.items()),
                    tool.description or "",
                ]
            )
        return ["name", "arguments", "description"], rows
    if what == "prompts":
        return ["name", "arguments", "description"], [
            [prompt.name, ", ".join(a.name for a in prompt.arguments or []), prompt.description or ""]
            for prompt in items
        ]
    return ["uri" if what == "resources" else "uri template", "name", "mime type"], [
        [getattr(item, "uri", None) or item.uri_template, item.name, item.mime_type or ""] for item in items
    ]


def unstructure(value: Any) -> Any:
    from .. import wire  # (not on `mcptrio serve`'s way: the wire types are a fifth of its start-up)

    return wire.unstructure(value)


def typed_value(key: str, value: str, kind: Any) -> Any:
    """A KEY=VALUE argument's value as its schema type says."""
    try:
        if kind == "integer":
            return int(value)
        if kind == "number":
            return float(value)
        if kind == "boolean":
            if value.lower() not in ("true", "false"):
                raise ValueError
            return value.lower() == "true"
        if kind in ("array", "object", "null"):
            return json.loads(value)
    except (ValueError, json.JSONDecodeError):
        raise UsageError(f"argument {key!r} must be {kind}, got {value!r}") from None
    return value


class Output:
    def __init__(self, as_json: bool) -> None:
        from rich.console import Console

        self.json = as_json
        self.console = Console()
        self.errors = Console(stderr=True)
        self._bar: _ProgressBar | None = None  # the call's progress bar, while one is shown

    def emit(self, value: Any) -> None:
        sys.stdout.write(json.dumps(value, ensure_ascii=False) + "\n")

    def table(self, title: str, columns: list[str], rows: list[list[str]]) -> None:
        from rich.table import Table

        table = Table(title=title)
        for column in columns:
            table.add_column(column)
        for row in rows:
            table.add_row(*row)
        self.console.print(table)

    def content(self, blocks: list[Any]) -> None:
        for block in blocks:
            text = getattr(block, "text", None)
            if text is not None:
                self.console.print(text, markup=False, highlight=False)
            else:
                kind = getattr(block, "type", "content")
                mime = getattr(block, "mime_type", None)
                self.console.print(f"[{kind}{', ' + mime if mime else ''}]", markup=False)

    def notification(self, message: dict[str, Any]) -> None:
        if message.get("method") == "notifications/message" and not self.json:
            params = message.get("params") or {}
            data = params.get("data")
            text = data if isinstance(data, str) else json.dumps(data)
            self.errors.print(f"[dim]{params.get('level', 'info')}[/] {text}", highlight=False)

    def progress(self, watch: bool = False) -> Any:
        """Where a call's progress goes: a bar on a terminal; with ``watch``, each new status
        message also as a line on stderr (on a terminal or not)."""
        import contextlib

        if self.json or not self.errors.is_terminal:
            return contextlib.nullcontext(self._status_lines if watch else None)
        self._bar = _ProgressBar(self.errors, self._status_lines if watch else None)
        return self._bar

    def task_state(self, task: dict[str, Any]) -> None:
        """``--watch``: a task's id and status on stderr, each time it changes."""
        state = (task.get("taskId"), task.get("status"))
        if state != getattr(self, "_last_task", None) and not self.json:
            self._last_task = state
            self.errors.print(f"task {state[0]}: {state[1]}", highlight=False, markup=False)

    def _status_lines(self, progress: float, total: float | None, message: str | None) -> None:
        if message and message != getattr(self, "_last_status", None):
            self._last_status = message
            done = f" ({progress:g}/{total:g})" if total else ""
            self.errors.print(f"status: {message}{done}", highlight=False, markup=False)

    async def elicit(self, params: dict[str, Any]) -> dict[str, Any]:
        """A form in the terminal from the requested schema; declined when stdin is not a terminal.

        A progress bar is stopped while the form asks (it would draw over the labels), and a value
        that does not fit its field (type, choices, range, length) is asked for again."""
        if self.json or not sys.stdin.isatty():
            return {"action": "decline"}
        bar = self._bar
        if bar is not None:
            bar.pause()
        try:
            return await self._form(params)
        finally:
            if bar is not None:
                bar.resume()

    async def _form(self, params: dict[str, Any]) -> dict[str, Any]:
        from rich.markup import escape

        from .elicitation_form import Skipped, answer, hint

        self.errors.print(f"[bold]{escape(str(params.get('message', 'The server asks:')))}[/]")
        schema = params.get("requestedSchema") or {}
        required = set(schema.get("required") or ())
        content: dict[str, Any] = {}
        for name, spec in (schema.get("properties") or {}).items():
            label = escape(f"{spec.get('title') or name}{hint(spec)}")
            while True:
                text = await trio.to_thread.run_sync(self.errors.input, f"{label}: ")
                try:
                    content[name] = answer(spec, text, name in required)
                except Skipped:
                    break
                except ValueError as error:
                    self.errors.print(f"[red]{escape(str(error))}[/]: try again")
                    continue
                break
        return {"action": "accept", "content": content}


class _ProgressBar:
    """A rich progress bar fed by the call's progress notifications (on stderr, on a terminal)."""

    def __init__(self, console: Any, also: Any = None) -> None:
        from rich.progress import Progress

        self.bar = Progress(console=console, transient=True)
        self.task = self.bar.add_task("working", total=None)
        self.also = also  # (--watch: status lines too)
        self.running = False

    def __enter__(self) -> Any:
        self.bar.start()
        self.running = True
        return self.update

    def __exit__(self, *exc: Any) -> None:
        self.bar.stop()
        self.running = False

    def pause(self) -> None:
        """Take the bar off the screen while the terminal asks something (it would draw over it)."""
        if self.running:
            self.bar.stop()

    def resume(self) -> None:
        if self.running:
            self.bar.start()

    def update(self, progress: float, total: float | None, message: str | None) -> None:
        self.bar.update(self.task, completed=progress, total=total, description=message or "working")
        if self.also is not None:
            self.also(progress, total, message)
