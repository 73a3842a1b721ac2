"""No package reaches into another's private names: a ``_name`` belongs to the package that defines it.

Walked with ``ast`` over ``mcptrio/``.  A package is a folder; a module directly under ``mcptrio/``
is a package of its own (they are separate features that only share the root).  Flagged:

- an import of a ``_private`` name, or from a ``_private`` module, of another package;
- ``X._name`` where ``X`` was imported from another package (a module, class or function);
- ``obj._name`` (``obj`` not ``self``, ``cls`` or ``super()``) where ``_name`` is defined only in
  other packages: a method, a class, or an attribute or variable assigned there.

Dunder names are public.  Within one package private use is fine.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _private(name: str) -> bool:
    return len(name) > 1 and name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


class Tree:
    """The modules of one source tree (its ``mcptrio/`` folder), by dotted name."""

    def __init__(self, root: Path, package: str = "mcptrio") -> None:
        self.root = root
        self.package = package
        self.files = {self._module_of(path): path for path in sorted((root / package).rglob("*.py"))}

    def _module_of(self, path: Path) -> str:
        parts = list(path.relative_to(self.root).with_suffix("").parts)
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)

    def is_package(self, module: str) -> bool:
        return self.files.get(module, Path()).name == "__init__.py"

    def owner(self, dotted: str) -> str:
        """The package a dotted name (a module, or something in one) belongs to."""
        parts = dotted.split(".")
        while len(parts) > 1 and ".".join(parts) not in self.files:
            parts.pop()
        module = ".".join(parts)
        if self.is_package(module) or module.count(".") == 1:  # (a module under the root: its own)
            return module
        return module.rpartition(".")[0]

    def absolute(self, module: str, level: int, name: str | None) -> str:
        """What ``from <level dots><name> import`` in ``module`` names."""
        if level == 0:
            return name or ""
        base = module.split(".") if self.is_package(module) else module.split(".")[:-1]
        base = base[: len(base) - level + 1]
        return ".".join(base + ([name] if name else []))


def _defined_private_names(tree: Tree, parsed: dict[str, ast.Module]) -> dict[str, set[str]]:
    """Each private name the tree defines (a function, method or class; a module's or class's
    variable; an attribute assigned, or named in ``__slots__``), and the packages that define it."""
    found: dict[str, set[str]] = defaultdict(set)
    for module, syntax in parsed.items():
        owner = tree.owner(module)
        for node in ast.walk(syntax):
            names: list[str] = []
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names = [node.name]
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names = [node.attr]
            if isinstance(node, (ast.Module, ast.ClassDef)):
                names += [name for statement in node.body for name in _assigned(statement)]
            for name in names:
                if _private(name):
                    found[name].add(owner)
    return found


def _assigned(statement: ast.stmt) -> list[str]:
    if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
        return [statement.target.id]
    if not isinstance(statement, ast.Assign):
        return []
    names = [target.id for target in statement.targets if isinstance(target, ast.Name)]
    if "__slots__" in names:
        names += [
            c.value for c in ast.walk(statement.value) if isinstance(c, ast.Constant) and isinstance(c.value, str)
        ]
    return names


def _dotted(node: ast.expr) -> list[str] | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id, *reversed(parts)]


def violations(tree: Tree) -> list[str]:
    """``path:line: what`` for each private name used across packages, in file and line order."""
    parsed = {module: ast.parse(path.read_text(encoding="utf-8"), str(path)) for module, path in tree.files.items()}
    defined = _defined_private_names(tree, parsed)
    out: list[str] = []
    for module, syntax in parsed.items():
        where = f"{tree.files[module].relative_to(tree.root)}"
        imported = _imports(tree, module, syntax, where, out)
        _attributes(tree, module, syntax, where, imported, defined, out)
    return sorted(set(out), key=lambda line: (line.split(":")[0], int(line.split(":")[1]), line))


def _imports(tree: Tree, module: str, syntax: ast.Module, where: str, out: list[str]) -> dict[str, str]:
    """Flag private imports from other packages; return the names bound by such imports, each
    with the dotted name of what it is."""
    owner = tree.owner(module)
    imported: dict[str, str] = {}
    for node in ast.walk(syntax):
        if isinstance(node, ast.ImportFrom):
            source = tree.absolute(module, node.level, node.module)
            bound = [(alias.asname or alias.name, f"{source}.{alias.name}") for alias in node.names]
        elif isinstance(node, ast.Import):  # (``import a.b as c`` binds c to a.b; ``import a.b`` binds a)
            bound = [(alias.asname or alias.name, alias.name) for alias in node.names]
        else:
            continue
        for name, full in bound:
            if full.split(".")[0] != tree.package or tree.owner(full) == owner:
                continue
            if any(_private(part) for part in full.split(".")):
                out.append(f"{where}:{node.lineno}: imports {full}, a private name of {tree.owner(full)}")
            local = name.split(".")[0]
            imported[local] = full if local == name else local
    return imported


def _attributes(
    tree: Tree,
    module: str,
    syntax: ast.Module,
    where: str,
    imported: dict[str, str],
    defined: dict[str, set[str]],
    out: list[str],
) -> None:
    """Flag ``X._name`` for X imported from another package, and ``obj._name`` for a name only
    other packages define."""
    owner = tree.owner(module)
    for node in ast.walk(syntax):
        if not isinstance(node, ast.Attribute) or not _private(node.attr):
            continue
        chain = _dotted(node.value)
        if chain is not None and chain[0] in imported:
            full = ".".join([imported[chain[0]], *chain[1:]])
            out.append(f"{where}:{node.lineno}: {ast.unparse(node)} is private to {tree.owner(full)}")
        elif chain in (["self"], ["cls"]) or _is_super_call(node.value):
            continue  # (its own class's, or a base class's: a subclass may use what its base keeps)
        elif defined.get(node.attr) and owner not in defined[node.attr]:
            out.append(
                f"{where}:{node.lineno}: {ast.unparse(node)} uses a private name of "
                f"{', '.join(sorted(defined[node.attr]))}"
            )


def _is_super_call(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and _dotted(node.func) == ["super"]


def test_no_package_uses_another_packages_private_names() -> None:
    found = violations(Tree(ROOT))
    assert not found, "private names used across packages (give the owner a public name for it):\n" + "\n".join(found)


def _write(root: Path, files: dict[str, str]) -> Tree:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return Tree(root)


def test_the_check_finds_each_kind_of_reach_and_allows_a_package_its_own(tmp_path: Path) -> None:
    tree = _write(
        tmp_path,
        {
            "mcptrio/__init__.py": "",
            "mcptrio/plugins.py": "def _entry_points(): pass\ndef public(): pass\n",
            "mcptrio/reload.py": "from .plugins import _entry_points, public\n",
            "mcptrio/state/__init__.py": "",
            "mcptrio/state/redis.py": (
                "class RedisState:\n    def _key(self): pass\n    def _pipe(self): pass\n"
                "    def key(self): return self._key()\n"
            ),
            "mcptrio/state/other.py": "def use(state): return state._pipe()\n",  # (its own package: fine)
            "mcptrio/app/__init__.py": "",
            "mcptrio/app/store.py": (
                "from ..state import redis\nfrom ..state.redis import RedisState\n"
                "def a(): return redis._helper\n"
                "def b(shared): return shared._pipe()\n"
                "def c(): return RedisState._key\n"
                "def d(x): return x.__dict__, x._unknown_anywhere\n"
            ),
            "mcptrio/app/sub.py": "from mcptrio.state import _hidden\n",
            "mcptrio/app/more.py": (
                "import mcptrio.plugins\nimport mcptrio.state.redis as r\n"
                "from ..state.redis import RedisState\n"
                "class Store(RedisState):\n"
                "    def own(self): return self._key(), super()._pipe(), self.shared.key()\n"
                "x, y = mcptrio.plugins._entry_points, r.RedisState._pipe\n"
            ),
        },
    )
    assert violations(tree) == [
        "mcptrio/app/more.py:6: mcptrio.plugins._entry_points is private to mcptrio.plugins",
        "mcptrio/app/more.py:6: r.RedisState._pipe is private to mcptrio.state",
        "mcptrio/app/store.py:3: redis._helper is private to mcptrio.state",
        "mcptrio/app/store.py:4: shared._pipe uses a private name of mcptrio.state",
        "mcptrio/app/store.py:5: RedisState._key is private to mcptrio.state",
        "mcptrio/app/sub.py:1: imports mcptrio.state._hidden, a private name of mcptrio.state",
        "mcptrio/reload.py:1: imports mcptrio.plugins._entry_points, a private name of mcptrio.plugins",
    ]
