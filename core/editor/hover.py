"""Hover and go to definition: effective parameters with provenance on a declaration, where a
`{{NAME}}` comes from (or why it is not visible there), a fragment's steps on its include."""

from __future__ import annotations

import os
import re
from typing import Iterator, Sequence

from scenario_core.analysis.model import Reference
from scenario_core.editor.document import (
    Document,
    HoverText,
    Position,
    Span,
    Target,
    _blank,
    _fragment,
    _header_line,
    _include_at,
    _indent,
    _innermost,
    _reference_at,
    _relative,
    _same_file,
    span_of,
)
from scenario_core.language import parameter_keys as params
from scenario_core.language.comments import strip_comment
from scenario_core.language.errors import ScenarioError
from scenario_core.language.nodes.base import SourceLocation
from scenario_core.language.nodes.blocks import FeatureNode, FragmentNode, ScenarioNode
from scenario_core.language.nodes.steps import ConditionalStep, DescribedStep, ExtractStep, Step, step_label
from scenario_core.language.nodes.walk import walk_steps
from scenario_core.parameters.resolution import DEFAULT, EffectiveParameters, EffectiveValue, resolve_parameters
from scenario_core.parameters.sharing import store_for
from scenario_core.support.records import dataclass

# ---------------------------------------------------------------- parameters


def _parameters_of(
    document: Document, feature: FeatureNode | None, scenario: ScenarioNode | None
) -> EffectiveParameters | None:
    if document.tree is None:  # nothing parsed yet: nothing resolves (callers check first)
        return None
    try:
        return resolve_parameters(
            document.tree,
            feature,
            document.overrides,
            scenario if scenario is not None and scenario.parameters else None,
        )
    except ScenarioError as error:  # an unset $VAR: show what does resolve
        return getattr(error, "partial", None)
    except Exception:  # an unreadable OpenAPI description and the like: reported as a diagnostic
        return None


def _value_text(value: object) -> str:
    if value is None:
        return "(none)"
    from scenario_core.parameters.resolution import parameter_text

    return parameter_text(value) if value != () else "(none)"


def _provenance(effective: EffectiveValue, parameters: EffectiveParameters) -> str:
    from scenario_core.parameters.params_report import shown_value

    where = effective.winner.describe()
    lower = [
        f"{s.short()} {_value_text(shown_value(parameters, effective.key, s.value))}" for s in effective.overridden
    ]
    return " · ".join([where] + lower)


def parameters_markdown(title: str, parameters: EffectiveParameters) -> str:
    """The effective parameters as a hover shows them: every value some level sets, with its
    provenance, then how many keys are at their defaults."""
    from scenario_core.parameters.params_report import shown_value

    store = store_for(parameters)
    rows = [
        f"**{_md(title)}** — {store.describe() if store else 'isolated'}",
        "",
        "| parameter | value | from |",
        "|---|---|---|",
    ]
    defaults = 0
    for key, effective in parameters.items():
        if effective.source == DEFAULT and key not in (params.SHARE, params.TIMEOUT, params.BASE_URL):
            defaults += 1
            continue
        shown = _value_text(shown_value(parameters, key, effective.value))
        rows.append(f"| `{key}` | `{_cell(shown)}` | {_cell(_provenance(effective, parameters))} |")
    if defaults:
        rows += [
            "",
            f"{defaults} other parameter{'s' if defaults != 1 else ''} at {'their' if defaults != 1 else 'its'} default",
        ]
    return "\n".join(rows)


def _md(text: str) -> str:
    return re.sub(r"([\\`*_\[\]<>|])", r"\\\1", text)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _spec_markdown(key: str) -> str:
    spec = params.spec_for(key)
    if spec is None:
        return f"`{key}`: a user parameter, read as `{{{{param.{key}}}}}`"
    default = _value_text(spec.default)
    return f"`{key}`: {spec.type_name}, default `{default}` — {spec.help}"


# ---------------------------------------------------------------- variables


@dataclass(frozen=True, slots=True)
class _Writer:
    step: ExtractStep
    owner: str  # "scenario 'create a pet'", "fragment 'login'", "the file's background"
    path: str


