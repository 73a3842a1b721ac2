"""The documentation site builds with ``mkdocs build --strict``, and its generated pages say what the code says."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mcptrio.cli import make_parser

from .page_runner import ROOT
from .test_snippets import SITE_PAGES


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert build.returncode == 0, f"mkdocs build --strict failed:\n{build.stdout}\n{build.stderr}"
    return out


def _text(html: Path) -> str:
    return re.sub(r"<[^>]+>", " ", html.read_text())


def test_every_page_of_the_nav_is_built(site: Path) -> None:
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=Loader)

    def pages(node: object) -> list[str]:
        if isinstance(node, str):
            return [node]
        if isinstance(node, dict):
            return [page for value in node.values() for page in pages(value)]
        if isinstance(node, list):
            return [page for value in node for page in pages(value)]
        return []

    listed = pages(config["nav"])
    assert len(listed) >= 20
    for page in listed:
        built = site / (page[:-3] + "/index.html" if page != "index.md" else "index.html")
        assert built.exists(), page
    on_disk = {str(p.relative_to(ROOT / "docs")) for p in SITE_PAGES}
    assert on_disk == set(listed), "every page is in the nav, and every nav entry is a page"


def test_the_cli_reference_is_the_parser(site: Path) -> None:
    text = _text(site / "reference" / "cli" / "index.html")
    parser = make_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, sub in commands.choices.items():
        assert f"mcptrio {name}" in text, name
        for action in sub._actions:
            if action.help is argparse.SUPPRESS:
                continue
            for flag in action.option_strings:
                assert flag in text, f"mcptrio {name} {flag}"


def test_the_api_reference_documents_the_public_names(site: Path) -> None:
    text = _text(site / "reference" / "api" / "index.html")
    import mcptrio
    import mcptrio.client

    for name in (
        "App",
        "Registry",
        "Context",
        "Request",
        "SessionLimits",
        "serve_stdio",
        "serve_http",
        "connect",
        "open_client",
        "AuthConfig",
        "TaskRunner",
    ):
        assert name in text, name
    # docstrings, not only names
    assert (mcptrio.Registry.__doc__ or "").split(";")[0].strip() in text
    assert "Connect to an MCP server" in text and mcptrio.client.connect.__doc__


def test_diagrams_are_mermaid(site: Path) -> None:
    html = (site / "concepts" / "architecture" / "index.html").read_text()
    assert html.count('class="mermaid"') >= 2
    # served with the site (the test command installs the pinned copy), not fetched from a CDN
    assert (site / "assets" / "javascripts" / "mermaid.min.js").stat().st_size > 1_000_000
    assert 'src="../../assets/javascripts/mermaid.min.js"' in html
