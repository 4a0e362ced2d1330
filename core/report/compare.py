"""What changed in a response since an earlier run (docs/formats.md#changes-since-an-earlier-report):
a step of this run is matched with the same step of an earlier JSON report, and their responses
are compared — the status, each JSON path added, removed or changed, a text body line by line.

The match is by what a step is, not where it stands: the same file (its path as the report
writes it), feature, scenario (an outline's scenario by its outline and examples row, since the
row's name carries its cells) and the same n-th request of that scenario. Edits elsewhere in the
file and reformatting move lines, never this key.

Both sides are masked before they meet: the earlier report was written masked, and this run's
response is rendered by the report's own `json_response`, so a change shows masked values only.
Everything is bounded: the walk of a JSON body, the number of changes kept, and the lines a line
diff looks at, so a comparison never costs more than a glance.
"""

from __future__ import annotations

import difflib
import json
import os
from typing import Final, Iterable, Literal, Mapping

from scenario_core.report.json_report import json_response
from scenario_core.report.masking import Masker
from scenario_core.report.records import Exchange, ScenarioRecord, StepRecord
from scenario_core.run.body_paths import child_path
from scenario_core.support.input_files import InputFileError, read_regular_file
from scenario_core.support.json_types import JsonObject, JsonValue
from scenario_core.support.records import dataclass

MAX_REPORT_BYTES = 512 * 1024 * 1024  # an earlier report larger than this is refused unread
MAX_CHANGES = 40  # kept per step; the rest are counted
MAX_NODES = 50_000  # JSON nodes walked per step
MAX_DIFF_LINES = 2_000  # lines per side a line diff compares, after the common head and tail
MAX_VALUE = 60  # characters of a value shown in a change
MAX_LINE = 120  # characters of a body line shown in a line diff

# Change kinds: a Literal, so mypy checks every comparison with one.
ChangeKind = Literal["status", "added", "removed", "changed", "lines", "body", "more", "unmatched", "note"]
STATUS: Final = "status"  # old/new: the status, None for no response
ADDED: Final = "added"  # path, new: a masked JSON value
REMOVED: Final = "removed"  # path, old
CHANGED: Final = "changed"  # path, old/new
LINES: Final = "lines"  # a text body's line diff: lines, each "-…" or "+…"
BODY: Final = "body"  # the body changed kind: old/new are "JSON", "text" or "nothing"
MORE: Final = "more"  # new: how many more changes were found than kept
UNMATCHED: Final = "unmatched"  # the earlier report has no such step
NOTE: Final = "note"  # new: a sentence (what the comparison could not see)


@dataclass(frozen=True, slots=True)
class Change:
    kind: ChangeKind
    path: str | None = None
    old: object = None  # values as the responses hold them: masked JSON values, a count, a sentence
    new: object = None
    lines: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        """As the JSON report's `changes` holds it: `kind`, then only the fields it has."""
        shown: dict[str, object] = {"kind": self.kind}
        if self.path is not None:
            shown["path"] = self.path
        if self.kind in (STATUS, CHANGED, BODY, REMOVED):
            shown["old"] = self.old
        if self.kind in (STATUS, CHANGED, BODY, ADDED, MORE, NOTE):
            shown["new"] = self.new
        if self.lines:
            shown["lines"] = list(self.lines)
        return shown


@dataclass(frozen=True, slots=True)
class StepKey:
    """What makes a step the same step in two runs."""

    path: str
    feature: str | None
    scenario: tuple[str, ...]  # ("scenario", name) or ("outline", outline name, row)
    request: int  # the n-th request of the scenario, from 0


class CompareError(Exception):
    """Why an earlier report can't be compared with, as one line that names it."""


def scenario_identity(name: str, outline: str | None, row: int | None) -> tuple[str, ...]:
    if outline is not None and row is not None:
        return ("outline", outline, str(row))
    return ("scenario", name)


def sent_request(step: StepRecord) -> bool:
    return step.exchange is not None


def step_key(scenario: ScenarioRecord, step: StepRecord) -> StepKey | None:
    """The key of `step` of `scenario` (this run's records), None when it sent no request. A step
    not (yet) in `scenario.steps` counts as its next one."""
    if not sent_request(step):
        return None
    earlier = 0
    for other in scenario.steps:
        if other is step:
            break
        earlier += sent_request(other)
    identity = scenario_identity(scenario.name, scenario.outline, scenario.row)
    return StepKey(scenario.path, scenario.feature, identity, earlier)


