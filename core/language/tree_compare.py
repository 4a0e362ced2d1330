"""Whether two syntax trees say the same thing wherever they were written: every node's fields
compared, its place in the file (a `SourceLocation`, an outline's line) left out. `fmt` and
import check their output with it: a layout change never changes the tree.

Iterative, so a JSON value nested as deep as a body may be compares without recursion."""

from __future__ import annotations

from scenario_core.language.nodes.base import SourceLocation
from scenario_core.support.records import fields

# Fields that hold where something was written rather than what it says.
_PLACE_FIELDS = frozenset(("location", "outline_line"))
_ATOMS = (str, int, float, bool, bytes, type(None))


def _children(value: object) -> tuple[str, list[object]] | None:
    """A value's kind and its parts to compare, or None for an atom (compared as itself)."""
    if isinstance(value, _ATOMS):
        return None
    if isinstance(value, (tuple, list)):
        return type(value).__name__ + str(len(value)), list(value)
    if isinstance(value, dict):
        keys = list(value)
        return "dict" + repr(keys), [value[key] for key in keys]
    if isinstance(value, (set, frozenset)):
        return type(value).__name__ + str(len(value)), sorted(value, key=repr)
    try:
        record = fields(value)
    except TypeError:
        return None
    names = [field.name for field in record if field.name not in _PLACE_FIELDS]
    return type(value).__qualname__ + repr(names), [getattr(value, name) for name in names]


def tree_difference(first: object, second: object) -> str | None:
    """None when the two trees are the same apart from where things were written; else the first
    difference found, as a short path (`items[0].steps[2]`) and the two values' kinds."""
    stack: list[tuple[object, object, str]] = [(first, second, "")]
    while stack:
        a, b, path = stack.pop()
        if isinstance(a, SourceLocation) and isinstance(b, SourceLocation):
            continue
        parts_a, parts_b = _children(a), _children(b)
        if parts_a is None or parts_b is None:
            if parts_a is not None or parts_b is not None or type(a) is not type(b) or a != b:
                return f"{path or 'tree'}: {_short(a)} != {_short(b)}"
            continue
        if parts_a[0] != parts_b[0]:
            return f"{path or 'tree'}: {parts_a[0][:60]} != {parts_b[0][:60]}"
        for index in range(len(parts_a[1]) - 1, -1, -1):
            stack.append((parts_a[1][index], parts_b[1][index], f"{path}[{index}]"))
    return None


def same_tree(first: object, second: object) -> bool:
    """Whether two syntax trees say the same thing (tree_difference finds nothing)."""
    return tree_difference(first, second) is None


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
