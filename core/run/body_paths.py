"""Concrete JSON paths in a response body: the closest existing paths when one matched nothing
(the failure message names them), and every match of a path with its concrete path (the TUI's
JSON-path playground). Paths are written the way a scenario writes them: `$.data.items[0].id`,
`$['a-b']` for a key that is not a plain name."""

from __future__ import annotations

import difflib
import re
from collections import deque
from typing import TYPE_CHECKING, Iterator, Protocol, Sequence

from scenario_core.language.json_paths import DottedPath

if TYPE_CHECKING:

    class PathMatch(Protocol):
        """One match of a compiled path: jsonpath-ng's DatumInContext, or a DottedMatch."""

        @property
        def value(self) -> object: ...

        @property
        def full_path(self) -> object: ...

    class CompiledPath(Protocol):
        """A compiled JSON path (language.json_paths.compile_json_path): jsonpath-ng's, or a DottedPath."""

        def find(self, data: object, /) -> Sequence[PathMatch]: ...


# Bodies may be huge: the walk stops at these, and suggests from what it saw.
MAX_DEPTH = 12
MAX_NODES = 20_000
MAX_SUGGESTIONS = 3
_RESEMBLES = 0.75  # difflib ratio from which a key "resembles" the wanted one

MAX_TOP_KEYS = 8  # a body object with at most this many keys is named by its keys too
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# The first key a path names: `$.data…` or `$['data']…`.
_FIRST_KEY = re.compile(r"""\$\s*(?:\.\s*([A-Za-z_][\w-]*)|\[\s*['"]([^'"]+)['"]\s*\])""")
# The words of a key: `petId`, `pet_id`, `pet-id` and `PetID` all hold `pet` and `id`.
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
# The last key a path names: `.id`, `['id']` or `["id"]`, before any trailing `[0]` / `[*]`.
_LAST_KEY = re.compile(
    r"""(?:\.\s*([A-Za-z_][\w-]*)|\[\s*['"]([^'"]+)['"]\s*\])\s*(?:\[\s*(?:\*|-?\d*:?-?\d*)\s*\]\s*)*\Z"""
)


def last_key(path: str) -> str | None:
    """The last object key a JSON path names (`$.data.id` → `id`), or None (`$`, `$[0]`)."""
    found = _LAST_KEY.search(path.strip())
    if found is None:
        return None
    return found.group(1) or found.group(2)


def child_path(parent: str, step: str | int) -> str:
    """`parent` followed by one key or index, written as a scenario would write it."""
    if isinstance(step, int):
        return f"{parent}[{step}]"
    if _PLAIN_KEY.match(step):
        return f"{parent}.{step}"
    quoted = step.replace("\\", "\\\\").replace("'", "\\'")
    return f"{parent}['{quoted}']"


def _keyed_paths(body: object) -> Iterator[tuple[str, str, str]]:
    """(concrete path, its shape with every index as [*], last key) of each object member,
    breadth first (so shorter paths come first), bounded by MAX_DEPTH and MAX_NODES."""
    queue: deque[tuple[object, str, str, int]] = deque([(body, "$", "$", 0)])
    seen = 0
    while queue and seen < MAX_NODES:
        node, path, shape, depth = queue.popleft()
        seen += 1
        if depth >= MAX_DEPTH:
            continue
        if isinstance(node, dict):
            for key, value in node.items():
                key = str(key)
                concrete, general = child_path(path, key), child_path(shape, key)
                yield concrete, general, key
                queue.append((value, concrete, general, depth + 1))
        elif isinstance(node, list):
            for index, value in enumerate(node):
                queue.append((value, child_path(path, index), f"{shape}[*]", depth + 1))


def key_words(key: str) -> set[str]:
    """The words of a key, case-folded (`petId` → {pet, id}); a key with no word boundary is
    its one word (`petid`)."""
    return {word.casefold() for word in _WORDS.findall(key)} or {key.casefold()}


def _shares_a_word(wanted: str, key: str) -> bool:
    """`key` is one of `wanted`'s words or `wanted` one of its (`id` in `petId`, `petid` or
    `pet_id`; `petId` for `id`); a word must have two characters to count."""
    folded_wanted, folded_key = wanted.casefold(), key.casefold()
    if len(folded_key) >= 2 and (folded_key in key_words(wanted) or folded_wanted.endswith(folded_key)):
        return True
    if len(folded_wanted) >= 2 and (folded_wanted in key_words(key) or folded_key.endswith(folded_wanted)):
        return True
    words = {w for w in key_words(wanted) if len(w) >= 2}
    return bool(words & key_words(key))