class Comparer:
    """The responses of an earlier JSON report, by step key; `changes` compares one step of this
    run with its match."""

    def __init__(self, report: JsonValue, source: str = "the earlier report"):
        self.source = source
        self._responses: dict[StepKey, JsonObject | None] = {}
        files = report.get("files") if isinstance(report, Mapping) else None
        if not isinstance(files, list):
            raise CompareError(f"{source}: not a JSON report of `run --report-json` (no files list)")
        for file in files:
            if isinstance(file, Mapping) and isinstance(scenarios := file.get("scenarios"), list):
                self._index(str(file.get("path")), scenarios)

    def _index(self, path: str, scenarios: list[JsonValue]) -> None:
        for scenario in scenarios:
            if not isinstance(scenario, Mapping) or not isinstance(steps := scenario.get("steps"), list):
                continue
            row, outline, feature = scenario.get("row"), scenario.get("outline"), scenario.get("feature")
            identity = scenario_identity(
                str(scenario.get("name")),
                outline if isinstance(outline, str) else None,
                row if isinstance(row, int) else None,
            )
            feature = feature if isinstance(feature, str) else None
            requests = (s for s in steps if isinstance(s, Mapping) and "request" in s)
            for n, step in enumerate(requests):
                key = StepKey(path, feature, identity, n)
                if key not in self._responses:  # two scenarios of one name: the first is the match
                    response = step.get("response")
                    self._responses[key] = dict(response) if isinstance(response, Mapping) else None

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Comparer:
        """The report at `path`; CompareError (one line naming the file) when it can't be read or
        is no JSON report."""
        shown = os.fspath(path)
        try:
            data = read_regular_file(path, MAX_REPORT_BYTES)
        except InputFileError as error:
            raise CompareError(f"{shown}: {error}") from None
        try:
            report = json.loads(data.decode("utf-8", "replace"))
        except (ValueError, RecursionError) as error:
            raise CompareError(f"{shown}: not valid JSON ({str(error).splitlines()[0]})") from None
        return cls(report, shown)

    def __len__(self) -> int:
        return len(self._responses)

    def earlier(self, key: StepKey) -> tuple[bool, JsonObject | None]:
        """(whether the earlier report has this step, its response or None when none came)."""
        return key in self._responses, self._responses.get(key)

    def changes(self, scenario: ScenarioRecord, step: StepRecord, masker: Masker | None = None) -> list[Change]:
        """What changed in `step`'s response since the same step of the earlier report ([] when
        nothing did, or when the step sent no request). `masker`: the run's, as the reports use."""
        key = step_key(scenario, step)
        if key is None or step.exchange is None:
            return []
        found, old = self.earlier(key)
        if not found:
            return [Change(UNMATCHED)]
        return diff_responses(old, json_response(step.exchange, masker or Masker(enabled=False)))


# ---------------------------------------------------------------- the comparison


def diff_responses(old: Mapping[str, object] | None, new: Mapping[str, object] | None) -> list[Change]:
    """The changes from `old` to `new`, two responses as the JSON report writes them (None: no
    response came): the status, then the body's."""
    old_status = old.get("status") if old is not None else None
    new_status = new.get("status") if new is not None else None
    changes: list[Change] = []
    if old_status != new_status:
        changes.append(Change(STATUS, old=old_status, new=new_status))
    if old is None or new is None:
        return changes
    before, after = _body(old), _body(new)
    if (old.get("body_cut") or new.get("body_cut")) and before != after:
        changes.append(Change(NOTE, new="a body was cut at 64 KiB: only its head is compared"))
    if isinstance(before, str) and isinstance(after, str):
        changes.extend(diff_lines(before, after))
    elif _kind(before) != _kind(after):
        changes.append(Change(BODY, old=_kind(before), new=_kind(after)))
    elif before is not None:
        changes.extend(diff_json(before, after))
    return changes


def diff_exchanges(old: Exchange | None, new: Exchange | None, masker: Masker | None = None) -> list[Change]:
    """diff_responses for two exchanges of this session (the TUI's history): each response
    rendered, masked, as the JSON report writes it (None, or no status: no response came)."""
    masker = masker or Masker(enabled=False)
    return diff_responses(
        json_response(old, masker) if old is not None else None,
        json_response(new, masker) if new is not None else None,
    )


def _body(response: Mapping[str, object]) -> object:
    """The body as a JSON value, or text; a report of before `response` bodies were JSON values
    wrote a JSON body as text: read back when whole."""
    body = response.get("body")
    if isinstance(body, str) and not response.get("body_cut") and body.lstrip()[:1] in ("{", "["):
        try:
            return json.loads(body)
        except (ValueError, RecursionError):
            return body
    return body


def _kind(body: object) -> str:
    return "nothing" if body is None or body == "" else "text" if isinstance(body, str) else "JSON"


