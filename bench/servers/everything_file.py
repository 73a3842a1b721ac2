"""The ``everything`` plugin served as a file (``mcptrio serve bench/servers/everything_file.py``):
the start-up figure of a target beside that of ``serve --plugins everything``, the same handlers."""

from mcptrio_everything import plugin

__all__ = ["plugin"]
