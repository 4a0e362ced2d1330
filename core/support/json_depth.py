"""How deep a JSON value may nest where it is shown, written or walked: json.dumps and every
recursive walk die with RecursionError near 1000 levels, and a response can nest 100,000.
One limit and one marker, so the reports, the terminal and the TUI cut a value alike."""

from __future__ import annotations

from typing import Any

MAX_DEPTH = 200


def cut_marker(depth: int) -> str:
    return f"… (nested deeper than {depth} levels; cut here)"


def cut_depth(value: object, limit: int = MAX_DEPTH) -> object:
    """A copy of a JSON-like value whose lists/dicts nested deeper than `limit` are replaced by a
    marker string. Iterative: safe at any depth. Values within the limit are returned as is."""
    if not isinstance(value, (list, tuple, dict)) or _depth_within(value, limit):
        return value
    root: list[object] = [None]
    # (value, parent: a list or dict, its index or key there, depth)
    stack: list[tuple[object, Any, object, int]] = [(value, root, 0, 1)]
    while stack:
        item, parent, key, depth = stack.pop()
        if isinstance(item, dict):
            if depth > limit:
                parent[key] = cut_marker(limit)
                continue
            copy: dict[object, object] | list[object] = {}
            for k, v in item.items():
                copy[k] = None
                stack.append((v, copy, k, depth + 1))
            parent[key] = copy
        elif isinstance(item, (list, tuple)):
            if depth > limit:
                parent[key] = cut_marker(limit)
                continue
            copy = [None] * len(item)
            for i, v in enumerate(item):
                stack.append((v, copy, i, depth + 1))
            parent[key] = copy
        else:
            parent[key] = item
    return root[0]


def _depth_within(value: list[object] | tuple[object, ...] | dict[object, object], limit: int) -> bool:
    """True when no container in `value` is nested deeper than `limit` (iterative)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        for child in children:
            if isinstance(child, (list, tuple, dict)):
                if depth + 1 > limit:
                    return False
                stack.append((child, depth + 1))
    return True