def _writers(document: Document) -> dict[str, list[_Writer]]:
    """Every extract of the file (and of the fragments it sees), by name, in source order."""
    tree = document.tree
    found: dict[str, list[_Writer]] = {}
    if tree is None:
        return found

    def add(steps: Sequence[Step], owner: str, path: str) -> None:
        for step in walk_steps(tuple(steps)):
            if isinstance(step, ExtractStep):
                found.setdefault(step.name, []).append(_Writer(step, owner, path))

    blocks: list[tuple[int, Sequence[Step], str, str]] = []
    if tree.background is not None:
        blocks.append((tree.background.line, tree.background.steps, "the file's background", tree.path))
    for fragment in tree.fragments + tuple(f for f in document.fragments if tree.fragment(f.name) is None):
        blocks.append(
            (
                fragment.line if _same_file(fragment.location.file, tree.path) else 1 << 30,
                fragment.steps,
                f"fragment '{fragment.name}'",
                fragment.location.file,
            )
        )
    seen: set[int] = set()
    for scenario, feature in tree.scenarios_in_order():
        if feature is not None and feature.background is not None and feature.background.line not in seen:
            seen.add(feature.background.line)
            blocks.append(
                (
                    feature.background.line,
                    feature.background.steps,
                    f"the background of feature '{feature.name}'",
                    tree.path,
                )
            )
        line = _header_line(scenario)
        if line not in seen:
            seen.add(line)
            name = scenario.outline.outline if scenario.outline is not None else scenario.name
            blocks.append(
                (line, scenario.steps, f"{'outline' if scenario.outline else 'scenario'} '{name}'", tree.path)
            )
    for _, steps, owner, path in sorted(blocks, key=lambda b: b[0]):
        add(steps, owner, path)
    return found


def _analysis_reference(document: Document, name: str, line: int, character: int) -> Reference | None:
    """The analysis's Reference for the `{{name}}` starting at 0-based (line, character)."""
    analysis = document.analysis
    if analysis is None:
        return None
    found = analysis.reference_at(line + 1, character + 3)  # its location is NAME's, inside the braces
    if found is not None and found.name == name:
        return found
    candidates = [r for r in analysis.references if r.name == name and r.location.line == line + 1]
    return min(candidates, key=lambda r: abs(r.location.column - 1 - character)) if candidates else None


def _writer_for(document: Document, location: SourceLocation) -> _Writer | None:
    """Our own record of the extract step at `location` (the analysis names writers by place)."""
    for writers in _writers(document).values():
        for writer in writers:
            where = writer.step.location
            if where.line == location.line and _same_file(where.file, location.file):
                return writer
    return None


def _writer_text(document: Document, writer: _Writer | SourceLocation) -> str:
    if isinstance(writer, SourceLocation):
        known = _writer_for(document, writer)
        if known is None:
            return f"line {writer.line}" if _same_file(writer.file, document.path) else str(writer)
        writer = known
    location = writer.step.location
    where = f"line {location.line}"
    if not _same_file(location.file, document.path):
        where = f"{_relative(location.file, document.path)} {where}"
    return f"`{step_label(writer.step)}` ({_md(writer.owner)}, {where})"


def variable_markdown(document: Document, name: str, line: int, character: int) -> str:
    """Where `{{name}}` at this place gets its value, or why it cannot."""
    if name.startswith("env."):
        variable = name[4:]
        state = "set" if variable in os.environ else "**not set** in the server's environment"
        return f"**`{{{{{name}}}}}`** — environment variable `{variable}`, {state}"
    if name.startswith("param."):
        return _param_reference_markdown(document, name[6:], line)
    parts = [f"**`{{{{{name}}}}}`**"]  # a code span: shown as written, no escapes
    reference = _analysis_reference(document, name, line, character)
    writers: Sequence[_Writer | SourceLocation] = _writers(document).get(name, [])
    if reference is not None:
        parts[0] += f" — {reference.visibility} visible here"
        if reference.explanation:
            parts += ["", _md(reference.explanation)]
        if reference.writers:
            writers = reference.writers
    sources = _other_sources(document, name, line)
    if sources:
        parts += [""] + [f"- {s}" for s in sources]
    if writers:
        parts += ["", "Extracted by:"] + [f"- {_writer_text(document, w)}" for w in writers]
    elif not sources and reference is None:
        parts += ["", f"No step extracts `{name}`: pass it with `--var {name}=...`"]
    return "\n".join(parts)


