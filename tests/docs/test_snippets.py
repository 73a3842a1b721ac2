"""Every Python and shell snippet of the documentation site and the README runs, as a reader would run it.

One test per page: its blocks run in order (see ``snippets.py`` for the directives and
``page_runner.py`` for the environment).  The harness itself is shown to fail on broken snippets.
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from .page_runner import ROOT, PageRun, SnippetFailed
from .snippets import PYTHON, SHELL, SnippetError, parse, parse_page

SITE_PAGES = sorted(p for p in (ROOT / "docs").rglob("*.md") if "hooks" not in p.relative_to(ROOT / "docs").parts)
PAGES = SITE_PAGES + [ROOT / "README.md"]


def _id(page: Path) -> str:
    return str(page.relative_to(ROOT))


def run_page(page: Path, workdir: Path, text: str | None = None) -> int:
    """Run every block of the page; the number of blocks that ran."""
    blocks = parse(text, page) if text is not None else parse_page(page)
    ran = 0
    with PageRun(page, workdir) as run:
        for block in blocks:
            run.run(block)
            ran += block.kind not in {"skip", "ignore"}
    return ran


@pytest.mark.long
@pytest.mark.parametrize("page", PAGES, ids=_id)
def test_page_snippets_run(page: Path, tmp_path: Path) -> None:
    run_page(page, tmp_path)


def test_every_page_is_covered() -> None:
    """Every page with Python or shell in it is among the pages run, and no directive is malformed."""
    counted = 0
    for page in PAGES:
        for block in parse_page(page):
            counted += block.lang in PYTHON | SHELL
    assert counted > 50, "the site should be full of runnable examples"


# -- the harness fails when a snippet is wrong ---------------------------------------------------------

BROKEN_PYTHON = """
```python
import mcptrio
plugin = mcptrio.Registry("demo")

@plugin.tool()
async def add(a: int, b: int) -> int:
    return a + b
```

```python
assert plugin.tool_count() == 1      # no such method: the page is out of date
```
"""


def test_a_broken_python_snippet_fails(tmp_path: Path) -> None:
    with pytest.raises(SnippetFailed, match=r"broken\.md:11: the python block raised:(.|\n)*tool_count"):
        run_page(tmp_path / "broken.md", tmp_path, BROKEN_PYTHON)


def test_a_failing_shell_snippet_fails(tmp_path: Path) -> None:
    page = "```sh\nmcptrio serve --plugins no-such-plugin\n```\n"
    with pytest.raises(SnippetFailed, match=r"exited with status 2, expected 0(.|\n)*no-such-plugin"):
        run_page(tmp_path / "broken.md", tmp_path, page)


def test_shell_snippets_are_strict_about_errors(tmp_path: Path) -> None:
    page = "```sh\nfalse | cat\necho not reached\n```\n"  # pipefail: a failure inside a pipe counts
    with pytest.raises(SnippetFailed, match="status 1"):
        run_page(tmp_path / "broken.md", tmp_path, page)


def test_bad_data_blocks_fail(tmp_path: Path) -> None:
    with pytest.raises(SnippetFailed, match="toml block does not parse"):
        run_page(tmp_path / "broken.md", tmp_path, "```toml\n[serve\nplugins = 1\n```\n")


def test_a_skip_must_say_why(tmp_path: Path) -> None:
    with pytest.raises(SnippetError, match="must say why"):
        parse("<!-- snippet: skip -->\n```sh\nrm -rf /\n```\n", tmp_path / "p.md")


def test_a_background_server_is_waited_for_and_stopped(tmp_path: Path) -> None:
    page = (
        "<!-- snippet: background ready=http://127.0.0.1:8000/healthz -->\n"
        "```sh\nmcptrio serve --plugins everything --transport http --port 8000\n```\n\n"
        "```sh\ncurl -sf http://127.0.0.1:8000/readyz > ready.txt\n```\n"
    )
    assert run_page(tmp_path / "page.md", tmp_path, page) == 2
    assert (tmp_path / "ready.txt").read_text().strip()


def test_a_background_server_whose_port_was_taken_since_is_started_on_another(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    blocks = parse(
        "<!-- snippet: background ready=tcp:127.0.0.1:8000 -->\n"
        "```sh\npython -m http.server 8000 --bind 127.0.0.1\n```\n\n"
        "```sh\ncurl -sf http://127.0.0.1:8000/ > listing.html\n```\n",
        page,
    )
    with PageRun(page, tmp_path) as run, socket.socket() as taker:
        # Another test's process took the port between the page's start and this block (bound, as
        # a connection's own port is: not listening, so nothing answers on it).
        taker.bind(("127.0.0.1", run.ports[8000]))
        taken = run.ports[8000]
        for block in blocks:
            run.run(block)
        assert run.ports[8000] != taken
    assert "Directory listing" in (tmp_path / "listing.html").read_text()  # (served on the new port)


def test_python_blocks_share_a_namespace_and_may_await(tmp_path: Path) -> None:
    page = (
        "```python\nimport trio\nvalue = 41\n```\n\n"
        "```python\nawait trio.sleep(0)\nvalue += 1\nopen('out.txt', 'w').write(str(value))\n```\n"
    )
    run_page(tmp_path / "page.md", tmp_path, page)
    assert (tmp_path / "out.txt").read_text() == "42"