def _same(a: object, b: object) -> bool:
    """JSON equality: `1` is not `true`, `1` equals `1.0`."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def diff_json(old: object, new: object) -> list[Change]:
    """Each path added, removed or changed from `old` to `new`, in document order; at most
    MAX_CHANGES (then one MORE), walking at most MAX_NODES nodes (then one NOTE)."""
    found: list[Change] = []
    extra = 0
    walked = 0
    # Each entry: a pair to compare at a path, or a change already known (None, None, change).
    stack: list[tuple[object, object, str | Change]] = [(old, new, "$")]
    while stack:
        a, b, path = stack.pop()
        if isinstance(path, Change):
            if len(found) < MAX_CHANGES:
                found.append(path)
            else:
                extra += 1
            continue
        walked += 1
        if walked > MAX_NODES:
            found.append(Change(NOTE, new=f"compared the first {MAX_NODES:,} values of the body only"))
            break
        pending: list[tuple[object, object, str | Change]] = []
        if isinstance(a, dict) and isinstance(b, dict):
            for key, value in a.items():
                where = child_path(path, str(key))
                pending.append((value, b[key], where) if key in b else (None, None, Change(REMOVED, where, old=value)))
            pending.extend(
                (None, None, Change(ADDED, child_path(path, str(k)), new=v)) for k, v in b.items() if k not in a
            )
        elif isinstance(a, list) and isinstance(b, list):
            pending.extend((x, y, child_path(path, i)) for i, (x, y) in enumerate(zip(a, b)))
            pending.extend((None, None, Change(REMOVED, child_path(path, i), old=a[i])) for i in range(len(b), len(a)))
            pending.extend((None, None, Change(ADDED, child_path(path, i), new=b[i])) for i in range(len(a), len(b)))
        elif not _same(a, b):
            pending.append((None, None, Change(CHANGED, path, old=a, new=b)))
        stack.extend(reversed(pending))
    if extra:
        found.append(Change(MORE, new=extra))
    return found


def diff_lines(old: str, new: str) -> list[Change]:
    """A text (or XML, HTML) body's changed lines, `-` old and `+` new; [] when equal. The lines
    both share at the head and the tail are set aside first, and at most MAX_DIFF_LINES per side
    of the rest go through difflib."""
    if old == new:
        return []
    a, b = old.splitlines(), new.splitlines()
    head = 0
    while head < len(a) and head < len(b) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < len(a) - head and tail < len(b) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    a, b = a[head : len(a) - tail], b[head : len(b) - tail]
    note: list[Change] = []
    if len(a) > MAX_DIFF_LINES or len(b) > MAX_DIFF_LINES:
        a, b = a[:MAX_DIFF_LINES], b[:MAX_DIFF_LINES]
        note = [Change(NOTE, new=f"compared the first {MAX_DIFF_LINES:,} changed lines only")]
    lines: list[str] = []
    extra = 0
    matcher = difflib.SequenceMatcher(None, a, b)  # autojunk: popular lines do not make it quadratic
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        for line in [f"-{x}" for x in a[i1:i2]] + [f"+{y}" for y in b[j1:j2]]:
            if len(lines) < MAX_CHANGES:
                lines.append(_cut(line, MAX_LINE))
            else:
                extra += 1
    if not lines:  # only line ends differ
        lines = ["-" + _cut(repr(old[-20:]), MAX_LINE), "+" + _cut(repr(new[-20:]), MAX_LINE)]
    changes = [Change(LINES, path=f"line {head + 1}", lines=tuple(lines))]
    if extra:
        changes.append(Change(MORE, new=extra))
    return changes + note


# ---------------------------------------------------------------- the lines `run` prints


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def value_text(value: object) -> str:
    """A masked JSON value in one short line."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = str(value)
    return _cut(" ".join(text.split()) if "\n" in text else text, MAX_VALUE)


def _status_text(status: object) -> str:
    return "no response" if status is None else str(status)


def format_changes(changes: Iterable[Change]) -> list[str]:
    """The lines `run --compare` prints after a step, one per change (a line diff: one per line,
    indented); [] when nothing changed. Values are as the changes hold them: masked."""
    lines: list[str] = []
    for change in changes:
        kind = change.kind
        if kind == STATUS:
            lines.append(f"status {_status_text(change.old)} → {_status_text(change.new)}")
        elif kind == ADDED:
            lines.append(f"+ {change.path}: {value_text(change.new)}")
        elif kind == REMOVED:
            lines.append(f"- {change.path}: {value_text(change.old)}")
        elif kind == CHANGED:
            lines.append(f"~ {change.path}: {value_text(change.old)} → {value_text(change.new)}")
        elif kind == LINES:
            lines.append(f"body from {change.path}:")
            lines.extend(f"  {line}" for line in change.lines)
        elif kind == BODY:
            lines.append(f"body: {change.old} → {change.new}")
        elif kind == MORE:
            lines.append(f"… and {change.new} more")
        elif kind == UNMATCHED:
            lines.append("not in the earlier report: nothing to compare with")
        elif kind == NOTE:
            lines.append(f"({change.new})")
    return lines
