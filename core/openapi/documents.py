"""OpenAPI documents: reading them safely, parsing YAML and JSON, JSON pointers and `$ref`s across
files, and the `Description` data model (a root document, its version, every file read for it).

Design
------
* **Reading is hardened** before any parser sees a byte: the path must be a regular file (a FIFO,
  a device such as /dev/zero or a directory is refused at once: it is opened non-blocking and
  `fstat`ed), and at most `MAX_DESCRIPTION_BYTES + 1` bytes are read, so a huge file is refused
  without being read whole.
* **YAML** goes through PyYAML's safe parser (libyaml's when present) and safe scalar rules, but
  we build the data from its events ourselves (`_build`): that skips PyYAML's node graph (4× faster
  on a 5 MB file) and lets us count, as we go, how many nodes alias expansion would add; beyond
  `ALIAS_EXPANSION_BUDGET` the file is refused — a "billion laughs" file is refused, never
  expanded, while ordinary anchors (`get: &op` / `post: *op`) stay fine. Recursive aliases are
  refused. Timestamps stay strings and mapping keys become strings, so a description is plain
  JSON data (`200:` and `"200":` are the same response).
* **Errors** are `OpenApiError`s: one line, with file, line and column when known (YAML and JSON
  errors have marks; a bad `$ref` is located by re-reading its file, only when it fails).
* **`$ref`s** are resolved by us, not by `referencing`: a reference is a relative file path plus a
  JSON pointer, each further file goes through the same hardened reader, and we need the
  (file, pointer) of every schema anyway to compile validators (schema_compile.py) and to
  convert OpenAPI 3.0 / Swagger 2.0 schemas. Remote (`http:`) references are refused: no network.
"""

from __future__ import annotations

import json
import os
import re
import threading
from typing import TYPE_CHECKING, Any, NoReturn
from urllib.parse import unquote, urlsplit

import yaml

from scenario_core.support.input_files import InputFileError, read_regular_file
from scenario_core.support.json_types import JsonArray, JsonObject, JsonValue
from scenario_core.support.records import dataclass, field

if TYPE_CHECKING:
    from scenario_core.openapi.pattern_clock import SchemaValidator

MAX_DESCRIPTION_BYTES = 50 * 1024 * 1024
ALIAS_EXPANSION_BUDGET = 100_000  # nodes that alias expansion may add to a document
MAX_REF_HOPS = 64
HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


class OpenApiError(ValueError):
    """A description that cannot be used. `str()` is one line: `FILE:LINE:COLUMN: message` when
    the place is known, else the message alone (which then names the file)."""

    def __init__(self, message: str, file: str | None = None, line: int | None = None, column: int | None = None):
        self.message, self.file, self.line, self.column = message, file, line, column
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.file and self.line:
            return f"{self.file}:{self.line}:{self.column or 1}: {self.message}"
        return self.message


# ---------------------------------------------------------------------------------- reading


def read_capped(path: str, max_bytes: int = MAX_DESCRIPTION_BYTES) -> bytes:
    """The bytes of a regular file of at most max_bytes; anything else is an OpenApiError at once."""
    try:
        return read_regular_file(path, max_bytes)
    except InputFileError as problem:
        raise OpenApiError(f"OpenAPI description '{path}' {problem}") from None


_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_BaseLoader):  # type: ignore[misc, valid-type]
    """Safe parser and scalar rules; timestamps stay text (`_build` makes mapping keys text)."""


_Loader.add_constructor("tag:yaml.org,2002:timestamp", lambda loader, node: loader.construct_scalar(node))


_STR, _MAP, _SEQ = "tag:yaml.org,2002:str", "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"
_MERGE = "tag:yaml.org,2002:merge"


def _key(value: object, event: yaml.Event) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (dict, list)):
        raise _YamlProblem(event, "a mapping or sequence as a mapping key is not supported")
    return json.dumps(value) if isinstance(value, (bool, type(None))) else str(value)


class _YamlProblem(Exception):
    def __init__(self, event: yaml.Event, message: str, refused: bool = False):
        super().__init__(message)
        self.mark, self.message, self.refused = getattr(event, "start_mark", None), message, refused


