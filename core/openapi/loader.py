"""OpenAPI descriptions loaded and cached: `load_description`, `DescriptionCache`, base URLs, and
each description's operations (a LoadedDescription builds them once, on first use: operations.py).

* **Caching**: `DescriptionCache` keys a loaded `Description` by resolved path and is valid while
  the (mtime, size) of every file it read is unchanged; `load_description` uses one module-wide
  cache (a run and a TUI session share it; a TUI may also keep its own cache object).
* Swagger 2.0 and OpenAPI 3.0/3.1 all end up in one operation model (operations.py); this
  module only knows the version and the servers.

Public: `OpenApiError`, `load_description`, `load_descriptions`, `DescriptionCache`,
`Description`, `resolve_base_url`, `base_url_from` (for parameters/resolution.py).
"""

from __future__ import annotations

import os
import re
import threading
from typing import Iterator, Mapping

from scenario_core.openapi.documents import (  # noqa: F401 (re-exported: the loader is the public face)
    ALIAS_EXPANSION_BUDGET,
    HTTP_METHODS,
    MAX_DESCRIPTION_BYTES,
    MAX_REF_HOPS,
    VERSIONS,
    Description,
    join_pointer,
    locate,
    parse_document,
    read_capped,
    split_pointer,
)
from scenario_core.openapi.documents import OpenApiError as OpenApiError  # re-exported: the public face
from scenario_core.openapi.documents import (
    file_stamp as _stamp,
)
from scenario_core.openapi.operation_lookup import Descriptions
from scenario_core.openapi.operations import LoadedDescription
from scenario_core.support.json_types import JsonObject


def _version(document: JsonObject, path: str) -> str:
    raw = document.get("openapi", document.get("swagger"))
    text = str(raw) if raw is not None else ""
    if "swagger" in document and text.startswith("2.0"):
        return "2.0"
    for version in ("3.0", "3.1"):
        if "openapi" in document and (text == version or text.startswith(version + ".")):
            return version
    if raw is None:
        raise OpenApiError(f"'{path}' is not an OpenAPI description: no 'openapi' or 'swagger' field")
    raise OpenApiError(f"'{path}': unsupported OpenAPI version {text!r} (supported: 3.0, 3.1, Swagger 2.0)")


class DescriptionCache:
    """Loaded descriptions by resolved path, valid while no file they read has changed."""

    def __init__(self) -> None:
        self._entries: dict[str, LoadedDescription] = {}
        self._lock = threading.Lock()

    def load(self, path: str | os.PathLike[str]) -> LoadedDescription:
        resolved = os.path.realpath(os.fspath(path))
        with self._lock:
            cached = self._entries.get(resolved)
        if cached is not None and self._fresh(cached):
            return cached
        data = read_capped(resolved) if os.path.exists(resolved) else read_capped(os.fspath(path))
        document = parse_document(data, resolved)
        if not isinstance(document, dict):
            raise OpenApiError(f"'{resolved}' is not an OpenAPI description (its top level is not a mapping)")
        description = LoadedDescription(resolved, document, _version(document, resolved))
        description.stamps[resolved] = _stamp(resolved)
        with self._lock:
            self._entries[resolved] = description
        return description

    @staticmethod
    def _fresh(description: Description) -> bool:
        try:
            return all(_stamp(p) == s for p, s in list(description.stamps.items()))
        except OSError:
            return False

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __iter__(self) -> Iterator[LoadedDescription]:
        return iter(list(self._entries.values()))


DEFAULT_CACHE = DescriptionCache()


def load_description(path: str | os.PathLike[str], cache: DescriptionCache | None = None) -> LoadedDescription:
    """A description by path, from `cache` (the module-wide one by default). Raises OpenApiError."""
    return (cache or DEFAULT_CACHE).load(path)


def resolve_base_url(description: Description | None, explicit: str | None = None) -> str | None:
    """The base URL of a call: `explicit` (binding.NAME.baseUrl, else the baseUrl parameter chain,
    as the caller found it) wins; else the description's `servers[0]` with variables at their
    defaults when that is an absolute http(s) URL; else None."""
    if explicit:
        return explicit
    if description is None:
        return None
    url = description.server_url()
    return url if url and re.match(r"https?://[^/]", url) else None


def base_url_from(path: str) -> str | None:
    """`servers[0].url` with server variables at their defaults; None when there is no absolute one.
    (The `openapi` parameter's level of baseUrl, core/resolution.py.)"""
    return resolve_base_url(load_description(path))


def load_descriptions(
    paths: Mapping[str, str | os.PathLike[str]], cache: DescriptionCache | None = None
) -> Descriptions:
    """Descriptions by name from paths (`{"default": "petstore.yaml", "auth": "auth.yaml"}`),
    through `cache` (the module-wide cache by default). Raises OpenApiError."""
    return Descriptions({name: load_description(path, cache) for name, path in paths.items()})
