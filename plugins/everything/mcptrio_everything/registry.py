"""The one Registry every fixture module registers on; ``mcptrio_everything.plugin`` is this object."""

from __future__ import annotations

import mcptrio

plugin = mcptrio.Registry("everything")
