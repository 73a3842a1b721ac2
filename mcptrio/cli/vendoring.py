"""The packages a bundle carries, so it starts with a bare Python: a distribution and everything it
requires, copied from this environment (this platform, this Python: offline, as tested here) or, for
``--platform`` tags, installed by pip for each named platform into a folder of its own.

A distribution installed from a folder (``pip install -e``, or a local path) is copied as source: its
top-level packages and its metadata (the plugin entry points ``serve`` finds).  Requirements are the
installed ones: a marker this machine does not satisfy left that requirement uninstalled, and so out."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import attrs

from .usage import UsageError

REQUIREMENT = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[([^\]]*)\])?")
METADATA_FILES = ("METADATA", "entry_points.txt", "top_level.txt", "WHEEL")
# The marker variables of each sys.platform a bundle names (the others are this machine's).
MARKERS = {
    "linux": {"sys_platform": "linux", "os_name": "posix", "platform_system": "Linux"},
    "darwin": {"sys_platform": "darwin", "os_name": "posix", "platform_system": "Darwin"},
    "win32": {"sys_platform": "win32", "os_name": "nt", "platform_system": "Windows"},
}
# pip platform tags by the sys.platform a bundle's server/main.py runs on.
PLATFORM_PREFIXES = {"manylinux": "linux", "musllinux": "linux", "linux": "linux", "macosx": "darwin", "win": "win32"}


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@attrs.frozen
class Closure:
    """What a distribution needs on one platform: the installed distributions, and the requirements of
    that platform not installed here (``--platform``: pip installs their newest wheels)."""

    installed: dict[str, importlib.metadata.Distribution]
    elsewhere: list[str]


def closure(root: str, system: str | None = None) -> Closure:
    """``root`` and the distributions it requires, transitively, by normalized name; markers evaluated
    for ``system`` (a ``sys.platform``; None: this machine, where every requirement must be installed)."""
    found: dict[str, importlib.metadata.Distribution] = {}
    elsewhere: list[str] = []
    seen: set[tuple[str, frozenset[str]]] = set()
    pending: list[tuple[str, frozenset[str], str]] = [(root, frozenset(), root)]
    while pending:
        name, extras, wanted_by = pending.pop()
        if (normalized(name), extras) in seen:
            continue
        seen.add((normalized(name), extras))
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            if system is not None and system != sys.platform:
                elsewhere.append(name)
                continue
            raise UsageError(f"{wanted_by} requires {name}, which is not installed here: install it first") from None
        found[normalized(dist.metadata["Name"])] = dist
        for requirement in dist.requires or []:
            spec, _, marker = requirement.partition(";")
            match = REQUIREMENT.match(spec)
            if match is None:
                continue
            required = match.group(1)
            their_extras = frozenset(normalized(e) for e in (match.group(2) or "").split(",") if e.strip())
            if marker.strip() and not _holds(marker, extras, required, system):
                continue
            pending.append((required, their_extras, dist.metadata["Name"]))
    return Closure(found, sorted(set(elsewhere)))


def _holds(marker: str, extras: frozenset[str], required: str, system: str | None) -> bool:
    """Whether a requirement's marker holds on ``system`` (``packaging`` evaluates it when installed, as
    it almost always is; else, for this machine only: whether pip installed it)."""
    try:
        from packaging.markers import InvalidMarker, Marker
    except ImportError:
        try:
            importlib.metadata.distribution(required)
        except importlib.metadata.PackageNotFoundError:
            return False
        return True
    try:
        parsed = Marker(marker)
    except InvalidMarker:
        return False
    environment = dict(MARKERS.get(system or sys.platform, {})) if system is not None else {}
    return any(parsed.evaluate({**environment, "extra": extra}) for extra in extras or {""})


def copy_installed(dists: dict[str, importlib.metadata.Distribution], lib: Path, *, local_only: bool = False) -> None:
    """Copy the distributions into ``lib`` as this environment has them (``local_only``: only those
    installed from a folder, the rest being pip's to install)."""
    lib.mkdir(parents=True, exist_ok=True)
    for dist in dists.values():
        if from_folder(dist):
            _copy_source(dist, lib)
        elif not local_only:
            _copy_files(dist, lib)


def from_folder(dist: importlib.metadata.Distribution) -> bool:
    """Whether ``dist`` was installed from a folder (its ``direct_url.json`` says so, or its metadata is a
    source tree's ``.egg-info``), not from an index: its source is copied, never asked of pip."""
    if dist.read_text("direct_url.json") is not None:
        return True
    return dist.read_text("METADATA") is None and dist.read_text("PKG-INFO") is not None


def _copy_files(dist: importlib.metadata.Distribution, lib: Path) -> None:
    for file in dist.files or []:
        if file.parts[0] == ".." or "__pycache__" in file.parts or file.suffix == ".pth":
            continue
        source = Path(str(dist.locate_file(file)))
        if source.is_file():
            (lib / file).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, lib / file)


def _copy_source(dist: importlib.metadata.Distribution, lib: Path) -> None:
    """A distribution installed from a folder: its top-level packages' source, and its metadata."""
    name = dist.metadata["Name"]
    info = lib / f"{name.replace('-', '_')}-{dist.version}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    for file in METADATA_FILES:
        text = dist.read_text(file) or (dist.read_text("PKG-INFO") if file == "METADATA" else None)
        if text is not None:
            (info / file).write_text(text, encoding="utf-8")
    tops = (dist.read_text("top_level.txt") or name.replace("-", "_")).split()
    for top in tops:
        spec = importlib.util.find_spec(top)
        if spec is None:
            raise UsageError(f"{name}: its package {top!r} cannot be found to copy")
        if spec.submodule_search_locations:
            folder = Path(list(spec.submodule_search_locations)[0])
            shutil.copytree(folder, lib / top, ignore=shutil.ignore_patterns("__pycache__"), dirs_exist_ok=True)
        elif spec.origin:
            shutil.copy2(spec.origin, lib / Path(spec.origin).name)


def pip_install(needed: Closure, lib: Path, platform: str) -> None:
    """The distributions not installed from a folder, as wheels for ``platform`` (a pip platform tag)
    and this Python's version, installed by pip into ``lib``; the local ones copied as source."""
    pins = [f"{d.metadata['Name']}=={d.version}" for d in needed.installed.values() if not from_folder(d)]
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--target", str(lib)]
    command += ["--platform", platform, "--python-version", version, "--only-binary=:all:", "--no-deps"]
    done = subprocess.run([*command, *pins, *needed.elsewhere], capture_output=True, text=True)
    if done.returncode != 0:
        last = [line for line in done.stderr.splitlines() if line.strip()][-1:] or ["(no message)"]
        raise UsageError(f"--platform {platform}: pip could not install the wheels: {last[0].strip()}")
    copy_installed(needed.installed, lib, local_only=True)


def system_of(platform: str) -> str:
    """The ``sys.platform`` a pip platform tag is for (``win_amd64``: win32); UsageError for another."""
    for prefix, system in PLATFORM_PREFIXES.items():
        if platform.startswith(prefix):
            return system
    raise UsageError(
        f"--platform {platform!r}: a pip platform tag such as manylinux2014_x86_64, macosx_11_0_arm64 or win_amd64"
    )


def compiled(lib: Path) -> bool:
    """Whether ``lib`` holds extension modules (tied to one Python version)."""
    return any(lib.rglob("*.so")) or any(lib.rglob("*.pyd"))