def _build(loader: _Loader, budget: int) -> JsonValue:
    """Plain data straight from the parser's events, without PyYAML's node graph (its composer
    resolves every scalar in Python and makes the graph first: ~4× slower on a 5 MB file).
    Anchored values are shared like PyYAML does; the nodes an alias would add when expanded are
    counted, and past `budget` the file is refused: a "billion laughs" is never expanded. An
    alias to a collection that is still open (a recursive alias) is refused. Scalars are JSON's
    (timestamps stay text), but for a `!!binary` one: bytes, which every reader of a description
    takes for a scalar of no use (not a mapping, a list or text)."""
    # frame: [container, pending key or no_key, anchor, size, merges, explicit keys, merge key
    # pending, start event]: a list of mixed items, read and written in place as the events come.
    stack: list[list[Any]] = []
    anchors: dict[str, tuple[JsonValue, int]] = {}
    open_anchors: set[str] = set()
    added = 0
    root: JsonValue = None
    documents = 0
    no_key = _build  # a sentinel no YAML value can be

    def attach(value: JsonValue, size: int, event: yaml.Event) -> None:
        nonlocal root
        if not stack:
            root = value
            return
        frame = stack[-1]
        frame[3] += size
        container = frame[0]
        if isinstance(container, list):
            container.append(value)
        elif frame[1] is no_key:
            frame[1] = value
        else:
            key, frame[1] = frame[1], no_key
            if frame[6]:
                frame[4].append((value, event))
            else:
                key = _key(key, event)
                container[key] = value
                frame[5].add(key)

    while True:
        event = loader.get_event()
        kind = type(event)
        if kind is yaml.ScalarEvent:
            tag, value = event.tag, event.value
            if tag in (None, "!"):
                tag = loader.resolve(yaml.ScalarNode, value, event.implicit) if tag is None else _STR
            if tag == _STR or tag == _MERGE:
                data: JsonValue = value
            else:
                constructor = loader.yaml_constructors.get(tag)
                if constructor is None:
                    raise _YamlProblem(event, f"unsupported YAML tag {tag}")
                data = constructor(loader, yaml.ScalarNode(tag, value, event.start_mark, event.end_mark))
            if event.anchor is not None:
                anchors[event.anchor] = (data, 1)
            is_key = bool(stack) and isinstance(stack[-1][0], dict) and stack[-1][1] is no_key
            attach(data, 1, event)
            if is_key:
                stack[-1][6] = tag == _MERGE  # `<<` written plain: PyYAML's merge key
        elif kind is yaml.MappingStartEvent or kind is yaml.SequenceStartEvent:
            default = _MAP if kind is yaml.MappingStartEvent else _SEQ
            if event.tag not in (None, "!", default):
                raise _YamlProblem(event, f"unsupported YAML tag {event.tag}")
            container: JsonObject | JsonArray = {} if kind is yaml.MappingStartEvent else []
            if event.anchor is not None:
                open_anchors.add(event.anchor)
            stack.append([container, no_key, event.anchor, 1, [], set(), False, event])
        elif kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
            closed, _, anchor, size, merges, explicit, _, start = stack.pop()
            for source, at in merges:  # only a mapping has merge keys
                for part in source if isinstance(source, list) else [source]:
                    if not isinstance(part, dict):
                        raise _YamlProblem(at, "a merge key (<<) needs a mapping or a list of mappings")
                    for k, v in part.items():
                        if k not in explicit:
                            closed.setdefault(k, v)
            if anchor is not None:
                open_anchors.discard(anchor)
                anchors[anchor] = (closed, size)
            attach(closed, size, start)
        elif kind is yaml.AliasEvent:
            if event.anchor in open_anchors:
                raise _YamlProblem(event, "a recursive YAML alias", refused=True)
            if event.anchor not in anchors:
                raise _YamlProblem(event, f"found undefined alias '{event.anchor}'")
            data, size = anchors[event.anchor]
            added += size
            if added > budget:
                raise _YamlProblem(
                    None,
                    f"YAML aliases would expand it by more than {budget:,} nodes; refusing a possible alias bomb",
                    refused=True,
                )
            attach(data, size, event)
        elif kind is yaml.DocumentStartEvent:
            documents += 1
            if documents > 1:
                raise _YamlProblem(event, "expected one YAML document, found more")
        elif kind is yaml.StreamEndEvent:
            return root


