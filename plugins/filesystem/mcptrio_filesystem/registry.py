"""The plugin's registry, shared by ``tools`` and ``resources``."""

import mcptrio

plugin = mcptrio.Registry("filesystem")

# What a user installing the server chooses (a bundle's form, a registry entry's variable): read by roots.py.
ALLOWED_FOLDERS = plugin.user_setting(
    "allowed_folders",
    env="MCPTRIO_FS_ROOTS",
    kind="directory",
    title="Allowed folders",
    description="The folder the server may read and write (several: separated by ':', or ';' on Windows); "
    "a client that lists its roots decides instead",
    required=True,
)