def _other_sources(document: Document, name: str, line: int) -> list[str]:
    """Where else a name may come from: a run variable, an outline's column, an include's argument."""
    found: list[str] = []
    if name in document.run_variables:
        found.append(f"run variable (`--var {name}=...`)")
    block = _innermost(document, line)
    node = block.node if block is not None else None
    if isinstance(node, ScenarioNode) and node.outline is not None:
        if name in dict(node.outline.variables):
            found.append(f"a column of the examples of outline '{_md(node.outline.outline)}'")
    if isinstance(node, FragmentNode):
        found.append(f"inside fragment '{_md(node.name)}': visible as where it is included")
    return found


def _param_reference_markdown(document: Document, key: str, line: int) -> str:
    block = _innermost(document, line)
    feature = block.feature if block is not None else None
    node = block.node if block is not None else None
    scenario = node if isinstance(node, ScenarioNode) else None
    if isinstance(node, FeatureNode):
        feature = node
    parameters = _parameters_of(document, feature, scenario) if document.tree is not None else None
    head = f"**`{{{{param.{key}}}}}`** — {_spec_markdown(key)}"
    if parameters is None or key not in parameters:
        return head + "\n\nNo level sets it here."
    effective = parameters[key]
    return f"{head}\n\nHere: `{_value_text(effective.value)}` ← {_provenance(effective, parameters)}"


# ---------------------------------------------------------------- hover


def hover(document: Document, position: Position) -> HoverText | None:
    """What the cursor is on: a `{{NAME}}`, an include, a parameter entry, or the declaration of
    a scenario, feature or the file's parameters."""
    if position.line >= len(document.lines) or document.tree is None:
        return None
    line = document.lines[position.line]
    on_line = Span(Position(position.line, 0), Position(position.line, len(line)))
    found = _reference_at(line, position.character)
    if found is not None:
        name, start, end = found
        return HoverText(
            Span(Position(position.line, start), Position(position.line, end)),
            variable_markdown(document, name, position.line, start),
        )
    include = _include_at(line)
    if include is not None:
        name, start, end = include
        fragment = _fragment(document, name)
        span = Span(Position(position.line, start), Position(position.line, end))
        if fragment is None:
            return HoverText(span, f"no fragment named `{name}`")
        return HoverText(span, fragment_markdown(fragment, document.path))
    block = _declaration_at(document, position.line)
    if block is not None:
        title, parameters = block
        if parameters is None:
            return None
        return HoverText(on_line, parameters_markdown(title, parameters))
    entry = _parameter_entry_at(document, position.line)
    if entry is not None:
        key, title, parameters = entry
        text = _spec_markdown(key)
        if parameters is not None and key in parameters:
            effective = parameters[key]
            from scenario_core.parameters.params_report import shown_value

            text += (
                f"\n\nEffective for {title}: `{_value_text(shown_value(parameters, key, effective.value))}` "
                f"← {_provenance(effective, parameters)}"
            )
        return HoverText(on_line, text)
    from scenario_core.editor.source_help import source_hover  # form:, multipart:, cookie, xpath…

    return source_hover(position.line, line, position.character)


def fragment_markdown(fragment: FragmentNode, path: str) -> str:
    where = f"line {fragment.line}"
    if not _same_file(fragment.location.file, path):
        where = f"{_relative(fragment.location.file, path)}:{fragment.line}"
    steps = list(_step_lines(fragment.steps))
    return "\n".join([f"**fragment '{_md(fragment.name)}'** ({_md(where)})", "", "```", *steps, "```"])


