"""Where the client keeps tokens and client registrations between runs.

``TokenStore`` is what the client asks of a store: strings under keys, so a store of the user's own
(a keyring, a secrets manager) is three small methods.  ``FileTokenStore`` keeps each entry in a
file of its own, readable by the user alone (0600, in a 0700 folder), under the user's config
folder; ``MemoryTokenStore`` keeps them for the life of the process.  What goes in is JSON the
client writes: refresh tokens are in it, so a store must not log what it keeps.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Protocol, runtime_checkable


@runtime_checkable
class TokenStore(Protocol):
    async def get(self, key: str) -> str | None: ...

    async def set(self, key: str, value: str) -> None: ...

    async def delete(self, key: str) -> None: ...


def config_folder() -> Path:
    """``$XDG_CONFIG_HOME/mcptrio/oauth`` (``~/.config/mcptrio/oauth`` when it is unset)."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "mcptrio" / "oauth"


class FileTokenStore:
    """One file per key (named by the key's SHA-256), each holding the key and its value."""

    def __init__(self, folder: str | os.PathLike[str] | None = None) -> None:
        self.folder = Path(folder) if folder is not None else config_folder()

    def _path(self, key: str) -> Path:
        return self.folder / (hashlib.sha256(key.encode()).hexdigest()[:32] + ".json")

    async def get(self, key: str) -> str | None:
        try:
            entry = json.loads(self._path(key).read_text())
        except (FileNotFoundError, ValueError):
            return None
        value = entry.get("value") if isinstance(entry, dict) and entry.get("key") == key else None
        return value if isinstance(value, str) else None

    async def set(self, key: str, value: str) -> None:
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        path = self._path(key)
        temporary = path.with_suffix(".tmp")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as file:
            os.fchmod(descriptor, 0o600)  # (a file left from before keeps its mode otherwise)
            json.dump({"key": key, "value": value}, file)
        os.replace(temporary, path)

    async def delete(self, key: str) -> None:
        self._path(key).unlink(missing_ok=True)

    async def entries(self) -> dict[str, str]:
        """Every key and value kept (for ``mcptrio auth status``)."""
        found: dict[str, str] = {}
        for path in sorted(self.folder.glob("*.json")) if self.folder.is_dir() else []:
            try:
                entry = json.loads(path.read_text())
            except ValueError:
                continue
            if isinstance(entry, dict) and isinstance(entry.get("key"), str) and isinstance(entry.get("value"), str):
                found[entry["key"]] = entry["value"]
        return found


class MemoryTokenStore:
    """Entries kept in this process only."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}

    async def get(self, key: str) -> str | None:
        return self.values.get(key)

    async def set(self, key: str, value: str) -> None:
        self.values[key] = value

    async def delete(self, key: str) -> None:
        self.values.pop(key, None)

    async def entries(self) -> dict[str, str]:
        return dict(self.values)
