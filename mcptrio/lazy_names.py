"""A package's names imported when first asked for, not when the package is.

A server's start-up is mostly imports, and most servers use few of the names a package exports
(TLS, authorization, reshaping, the HTTP server).  A package lists where each such name comes
from, and its module ``__getattr__`` (PEP 562) imports the module on first use.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping


def lazy_names(package: str, modules: Mapping[str, tuple[str, ...]]) -> Callable[[str], object]:
    """The module ``__getattr__`` of ``package``: each name from its module, imported on first use.

    ``modules`` maps a module, relative to ``package``, to the names it gives.  A name that is the
    module's own last component (``".app.content": ("content",)``) is the module itself.
    """
    where = {name: module for module, names in modules.items() for name in names}

    def __getattr__(name: str) -> object:
        module_name = where.get(name)
        if module_name is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(module_name, package)
        return module if module_name.rpartition(".")[2] == name else getattr(module, name)

    return __getattr__