def _step_lines(steps: Sequence[Step], depth: int = 0) -> Iterator[str]:
    """Steps as written, a directive indented under its step, a branch's steps under its if."""
    for step in steps:
        yield "  " * depth + step_label(step)
        if isinstance(step, DescribedStep):
            yield from _step_lines(step.steps, depth + 1)
        elif isinstance(step, ConditionalStep):
            for branch in step.branches:
                yield from _step_lines(branch.steps, depth + 1)


_DECLARATION = re.compile(r"^\s*(feature|scenario|outline|parameters)\s*:", re.IGNORECASE)


def _declaration_at(document: Document, line: int) -> tuple[str, EffectiveParameters | None] | None:
    """On a feature's, scenario's or outline's line, or the file's own `parameters:` line."""
    text = document.lines[line]
    found = _DECLARATION.match(text)
    if found is None:
        return None
    kind = found.group(1).lower()
    tree = document.tree
    if kind == "parameters":
        if _indent(text) != 0:
            return None
        return f"file {os.path.basename(document.path)}", _parameters_of(document, None, None)
    if tree is None:
        return None
    for scenario, feature in tree.scenarios_in_order():
        if feature is not None and feature.line == line + 1:
            return f"feature '{feature.name}'", _parameters_of(document, feature, None)
        if _header_line(scenario) == line + 1:
            name = scenario.outline.outline if scenario.outline is not None else scenario.name
            return f"{kind} '{name}'", _parameters_of(document, feature, scenario)
    return None


_ENTRY = re.compile(r"^(\s+)([A-Za-z_][\w.\-]*)\s*:")


def _parameter_entry_at(document: Document, line: int) -> tuple[str, str, EffectiveParameters | None] | None:
    """On a `key: value` line of a parameters block: (full key, whose, effective parameters)."""
    found = _ENTRY.match(document.lines[line])
    if found is None:
        return None
    chain = _enclosing_headers(document.lines, line)
    keys = [found.group(2)]
    for _, header in chain:
        word = header.strip().rstrip(":").strip()
        if word.lower() == "parameters":
            break
        if not header.strip().endswith(":") or " " in word:
            return None
        keys.insert(0, word)  # a nested block: `retry:` + `maxAttempts: 3`
    else:
        return None
    key = ".".join(keys)
    block = _innermost(document, line)
    feature = block.feature if block is not None else None
    node = block.node if block is not None else None
    scenario = node if isinstance(node, ScenarioNode) else None
    if isinstance(node, FeatureNode):
        feature = node
    title = (
        f"scenario '{scenario.name}'"
        if scenario is not None
        else f"feature '{feature.name}'"
        if feature is not None
        else "the file"
    )
    parameters = _parameters_of(document, feature, scenario) if document.tree is not None else None
    return key, title, parameters


def _enclosing_headers(lines: Sequence[str], line: int) -> list[tuple[int, str]]:
    """The lines that open the blocks holding `line`, innermost first."""
    found: list[tuple[int, str]] = []
    level = _indent(lines[line]) if lines[line].strip() else len(lines[line])
    for index in range(line - 1, -1, -1):
        text = lines[index]
        if _blank(text) or text.lstrip().startswith(("|", "@")):
            continue
        indent = _indent(text)
        if indent < level:
            found.append((index, strip_comment(text).strip()))
            level = indent
            if indent == 0:
                break
    return found


# ---------------------------------------------------------------- definition


def definition(document: Document, position: Position) -> list[Target]:
    """`{{NAME}}` → the extract steps that write it; `include: X` → fragment X."""
    if position.line >= len(document.lines) or document.tree is None:
        return []
    line = document.lines[position.line]
    found = _reference_at(line, position.character)
    if found is not None:
        name, start, _ = found
        reference = _analysis_reference(document, name, position.line, start)
        locations = (
            list(reference.writers)
            if reference is not None and reference.writers
            else [w.step.location for w in _writers(document).get(name, [])]
        )
        return [Target(os.path.abspath(loc.file), span_of(loc)) for loc in locations]
    include = _include_at(line)
    if include is not None and include[1] <= position.character <= include[2]:
        fragment = _fragment(document, include[0])
        if fragment is not None:
            return [Target(os.path.abspath(fragment.location.file), span_of(fragment.location))]
    return []
