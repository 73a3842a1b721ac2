"""mcptrio-filesystem: files and directories, confined to the client's roots.

Install it and serve it with ``mcptrio serve --plugins filesystem``.  Every path is checked by
``paths`` (confinement, symlinks resolved) and used through ``fsops`` (no link followed).
"""

from . import resources, tools  # noqa: F401  (registering)
from .registry import plugin

__all__ = ["plugin"]
