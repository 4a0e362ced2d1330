"""A tree node's own text: kind icon, name, tags, line; plain for every node, styled when drawn."""

from __future__ import annotations

from rich.text import Text

from scenario_core.support.printable import visible
from scenario_tui.widgets.theme_styles import ERROR_BOLD
from scenario_tui.widgets.tree_items import KIND_ICONS, TreeItem


def plain_label(item: TreeItem, shapes: dict[int, str]) -> str:
    """The node's own text as a plain string: cheap, for every node (and its width)."""
    node = item.node
    if item.kind == "step":
        text = f"{node.keyword} {node.text}"
        shape = shapes.get(id(node))
        if shape is not None:
            text += f" → {shape}"
    else:
        text = f"{KIND_ICONS[item.kind]} "
        if item.kind in ("feature", "scenario", "fragment"):
            text += f"{item.kind} "
        text += item.label
        tags = getattr(node, "tags", None)
        if tags:
            text += " " + " ".join(f"@{t}" for t in sorted(tags))
    broken = item.broken
    if broken is not None:
        text += f" — {_errors(broken.count)}"
    if item.kind != "file":
        text += f"  :{node.location.line}"
    return visible(text)


def styled_label(item: TreeItem, shapes: dict[int, str]) -> Text:
    """The node's own text, styled; built when the node is first drawn and kept on the item."""
    if item.styled is not None:
        return item.styled
    label = Text(no_wrap=True, overflow="ellipsis")
    node = item.node
    if item.kind == "step":
        label.append(node.keyword, "bold")
        label.append(" ")
        label.append(visible(node.text))  # file text: shown, never obeyed
        shape = shapes.get(id(node))
        if shape is not None:  # an operation call: the method and path its description gives
            label.append(visible(f" → {shape}"), "dim")
    else:
        icon = KIND_ICONS[item.kind]
        label.append(f"{icon} ", "bold")
        if item.kind in ("feature", "scenario", "fragment"):
            label.append(f"{item.kind} ", "dim")
        label.append(visible(item.label), "bold" if item.kind in ("file", "feature", "scenario") else "")
        tags = getattr(node, "tags", None)
        if tags:
            label.append(" " + visible(" ".join(f"@{t}" for t in sorted(tags))), "dim italic")
    broken = item.broken
    if broken is not None:  # a suite's file that cannot run: the inspector lists its errors
        label.append(f" — {_errors(broken.count)}", ERROR_BOLD)
    if item.kind != "file":
        label.append(f"  :{node.location.line}", "dim")
    item.styled = label
    return label


def _errors(count: int) -> str:
    return f"{count} error{'' if count == 1 else 's'}"


def fit_label(label: Text, width: int, line: int | None) -> Text:
    """`label` in `width` cells: a label too long ends with `…` before its `  :LINE`, which is
    kept whole (a cut `:6` for line 61 would read as a real line number)."""
    if label.cell_len <= width:
        return label
    suffix = f"  :{line}" if line is not None else ""
    if not suffix or not label.plain.endswith(suffix) or width < len(suffix) + 2:
        cut = label.copy()
        cut.truncate(max(width, 1), overflow="ellipsis")
        return cut
    head = label[: len(label.plain) - len(suffix)]
    head.truncate(width - len(suffix), overflow="ellipsis")
    head.append_text(label[len(label.plain) - len(suffix) :])
    return head
