"""A TARGET: Python source served without packaging it — ``path/to/file.py`` or ``pkg.module``,
with an optional ``:attribute`` naming a Registry, an App, or a function returning one.

Resolved here, in one place, for ``mcptrio serve``, the client commands and ``--reload``.  A file
inside a package (folders with ``__init__.py``) is imported as part of that package, with the
package's root on ``sys.path``; a plain file with its own folder there, so ``import helpers`` beside
it works.  A module is imported as ``python -m`` would, with the working directory on ``sys.path``.
Every mistake is a ``TargetError``: one line for a user, naming the target and what is wrong.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
from pathlib import Path
from types import ModuleType

import attrs

from .app import Registry
from .plugins import PluginError

__all__ = ["Target", "TargetError", "load_target", "looks_like_target", "parse_target", "resolved_against"]


class TargetError(PluginError):
    """A target could not be found, imported, or holds no one Registry or App; one line for a user."""


@attrs.frozen
class Target:
    """Where a target's source is: the module to import, and for a file, the file and its import root."""

    text: str  # as the user wrote it
    module: str  # the name it is imported as
    attribute: str | None  # after ":", None to look for the one Registry or App
    file: Path | None = None  # a file target's source
    root: Path | None = None  # the folder put on sys.path: a file's own, its package's root, or the working directory

    @property
    def absolute(self) -> str:
        """The target as it reads from any working directory: a file's absolute path (a module's
        name needs its ``root`` as the working directory, or on ``sys.path``)."""
        if self.file is None:
            return self.text
        return f"{self.file}:{self.attribute}" if self.attribute else str(self.file)

    @property
    def folder(self) -> Path:
        """What ``--reload`` watches: the file's package (or folder), or the module's source folder."""
        if self.file is not None:
            top = self.module.split(".")[0]
            return self.file.parent if top == self.module else (self.root or self.file.parent) / top
        import importlib.util

        spec = importlib.util.find_spec(self.module.split(".")[0])
        if spec is None or spec.origin is None:
            raise TargetError(f"cannot --reload {self.text}: its source is not a file")
        locations = list(spec.submodule_search_locations or [])
        return Path(locations[0]) if locations else Path(spec.origin).parent


def looks_like_target(text: str) -> bool:
    """Whether ``text`` reads as a target rather than a plugin, tool or URL: a ``.py`` file, a path,
    ``module:attribute``, or a dotted module name (``pkg.module``)."""
    if "://" in text or not text or text.startswith("-"):
        return False
    source, _, _ = _split(text)
    if source.endswith(".py") or os.sep in source or "/" in source:
        return True
    if ":" in text:
        return _is_module_name(source)
    return "." in source and _is_module_name(source)


def resolved_against(text: str, folder: Path) -> str:
    """``text`` with a relative file path taken from ``folder`` (a config file's), a module name as it is."""
    source, colon, attribute = _split(text)
    if not (source.endswith(".py") or os.sep in source or "/" in source) or os.path.isabs(source):
        return text
    return f"{folder / source}{colon}{attribute or ''}"


def parse_target(text: str) -> Target:
    """The target ``text`` names; ``TargetError`` when its file does not exist or its name cannot be one."""
    source, _, attribute = _split(text)
    if attribute is not None and not all(part.isidentifier() for part in attribute.split(".")):
        raise TargetError(f"{text}: {attribute!r} is not an attribute name (file.py:NAME or module:NAME)")
    if source.endswith(".py") or os.sep in source or "/" in source:
        path = Path(source).expanduser().resolve()
        if not path.is_file():
            raise TargetError(f"{text}: no such file {str(path)!r}")
        root, module = _import_root(path)
        return Target(text, module, attribute, path, root)
    if not _is_module_name(source):
        raise TargetError(f"{text}: not a Python file (path/to/file.py) or module name (pkg.module)")
    return Target(text, source, attribute, None, Path.cwd())