def parse_document(data: bytes, path: str, alias_budget: int = ALIAS_EXPANSION_BUDGET) -> JsonValue:
    """JSON or YAML text to plain data; errors are located OpenApiErrors."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise OpenApiError("OpenAPI description is not UTF-8 text", path, line, 1) from None
    stripped = text.lstrip()
    if path.endswith(".json") or stripped.startswith("{"):
        try:
            document: JsonValue = json.loads(text)
            return document
        except json.JSONDecodeError as error:
            if path.endswith(".json"):
                raise OpenApiError(
                    f"OpenAPI description is not valid JSON: {error.msg}", path, error.lineno, error.colno
                ) from None
        except RecursionError:
            raise OpenApiError("OpenAPI description is nested too deeply", path) from None
    loader = _Loader(text)
    try:
        return _build(loader, alias_budget)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        problem = error.problem or error.context or "invalid YAML"
        raise OpenApiError(
            f"OpenAPI description is not valid YAML: {problem}",
            path,
            mark.line + 1 if mark else None,
            mark.column + 1 if mark else None,
        ) from None
    except yaml.YAMLError as error:
        first = (str(error).splitlines() or [type(error).__name__])[0]
        raise OpenApiError(f"OpenAPI description is not valid YAML: {first}", path) from None
    except _YamlProblem as problem:
        mark = problem.mark
        what = "refused" if problem.refused else "is not valid YAML"
        raise OpenApiError(
            f"OpenAPI description {what}: {problem.message}",
            path,
            mark.line + 1 if mark else None,
            mark.column + 1 if mark else None,
        ) from None
    except RecursionError:
        raise OpenApiError("OpenAPI description is nested too deeply", path) from None
    finally:
        loader.dispose()


def locate(path: str, pointer: str) -> tuple[int, int] | None:
    """(line, column) of the value at a JSON pointer in a file, by composing it again (errors only)."""
    try:
        loader = _Loader(read_capped(path).decode("utf-8-sig"))
        try:
            node = loader.get_single_node()
        finally:
            loader.dispose()
        for part in split_pointer(pointer):
            if isinstance(node, yaml.MappingNode):
                node = next(v for k, v in node.value if k.value == part)
            elif isinstance(node, yaml.SequenceNode):
                node = node.value[int(part)]
            else:
                return None
        return node.start_mark.line + 1, node.start_mark.column + 1
    except Exception:  # locating is best effort: the error it decorates is the point
        return None


# ----------------------------------------------------------------------------------- pointers


def split_pointer(pointer: str) -> list[str]:
    pointer = unquote(pointer)
    if pointer in ("", "/"):
        return [] if pointer == "" else [""]
    if not pointer.startswith("/"):
        raise ValueError(pointer)
    return [p.replace("~1", "/").replace("~0", "~") for p in pointer[1:].split("/")]


def join_pointer(pointer: str, *parts: str | int) -> str:
    return pointer + "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


# -------------------------------------------------------------------------------- descriptions

VERSIONS = ("2.0", "3.0", "3.1")


def _items(value: JsonValue) -> JsonArray:
    """A list as written; a description that writes anything else there lists nothing."""
    return value if isinstance(value, list) else []


def file_stamp(path: str) -> tuple[int, int]:
    """(mtime_ns, size): a cached description is valid while every file it read keeps its stamp."""
    info = os.stat(path)
    return info.st_mtime_ns, info.st_size


@dataclass(eq=False)
class Description:
    """One loaded description: its root document, version, and every file read for it."""

    path: str  # resolved absolute path of the root file
    document: JsonObject
    version: str  # "2.0", "3.0" or "3.1"
    stamps: dict[str, tuple[int, int]] = field(default_factory=dict)  # file -> (mtime_ns, size)
    _files: dict[str, JsonValue] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    # Its operations, built once by operations.LoadedDescription (which declares the type: the
    # Operation class is defined above this module).
    _operations: object = field(default=None, repr=False)
    _validators: dict[tuple[str, str | int, bool], SchemaValidator] = field(
        default_factory=dict, repr=False
    )  # schema_compile.py's cache

    @property
    def title(self) -> str:
        info = self.document.get("info")
        return str(info.get("title", "")) if isinstance(info, dict) else ""

    def file(self, path: str) -> JsonValue:
        """The parsed content of a file of this description (the root or a `$ref`ed one)."""
        if path == self.path:
            return self.document
        with self._lock:
            if path not in self._files:
                data = read_capped(path)
                self._files[path] = parse_document(data, path)
                self.stamps[path] = file_stamp(path)
            return self._files[path]

    def resolve(self, node: JsonValue, base: str, pointer: str) -> tuple[JsonValue, str, str]:
        """Follow `$ref`s from `node` (found at base#pointer) to a value: (value, file, pointer)."""
        seen = set()
        hops = 0
        while isinstance(node, dict) and isinstance(ref := node.get("$ref"), str):
            if (base, pointer) in seen or hops > MAX_REF_HOPS:
                self.fail(f"$ref '{ref}' refers to itself in a loop", base, pointer)
            seen.add((base, pointer))
            hops += 1
            node, base, pointer = self.follow(ref, base, pointer)
        return node, base, pointer

    def follow(self, ref: str, base: str, at_pointer: str) -> tuple[JsonValue, str, str]:
        """One `$ref` hop: the target value, its file and its pointer."""
        parts = urlsplit(ref)
        if parts.scheme and len(parts.scheme) > 1 or parts.netloc:
            self.fail(f"$ref '{ref}' is remote; only local files can be referenced (no network)", base, at_pointer)
        target = base
        if parts.path:
            target = os.path.normpath(os.path.join(os.path.dirname(base), unquote(parts.path)))
        try:
            value = self.file(target)
        except OpenApiError as error:
            self.fail(f"$ref '{ref}': {error}", base, at_pointer)
        pointer = parts.fragment
        try:
            for part in split_pointer(pointer):
                if isinstance(value, dict):
                    value = value[part]
                elif isinstance(value, list):
                    value = value[int(part)]
                else:
                    raise KeyError(part)
        except (KeyError, ValueError, IndexError):
            self.fail(f"$ref '{ref}' points to nothing", base, at_pointer)
        return value, target, unquote(pointer)

    def fail(self, message: str, file: str, pointer: str) -> NoReturn:
        where = locate(file, pointer)
        raise OpenApiError(message, file, *(where or (None, None)))

    def servers(self) -> list[str]:
        """Server URLs as written by the description (Swagger 2.0: schemes + host + basePath)."""
        doc = self.document
        if self.version == "2.0":
            host = doc.get("host")
            if not isinstance(host, str) or not host:
                return [str(doc.get("basePath") or "/")] if doc.get("basePath") else []
            schemes = doc.get("schemes") or ["http"]
            base = str(doc.get("basePath") or "")
            return [f"{s}://{host}{base}" for s in _items(schemes) if isinstance(s, str)]
        return [str(s.get("url", "")) for s in _items(doc.get("servers")) if isinstance(s, dict)]

    def server_url(self) -> str | None:
        """`servers[0]` with its variables at their defaults (relative URLs as written), or None."""
        if self.version == "2.0":
            urls = self.servers()
            return urls[0] if urls else None
        servers = self.document.get("servers")
        if not servers or not isinstance(servers, list) or not isinstance(servers[0], dict):
            return None
        url = str(servers[0].get("url", ""))
        variables = servers[0].get("variables") or {}

        def default(match: re.Match[str]) -> str:
            spec = variables.get(match.group(1)) if isinstance(variables, dict) else None
            if not isinstance(spec, dict) or "default" not in spec:
                raise OpenApiError(f"OpenAPI server variable '{match.group(1)}' in '{self.path}' has no default")
            return str(spec["default"])

        return re.sub(r"\{([^{}]+)\}", default, url)
