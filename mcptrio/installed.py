"""The distributions installed, and their versions, read from the ``*.dist-info`` folders on
``sys.path`` where ``importlib.metadata`` would find them, without importing ``importlib.metadata``:
it loads email and zipfile, and with its search it was a tenth of a stdio server's start-up.
Callers ask ``importlib.metadata`` when this finds nothing (zipped eggs, other finders, egg-info
without a version in its name).  ``plugins`` reads the plugins' entry points from these folders."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator


def distributions() -> Iterator[tuple[str, str, str]]:
    """(normalized name, version or "", metadata folder) of each distribution in ``sys.path``'s
    folders, in path order; of several with one name, the first (the one importlib.metadata sees)."""
    seen: set[str] = set()
    for folder in sys.path:
        try:
            children = os.listdir(folder or ".")
        except OSError:  # (a zip file, or gone)
            continue
        for child in children:
            low = child.lower()
            if not low.endswith((".dist-info", ".egg-info")):
                continue
            name, _, version = low.rpartition(".")[0].partition("-")
            name = normalize(name)
            if name not in seen:
                seen.add(name)
                yield name, version, os.path.join(folder or ".", child)


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def version(name: str) -> str | None:
    """The version of the distribution ``name``: in its dist-info folder's name, else in the
    ``Version:`` of its METADATA (PKG-INFO in an egg-info); None if it is not found."""
    wanted = normalize(name)
    for found, version, folder in distributions():
        if found != wanted:
            continue
        if version:
            return version
        for metadata in ("METADATA", "PKG-INFO"):
            try:
                with open(os.path.join(folder, metadata), encoding="utf-8") as f:
                    for line in f:
                        if line.startswith("Version:"):
                            return line.partition(":")[2].strip()
                        if not line.strip():
                            break  # (the end of the headers)
            except OSError:
                continue
        return None
    return None


def own_version() -> str:
    """mcptrio's own version, as installed (pyproject.toml is its one source)."""
    found = version("mcptrio")  # (its dist-info folder's name, without importlib.metadata)
    if found is not None:
        return found
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as metadata_version

    try:
        return metadata_version("mcptrio")
    except PackageNotFoundError:  # (imported from a checkout that was never installed)
        return "0+unknown"