def closest_paths(path: str, body: object) -> list[str]:
    """Up to MAX_SUGGESTIONS concrete paths in `body`, at any depth, whose last key equals the
    last key of `path`, then ones whose last key resembles it (by spelling, or sharing a word of
    its name: `$.id` for `$.petid`); shortest first, one per shape (of a list of objects, the
    first item's), never `path` itself."""
    wanted = last_key(path)
    if wanted is None:
        return []
    equal: list[str] = []
    similar: list[tuple[float, str]] = []
    related: list[str] = []
    shapes: set[str] = set()
    folded = wanted.casefold()
    for concrete, shape, key in _keyed_paths(body):
        if shape in shapes or concrete == path:
            continue
        if key == wanted:
            shapes.add(shape)
            equal.append(concrete)
            continue
        ratio = difflib.SequenceMatcher(None, folded, key.casefold()).ratio()
        if ratio >= _RESEMBLES:
            shapes.add(shape)
            similar.append((ratio, concrete))
        elif _shares_a_word(wanted, key):
            shapes.add(shape)
            related.append(concrete)
    equal.sort(key=len)
    similar.sort(key=lambda pair: (len(pair[1]), -pair[0]))
    if equal or similar:  # a word in common is a hint only when nothing is closer
        related = []
    related.sort(key=len)
    return (equal + [concrete for _, concrete in similar] + related)[:MAX_SUGGESTIONS]


def top_level_keys(body: object) -> list[str] | None:
    """The keys of a body object small enough to name whole (at most MAX_TOP_KEYS), else None."""
    if isinstance(body, dict) and 0 < len(body) <= MAX_TOP_KEYS:
        return [_key_text(str(key)) for key in body]
    return None


def _key_text(key: str) -> str:
    """A key as a path writes it after `$.` (`id`, `['a b']`), cut when long."""
    if len(key) > 40:
        key = key[:39] + "…"
    return key if _PLAIN_KEY.match(key) else child_path("$", key)[1:]


def matched_nothing(path: str, body: object) -> str:
    """The words after a path that matched nothing: where, the closest paths that exist, and
    the body's keys when it is a small object (`top-level keys: id, name`)."""
    suggestions = closest_paths(path, body)
    has = f"; the body has {', '.join(suggestions)}" if suggestions else ""
    first = _FIRST_KEY.match(path.strip())
    went_wrong_at_the_top = (
        not isinstance(body, dict) or first is None or (first.group(1) or first.group(2)) not in body
    )
    keys = top_level_keys(body) if went_wrong_at_the_top else None
    if keys is not None:
        has += f"; its top-level keys: {', '.join(keys)}"
    elif isinstance(body, list) and first is not None:
        has += f"; the body is a list of {len(body)}"
    return f"matched nothing in the response body{has}"


def path_matches(compiled: CompiledPath, body: object) -> list[tuple[str, object]]:
    """Each match of a compiled path (compile_json_path) in `body`: (concrete path, value)."""
    return [(_concrete(match.full_path), match.value) for match in compiled.find(body)]


def _concrete(full_path: object) -> str:
    """jsonpath-ng's full path of a match (Child / Fields / Index nodes) written as a scenario path."""
    steps: list[str | int] = []
    if isinstance(full_path, DottedPath):
        steps.extend(full_path.steps)
    else:
        _flatten(full_path, steps)
    written = "$"
    for step in steps:
        written = child_path(written, step)
    return written


def _flatten(node: object, steps: list[str | int]) -> None:
    left, right = getattr(node, "left", None), getattr(node, "right", None)
    if left is not None and right is not None:
        _flatten(left, steps)
        _flatten(right, steps)
    elif hasattr(node, "fields"):
        steps.extend(str(field) for field in node.fields)
    elif hasattr(node, "indices"):  # jsonpath-ng 1.7; older versions name it `index`
        steps.extend(int(index) for index in node.indices)
    elif hasattr(node, "index"):
        steps.append(int(node.index))
