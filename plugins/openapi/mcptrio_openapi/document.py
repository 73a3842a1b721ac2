"""An OpenAPI document read from a file, a URL or a mapping, checked for what the tools need, with a
``referencing`` resolver for its ``$ref``s (in the document, or in files beside it).

Any problem is a ``DocumentError``: one line naming where in the document (a JSON pointer).  A
document is checked against the OpenAPI Initiative's JSON Schema of its version (``oas/``, as
published at spec.openapis.org) before its operations are read.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urlsplit

import orjson
import referencing
import referencing.exceptions

VERSIONS = ("3.0.", "3.1.")


class DocumentError(ValueError):
    """The document cannot be served: one line naming the operation or JSON pointer."""


def pointer(*parts: str | int) -> str:
    """The JSON pointer (RFC 6901) of ``parts``: ``#/paths/~1items~1{id}/get``."""
    return "#" + "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in parts)


def parse(text: bytes | str, where: str) -> Any:
    """JSON, or else YAML (a JSON document is also YAML, but JSON reads far faster)."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        pass
    import yaml  # type: ignore[import-untyped]

    try:
        return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        raise DocumentError(f"{where} is neither JSON nor YAML: {' '.join(str(exc).split())}") from None


def read(source: str | Path, timeout: float = 30.0, headers: Mapping[str, str] | None = None) -> tuple[Any, str]:
    """The parsed document at ``source`` (a path or an http(s) URL), and its URI (the base of its refs)."""
    text = str(source)
    if urlsplit(text).scheme in ("http", "https"):
        import httpx

        try:
            response = httpx.get(text, timeout=timeout, headers=dict(headers or {}), follow_redirects=True)
        except httpx.HTTPError as exc:
            raise DocumentError(f"cannot fetch the OpenAPI document {text}: {exc or type(exc).__name__}") from None
        if response.status_code != 200:
            raise DocumentError(f"cannot fetch the OpenAPI document {text}: HTTP {response.status_code}")
        return parse(response.content, text), str(response.url)
    path = Path(text).expanduser().resolve()
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DocumentError(f"cannot read the OpenAPI document {path}: {exc.strerror}") from None
    if path.suffix in (".gz", ".xz"):  # (a large document kept compressed)
        import gzip
        import lzma

        data = gzip.decompress(data) if path.suffix == ".gz" else lzma.decompress(data)
    return parse(data, str(path)), path.as_uri()


def check(document: object, where: str) -> dict[str, Any]:
    """``document`` if it is an OpenAPI 3.0 or 3.1 document with paths (DocumentError if not)."""
    if not isinstance(document, dict):
        raise DocumentError(f"{where} is not an OpenAPI document: not an object")
    version = document.get("openapi")
    if not isinstance(version, str) or not version.startswith(VERSIONS):
        found = f"swagger {document['swagger']}" if "swagger" in document else repr(version)
        raise DocumentError(f"{where}: #/openapi must be 3.0.x or 3.1.x, got {found}")
    paths = document.get("paths", {})
    if not isinstance(paths, dict):
        raise DocumentError(f"{where}: #/paths must be an object")
    return document


@functools.cache
def _shape(version: str) -> Any:
    """The OpenAPI Initiative's JSON Schema of documents of ``version`` ("3.0" or "3.1"), as a
    validator (the Rust one mcptrio checks tool arguments with: a large document in milliseconds)."""
    import jsonschema_rs

    schema = orjson.loads(resources.files(__package__).joinpath("oas", f"{version}.json").read_bytes())
    return jsonschema_rs.validator_for(schema)


def problems(document: dict[str, Any], where: str, most: int = 20) -> list[str]:
    """What makes ``document`` no valid OpenAPI document (the official schema of its version, which
    leaves the schemas in it to the tools' own checks): one line each, naming the JSON pointer."""
    version = "3.1" if str(document.get("openapi", "")).startswith("3.1.") else "3.0"
    found = []
    for error in itertools.islice(_shape(version).iter_errors(document), most):
        first = str(error).split("\n", 1)[0]
        found.append(f"{where}: {pointer(*error.instance_path)}: {first}")
    return found


def _retrieve(uri: str) -> referencing.Resource[Any]:
    """A document another one refers to: only a file (no network fetch while resolving)."""
    parts = urlsplit(uri)
    if parts.scheme != "file":
        raise referencing.exceptions.NoSuchResource(uri)
    try:
        contents = parse(Path(parts.path).read_bytes(), parts.path)
    except (OSError, DocumentError):
        raise referencing.exceptions.NoSuchResource(uri) from None
    return referencing.Resource.opaque(contents)


def refs(document: dict[str, Any], uri: str) -> Refs:
    """The document's references, relative to its ``uri``."""
    registry: referencing.Registry[Any] = referencing.Registry(retrieve=_retrieve)  # type: ignore[call-arg]  # (an attrs field the stubs miss)
    base = urldefrag(uri).url
    return Refs(registry.with_resource(base, referencing.Resource.opaque(document)).resolver(base))


class Refs:
    """A document's references, looked up through ``referencing`` and remembered (a large document
    refers to its few schemas thousands of times): ``lookup`` gives what a ref names, and the
    ``Refs`` of the refs inside it."""

    def __init__(self, resolver: Any, memo: dict[tuple[int, str], tuple[Any, Refs, Any]] | None = None) -> None:
        self.resolver = resolver  # referencing's Resolver (a class it does not export)
        self.memo = memo if memo is not None else {}

    def lookup(self, ref: str, where: str) -> tuple[Any, Refs]:
        """(DocumentError naming ``where`` when ``ref`` names nothing.)"""
        key = (id(self.resolver), ref)  # (the resolver is kept in the entry: its id stays its own)
        known = self.memo.get(key)
        if known is None:
            try:
                found = self.resolver.lookup(ref)
            except referencing.exceptions.Unresolvable:
                raise DocumentError(f"{where}: cannot resolve $ref {ref!r}") from None
            known = self.memo[key] = (found.contents, Refs(found.resolver, self.memo), self.resolver)
        return known[0], known[1]