def load_target(target: str | Target) -> Registry:
    """The Registry or App a target names (its ``:attribute``, or the one its module defines),
    imported now; ``TargetError`` in one line for anything amiss."""
    if isinstance(target, str):
        target = parse_target(target)
    module = _imported(target)
    if target.attribute is None:
        return _the_one(target, module)
    found: object = module
    for part in target.attribute.split("."):
        if not hasattr(found, part):
            raise TargetError(f"{target.text}: {target.module} has no attribute {target.attribute!r}")
        found = getattr(found, part)
    if inspect.iscoroutinefunction(found):
        raise TargetError(
            f"{target.text}: {target.attribute} must be a plain function (def) returning a Registry or App"
        )
    if not isinstance(found, Registry) and callable(found):
        try:
            found = found()
        except Exception as exc:  # the user's factory failed: its error, in one line
            raise TargetError(f"{target.text}: {target.attribute}() failed: {type(exc).__name__}: {exc}") from exc
    if not isinstance(found, Registry):
        raise TargetError(
            f"{target.text}: {target.attribute} is a {type(found).__name__}, not a mcptrio.Registry or App "
            "(or a function returning one)"
        )
    return found


def _split(text: str) -> tuple[str, str, str | None]:
    """(source, ":", attribute or None); a drive letter's colon (C:\\...) is not the attribute's."""
    head, colon, tail = text.rpartition(":")
    if not colon or len(head) <= 1 or os.sep in tail or "/" in tail:
        return text, "", None
    return head, colon, tail


def _is_module_name(text: str) -> bool:
    return all(part.isidentifier() for part in text.split("."))


def _import_root(path: Path) -> tuple[Path, str]:
    """The folder to put on sys.path for ``path``, and the module name it is imported as there:
    up through the folders that are packages (hold ``__init__.py``)."""
    parts = [path.stem] if path.name != "__init__.py" else []
    folder = path.parent
    while (folder / "__init__.py").is_file() and folder.parent != folder:
        parts.insert(0, folder.name)
        folder = folder.parent
    if not parts or not all(part.isidentifier() for part in parts):
        raise TargetError(f"{path}: {'.'.join(parts) or path.name!r} cannot be imported: not a Python module name")
    return folder, ".".join(parts)


def _imported(target: Target) -> ModuleType:
    root = str(target.root) if target.root is not None else None
    if root is not None and root not in sys.path:
        sys.path.insert(0, root)
    try:
        module = importlib.import_module(target.module)
    except ModuleNotFoundError as exc:
        if target.file is None and exc.name is not None and f"{target.module}.".startswith(f"{exc.name}."):
            raise TargetError(f"{target.text}: no module named {exc.name!r}") from exc
        raise TargetError(f"{target.text}: cannot import it: {type(exc).__name__}: {exc}") from exc
    except (Exception, SystemExit) as exc:  # the user's module failed to import: its error, in one line
        where = f" (line {exc.lineno})" if isinstance(exc, SyntaxError) and exc.lineno else ""
        raise TargetError(f"{target.text}: cannot import it: {type(exc).__name__}{where}: {exc}") from exc
    if target.file is not None and not _same_file(module, target.file):
        raise TargetError(
            f"{target.text}: the name {target.module!r} is already taken by "
            f"{getattr(module, '__file__', None) or module}: rename the file"
        )
    return module


def _same_file(module: ModuleType, path: Path) -> bool:
    found = getattr(module, "__file__", None)
    return found is not None and Path(found).resolve() == path


def _the_one(target: Target, module: ModuleType) -> Registry:
    found: dict[int, tuple[str, Registry]] = {}  # (one object under two names is one)
    for name, value in vars(module).items():
        if isinstance(value, Registry) and not name.startswith("_"):
            found.setdefault(id(value), (name, value))
    if len(found) == 1:
        return next(iter(found.values()))[1]
    if not found:
        raise TargetError(
            f"{target.text}: {target.module} defines no mcptrio.Registry or App "
            "(name one with :NAME if a function makes it)"
        )
    names = sorted(name for name, _ in found.values())
    raise TargetError(
        f"{target.text}: {target.module} defines {len(names)} Registries/Apps ({', '.join(names)}): "
        f"name one, as {target.text}:{names[0]}"
    )
