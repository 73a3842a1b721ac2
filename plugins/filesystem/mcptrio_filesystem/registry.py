"""The plugin's registry, shared by ``tools`` and ``resources``."""

import mcptrio

plugin = mcptrio.Registry("filesystem")
