"""MkDocs hook: serve Mermaid with the site instead of from a CDN.

The Material theme draws the diagrams with Mermaid, which it fetches from unpkg.com unless the
page already has it.  This hook adds the copy that ``npm ci --prefix docs/hooks`` installed
(pinned in ``docs/hooks/package-lock.json``) to the site, and ``mkdocs.yml`` loads it first, so
the diagrams render offline and with the version we tested.  Without that copy the page falls back
to the theme's CDN.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

BUNDLE = Path(__file__).parent / "node_modules" / "mermaid" / "dist" / "mermaid.min.js"
SITE_PATH = "assets/javascripts/mermaid.min.js"


def on_files(files: Files, config: Any) -> Files:
    if BUNDLE.exists():
        files.append(File.generated(config, SITE_PATH, abs_src_path=str(BUNDLE)))
    return files
