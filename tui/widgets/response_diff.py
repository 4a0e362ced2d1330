"""`d`: what a response answers differently from the same step's earlier response (of the
previous run in this session, or of a loaded JSON report). A JSON body is compared by path —
every path added, removed or changed, at any depth (`$.pet.tags[1]`); any other body (text, XML)
line by line. Values are masked as everywhere on screen (`v` reveals them).

`body_changes` takes the two bodies as they came (bytes and content type) and returns the
changes; the view draws them in the value viewer. (The same comparison is to be shared with
`run --compare`, in core; this one is the TUI's until then.)"""

from __future__ import annotations

import difflib
import json
from typing import Any, NamedTuple

from rich.text import Text

from scenario_core.support.printable import visible
from scenario_tui.widgets.display import Display
from scenario_tui.widgets.theme_styles import ERROR, SUCCESS, WARNING

ADDED, REMOVED, CHANGED = "added", "removed", "changed"
MAX_CHANGES = 500  # a whole new body would list every path: the rest is counted, not drawn
MISSING = object()


class Change(NamedTuple):
    """One difference: a JSON path (`$.name`) or a line (`line 3`), and the values (MISSING: none)."""

    kind: str  # ADDED, REMOVED, CHANGED
    path: str
    old: Any = MISSING
    new: Any = MISSING


class Body(NamedTuple):
    """A response as compared: status, body as it came, its content type, the request it answered."""

    status: int
    content: bytes
    content_type: str
    request: str = ""  # `GET /pets/1`


def body_changes(old: bytes, old_type: str, new: bytes, new_type: str) -> list[Change]:
    """The changes from `old` to `new`: by JSON path when both are JSON, else by line."""
    old_json, new_json = _json(old, old_type), _json(new, new_type)
    if old_json is not MISSING and new_json is not MISSING:
        changes: list[Change] = []
        _walk("$", old_json, new_json, changes)
        return changes
    return _lines(old.decode("utf-8", "replace"), new.decode("utf-8", "replace"))


def _json(content: bytes, content_type: str) -> Any:
    if "json" not in content_type.lower() and content[:1].strip() not in (b"{", b"["):
        return MISSING
    try:
        return json.loads(content)
    except ValueError:
        return MISSING


def _walk(path: str, old: Any, new: Any, changes: list[Change]) -> None:
    if isinstance(old, dict) and isinstance(new, dict):
        for key in old:
            child = _key_path(path, key)
            if key not in new:
                changes.append(Change(REMOVED, child, old[key]))
            else:
                _walk(child, old[key], new[key], changes)
        changes.extend(Change(ADDED, _key_path(path, key), new=new[key]) for key in new if key not in old)
    elif isinstance(old, list) and isinstance(new, list):
        for index in range(max(len(old), len(new))):
            child = f"{path}[{index}]"
            if index >= len(new):
                changes.append(Change(REMOVED, child, old[index]))
            elif index >= len(old):
                changes.append(Change(ADDED, child, new=new[index]))
            else:
                _walk(child, old[index], new[index], changes)
    elif old != new or type(old) is not type(new):  # 1 and 1.0, 1 and true: not the same answer
        changes.append(Change(CHANGED, path, old, new))


def _key_path(path: str, key: str) -> str:
    return f"{path}.{key}" if key.isidentifier() else f"{path}[{json.dumps(key, ensure_ascii=False)}]"


def _lines(old: str, new: str) -> list[Change]:
    changes: list[Change] = []
    matcher = difflib.SequenceMatcher(None, old.splitlines(), new.splitlines(), autojunk=False)
    before, after = old.splitlines(), new.splitlines()
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("delete", "replace"):
            changes.extend(Change(REMOVED, f"line {i + 1}", before[i]) for i in range(i1, i2))
        if tag in ("insert", "replace"):
            changes.extend(Change(ADDED, f"line {j + 1}", new=after[j]) for j in range(j1, j2))
    return changes


def diff_lines(old: Body, new: Body, against: str, display: Display) -> list[Text]:
    """The changes as the viewer shows them: the status, the requests when they differ, a count,
    then one line per change (`+ $.tag "dog"`, `- $.name "Rex"`, `~ $.age 3 → 4`), masked."""
    lines: list[Text] = [Text(f"against {against}", style="dim")]
    status = Text("status ")
    if old.status == new.status:
        status.append(f"{new.status}", "bold")
        status.append("  (the same)", "dim")
    else:
        status.append(f"{old.status}", ERROR)
        status.append(" → ")
        status.append(f"{new.status}", SUCCESS)
    lines.append(status)
    if old.request and new.request and old.request != new.request:
        lines.append(Text(display.line(f"request then: {old.request}  now: {new.request}"), style="dim"))
    changes = body_changes(old.content, old.content_type, new.content, new.content_type)
    if not changes:
        lines.append(Text("the body is the same", style=SUCCESS))
        return lines
    counts = {kind: sum(1 for c in changes if c.kind == kind) for kind in (ADDED, REMOVED, CHANGED)}
    lines.append(Text(", ".join(f"{n} {kind}" for kind, n in counts.items() if n), style="bold"))
    for change in changes[:MAX_CHANGES]:
        lines.append(_change_line(change, display))
    if len(changes) > MAX_CHANGES:
        lines.append(Text(f"… and {len(changes) - MAX_CHANGES:,} more", style="dim"))
    return lines


def _change_line(change: Change, display: Display) -> Text:
    name = change.path.rsplit(".", 1)[-1].split("[", 1)[0]  # a secret's key masks its value
    line_diff = change.path.startswith("line ")

    def shown(value: Any) -> str:
        text = display.line(value) if line_diff else display.variable(name, value)
        return text if len(text) <= 200 else text[:199] + "…"

    text = Text()
    if change.kind == ADDED:
        text.append("+ ", SUCCESS)
        text.append(visible(change.path), "bold")
        text.append("  " + shown(change.new), SUCCESS)
    elif change.kind == REMOVED:
        text.append("- ", ERROR)
        text.append(visible(change.path), "bold")
        text.append("  " + shown(change.old), ERROR)
    else:
        text.append("~ ", WARNING)
        text.append(visible(change.path), "bold")
        text.append("  " + shown(change.old), ERROR)
        text.append(" → ")
        text.append(shown(change.new), SUCCESS)
    return text
