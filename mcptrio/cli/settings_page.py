"""The reference page of ``mcptrio serve``'s settings, made from their declaration: a Markdown table
per section, each row a setting's key, flags, type, default, transports and meaning."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .setting_kinds import TRANSPORTS, Setting

REGENERATE = "python -m mcptrio.cli.serve_settings > docs/reference/serve-settings.md"

HEADER = f"""\
# Serve settings

<!-- Generated from mcptrio/cli/serve_settings.py by `{REGENERATE}`:
     change the declaration there, then run that command. -->

Every setting of `mcptrio serve`: its key in the `[serve]` table of the
[configuration file](../guides/configuration.md), its flag, its type and its default. A flag wins
over the file, and the file wins over the default; a flag marked *repeatable* adds to the file's
list. The [command-line reference](cli.md) has every command's flags.
"""


def reference_page(settings: Sequence[Setting], sections: Mapping[str, str]) -> str:
    lines = [HEADER]
    for section, introduction in sections.items():
        rows = [each for each in settings if each.section == section and not each.hidden]
        if not rows:
            continue
        lines += [f"## {section}", ""] + ([introduction, ""] if introduction else [])
        lines += ["| Key | Flag | Type | Default | Transports | Meaning |", "| --- | --- | --- | --- | --- | --- |"]
        lines += [_row(each) for each in rows] + [""]
    return "\n".join(lines)


def _row(setting: Setting) -> str:
    key = f"`{setting.key}`" if setting.in_file else "—"
    flags = setting.kind.flag_doc(setting) if setting.flags else "—"
    transports = "all" if setting.transports == TRANSPORTS else ", ".join(f"`{t}`" for t in setting.transports)
    meaning = setting.doc or _sentence(setting.help)
    cells = (key, flags, setting.kind.shown(), setting.shown_default(), transports, meaning)
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")
