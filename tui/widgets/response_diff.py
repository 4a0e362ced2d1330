"""`d`: what a response answers differently from the same step's earlier response (of the
previous run in this session, or of a loaded JSON report). The comparison is `run --compare`'s
(scenario_core.report.compare): a JSON body by path -- every path added, removed or changed, at
any depth (`$.pet.tags[1]`) -- any other body (text, XML) by its changed lines. This draws it in
the value viewer, masked as everywhere on screen (`v` reveals them)."""

from __future__ import annotations

import json
from typing import NamedTuple

from rich.text import Text

from scenario_core.report.compare import ADDED, CHANGED, LINES, MORE, NOTE, REMOVED, Change, diff_json
from scenario_core.report.compare import diff_lines as diff_text
from scenario_core.support.printable import visible
from scenario_tui.widgets.display import Display
from scenario_tui.widgets.theme_styles import ERROR, SUCCESS, WARNING

MISSING = object()


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
        return diff_json(old_json, new_json)
    return diff_text(old.decode("utf-8", "replace"), new.decode("utf-8", "replace"))


def _json(content: bytes, content_type: str) -> object:
    if "json" not in content_type.lower() and content[:1].strip() not in (b"{", b"["):
        return MISSING
    try:
        return json.loads(content)
    except ValueError:
        return MISSING


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
    if any(counts.values()):
        lines.append(Text(", ".join(f"{n} {kind}" for kind, n in counts.items() if n), style="bold"))
    for change in changes:
        lines.extend(_change_lines(change, display))
    return lines


def _change_lines(change: Change, display: Display) -> list[Text]:
    if change.kind == LINES:  # a text body: its changed lines from `path` (`line 3`) on
        drawn = [Text(f"body from {change.path}:", style="bold")]
        for line in change.lines:
            drawn.append(Text("  " + display.line(line), style=SUCCESS if line.startswith("+") else ERROR))
        return drawn
    if change.kind == MORE:
        return [Text(f"… and {change.new:,} more", style="dim")]
    if change.kind == NOTE:
        return [Text(f"({change.new})", style="dim")]
    name = (change.path or "").rsplit(".", 1)[-1].split("[", 1)[0]  # a secret's key masks its value

    def shown(value: object) -> str:
        text = display.variable(name, value)
        return text if len(text) <= 200 else text[:199] + "…"

    text = Text()
    if change.kind == ADDED:
        text.append("+ ", SUCCESS)
        text.append(visible(change.path or ""), "bold")
        text.append("  " + shown(change.new), SUCCESS)
    elif change.kind == REMOVED:
        text.append("- ", ERROR)
        text.append(visible(change.path or ""), "bold")
        text.append("  " + shown(change.old), ERROR)
    else:
        text.append("~ ", WARNING)
        text.append(visible(change.path or ""), "bold")
        text.append("  " + shown(change.old), ERROR)
        text.append(" → ")
        text.append(shown(change.new), SUCCESS)
    return [text]
