"""``mcptrio new NAME``: a plugin package that installs and passes its own tests at once."""

from __future__ import annotations

import argparse
import keyword
import re
from pathlib import Path

from .usage import Parser, UsageError

NAME = re.compile(r"^[a-z][a-z0-9_]{0,40}$")


def add_command(commands: argparse._SubParsersAction[Parser]) -> None:
    new = commands.add_parser(
        "new",
        help="write a new plugin package",
        description="Write a plugin package NAME/ (pyproject with the entry point, a "
        "module with a tool, a resource and a prompt, its tests, a README).",
    )
    new.add_argument("name", help="the plugin's name: lower-case letters, digits and _")
    new.add_argument("--dir", type=Path, default=Path("."), help="where to write it (default: here)")


def run(args: argparse.Namespace) -> int:
    folder = new_plugin(args.name, args.dir)
    print(f"wrote {folder}/: cd {folder} && pip install -e '.[test]' && pytest")
    return 0


def new_plugin(name: str, where: Path) -> Path:
    """Write the package ``where/name`` and return its folder."""
    if not NAME.match(name) or keyword.iskeyword(name):
        raise UsageError(f"a plugin name is lower-case letters, digits and _ (starting with a letter), got {name!r}")
    folder = where / name
    if folder.exists():
        raise UsageError(f"{folder} exists already: choose another name or folder")
    module = f"mcptrio_{name}"
    files = {
        "pyproject.toml": PYPROJECT,
        f"{module}/__init__.py": MODULE,
        f"tests/test_{name}.py": TESTS,
        "README.md": README,
        ".gitignore": "__pycache__/\n*.egg-info/\n.venv/\n",
    }
    for path, text in files.items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text.format(name=name, module=module))
    return folder


PYPROJECT = """\
[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "mcptrio-{name}"
version = "0.1.0"
description = "An mcptrio plugin: {name}"
requires-python = ">=3.11"
dependencies = ["mcptrio"]

[project.optional-dependencies]
test = ["pytest>=8", "pytest-trio>=0.8"]

# What `uvx mcptrio-{name} serve --plugins {name}` runs (`mcptrio registry-entry`): the mcptrio command.
[project.scripts]
mcptrio-{name} = "mcptrio.cli:main"

# What makes `mcptrio serve --plugins {name}` find this plugin.
[project.entry-points."mcptrio.plugins"]
{name} = "{module}:plugin"

[tool.setuptools]
packages = ["{module}"]

[tool.pytest.ini_options]
trio_mode = true
testpaths = ["tests"]
mcptrio_plugins = ["{name}"]  # what mcptrio's mcp_client fixture serves
"""

MODULE = '''\
"""The {name} plugin: one tool, one resource and one prompt to start from."""

from typing import Annotated

import mcptrio
from mcptrio import Context

plugin = mcptrio.Registry("{name}")


@plugin.tool(annotations={{"readOnlyHint": True}})
async def greet(ctx: Context, name: Annotated[str, "who to greet"], times: int = 1) -> str:
    """Greet someone, reporting progress as it goes."""
    for done in range(1, times + 1):
        await ctx.progress(done, total=times)
    return " ".join([f"Hello, {{name}}!"] * times)


@plugin.resource("{name}://about", name="about", mime_type="text/plain")
async def about() -> str:
    """What this plugin is."""
    return "The {name} plugin, made with mcptrio new."


@plugin.prompt(arguments={{"topic": "what to write about"}})
async def write(topic: str) -> str:
    """Ask for a short text on a topic."""
    return f"Write three sentences about {{topic}}."
'''

TESTS = '''\
"""The {name} plugin through mcptrio's pytest plugin: each test runs once per protocol era."""

import pytest


async def test_greet(mcp_client):
    result = await mcp_client.call_tool("greet", {{"name": "Ada", "times": 2}})
    assert not result.is_error
    assert result.content[0].text == "Hello, Ada! Hello, Ada!"


@pytest.mark.mcp_transports("memory", "stdio")
async def test_the_resource_and_the_prompt(mcp_client):
    about = await mcp_client.read_resource("{name}://about")
    assert "{name}" in about.contents[0].text
    prompt = await mcp_client.get_prompt("write", {{"topic": "Trio"}})
    assert "Trio" in prompt.messages[0].content.text
'''

README = """\
# mcptrio-{name}

An mcptrio plugin, made with `mcptrio new {name}`.

```sh
pip install -e '.[test]' && pytest                  # install it, run its tests
mcptrio serve --plugins {name} --transport http     # serve it at http://127.0.0.1:8000/mcp
```

Try it from another terminal: `mcptrio call http://127.0.0.1:8000/mcp greet name=Ada`.
The tools, resources and prompts are in `{module}/__init__.py`.
"""
