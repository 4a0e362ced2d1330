"""Building `parameters:` blocks: nested keys flattened (`retry:` + `maxAttempts: 3`), each known
key's value validated by the key table, and unknown keys kept as user keys unless they are a
near miss of a known key (decided once the whole file is read)."""

from __future__ import annotations

import os
import re

from lark import Token

from scenario_core.language import parameter_keys as params
from scenario_core.language.builder.context import (
    BuildContext,
    Children,
    Entry,
    Raw,
    column_of,
    line_of,
    present,
    unquoted,
)
from scenario_core.language.nodes.base import SourceLocation
from scenario_core.language.nodes.blocks import NamedParametersNode, ParameterEntry, ParametersNode
from scenario_core.language.parameter_values import ParameterValueError
from scenario_core.support.records import replace

# Where a parameters: block may go, for every message about one that is misplaced.
PARAMETERS_GO = (
    "parameters: may go at the top of the file (before the first feature:, scenario:, fragment: "
    "or background:) or directly after a feature: line (and its description:)"
)
_PARAM_REF = re.compile(r"\{\{\s*param\.([A-Za-z_][\w.-]*?)\s*\}\}")


def _dotted(ctx: BuildContext, entries: list[Entry], prefix: str = "") -> list[tuple[str, Entry]]:
    """A parameters block's entries with nested blocks flattened: `retry:` + `maxAttempts: 3`
    is `retry.maxAttempts: 3` (docs/spec/parameters.md#nested-blocks)."""
    flat: list[tuple[str, Entry]] = []
    stack = [(prefix, list(entries))]
    while stack:
        base, pending = stack[-1]
        if not pending:
            stack.pop()
            continue
        entry = pending.pop(0)
        if entry.children:
            if entry.value:  # the key keeps its value; its block is the one mistake reported
                ctx.error(
                    ctx.loc(entry.children[0].token),
                    f"'{entry.key}' has a value, so it cannot open a nested block",
                )
            else:
                stack.append((f"{base}{entry.key}.", list(entry.children)))
                continue
        flat.append((base + entry.key, entry))
    return flat


def parameters(ctx: BuildContext, children: Children) -> Raw:
    keyword, lines = children[0], present(children[1:])
    name, name_offset = ctx.value(keyword, len("parameters:"))
    if name and column_of(keyword) != 1:
        ctx.error(
            ctx.loc(keyword, name_offset, len(name)),
            "'parameters: NAME' (a named block) goes at the top level of a file, a .fragment file's or "
            "this one's; a block inside another stands alone on its line",
        )
    elif name and not _BLOCK_NAME.fullmatch(name):
        ctx.error(ctx.loc(keyword, name_offset, len(name)), f"'{name}' cannot name a parameters block: {_NAMES}")
    entries = [line for line in lines if isinstance(line, Entry)]
    merged = _merged(ctx, [line for line in lines if not isinstance(line, Entry)])
    built: list[ParameterEntry] = []
    seen: dict[str, int] = {}
    for written, entry in _dotted(ctx, entries):
        key = params.canonical_key(written)  # `binding.default.baseUrl` is `baseUrl`
        raw = entry.value
        key_location = ctx.loc(entry.token, 0, len(entry.key))
        if ":" not in str(entry.token):
            ctx.error(ctx.whole(entry.token), "a parameters: block holds `key: value` lines")
            continue
        if params.spec_for(key) is None:
            # A user key unless a near miss of a known key (docs/spec/parameters.md#near-misses); decided in
            # check_user_keys, which also notes the ones nothing reads.
            if key in seen:
                ctx.error(key_location, f"duplicate parameter '{key}'; it is already set on line {seen[key]}")
                continue
            seen[key] = key_location.line
            ctx.user_keys.append((key, key_location))
            try:
                value = unquoted(raw) if "{{" in raw else params.parse_user_value(key, raw)  # 9090 is a number
            except ParameterValueError as problem:
                ctx.error(ctx.loc(entry.token, entry.value_offset, max(len(raw), 1)), str(problem))
                continue
            user_entry = ParameterEntry(key, value, raw, ctx.whole(entry.token))
            if _reads_columns(raw):
                try:
                    params.parse_template(key, raw)
                except ParameterValueError as problem:
                    where = ctx.loc(entry.token, entry.value_offset, max(len(raw), 1))
                    ctx.row_parameters[id(user_entry)] = (user_entry, where, str(problem))
            built.append(user_entry)
            continue
        if key in seen:
            ctx.error(key_location, f"duplicate parameter '{key}'; it is already set on line {seen[key]}")
            continue
        seen[key] = key_location.line
        value_location = ctx.loc(entry.token, entry.value_offset, max(len(raw), 1))
        try:
            value = params.parse_value(key, raw)
        except ParameterValueError as problem:
            if not _reads_columns(raw):
                ctx.error(value_location, str(problem))
                continue
            # Maybe an outline's example columns: outline() decides (row_parameters).
            pending = ParameterEntry(key, None, raw, ctx.whole(entry.token))
            ctx.row_parameters[id(pending)] = (pending, value_location, str(problem))
            built.append(pending)
            continue
        built.append(ParameterEntry(key, value, raw, ctx.whole(entry.token)))
    if merged:  # the block's own keys win over the ones it takes in
        own = {entry.key for entry in built}
        built = [entry for entry in merged if entry.key not in own] + built
    last = lines[-1] if lines else keyword
    node = ParametersNode(tuple(built), ctx.span(keyword, last.token if isinstance(last, Entry) else last))
    if name and column_of(keyword) == 1 and _BLOCK_NAME.fullmatch(name):
        named = NamedParametersNode(name, node, ctx.whole(keyword))
        ctx.named_parameters.setdefault(name, named)
        return Raw("named_parameters", keyword, named)
    return Raw("parameters", keyword, node)


# A `<< NAME` no block answers: the parser reads the file once more when this file defines NAME
# further down (parser.py), so a named block may be used above where it is written.
UNKNOWN_PARAMETERS_BLOCK = "unknown-parameters-block"
_BLOCK_NAME = re.compile(r"[A-Za-z_][\w.-]*")
_NAMES = "a name starts with a letter or _, then letters, digits, _, - or ."
_MERGE = re.compile(r"<<[ \t]*(\S*)")


def _merged(ctx: BuildContext, lines: list[Token]) -> list[ParameterEntry]:
    """The entries that `<< NAME` lines take in, in order: a named block of this file or of a
    .fragment file (docs/spec/berrycrush.md#named-parameter-blocks).
    A later `<<` wins over an earlier one for the same key."""
    taken: dict[str, ParameterEntry] = {}
    for token in lines:
        match = _MERGE.fullmatch(str(token))
        if match is None:
            ctx.error(ctx.whole(token), f"'{token}' is not allowed here; expected a 'name: value' line or '<< NAME'")
            continue
        name = match.group(1)
        if not name:
            ctx.error(ctx.whole(token), "'<<' needs the name of a 'parameters: NAME' block")
            continue
        block = ctx.named_parameters.get(name)
        if block is None:
            known = ", ".join(sorted(ctx.named_parameters)) or "none"
            ctx.error(
                ctx.loc(token, match.start(1), len(name)),
                f"no parameters block named '{name}' (named blocks: {known}); 'parameters: {name}' goes at "
                "the top level of a .fragment file, or of this file",
                code=UNKNOWN_PARAMETERS_BLOCK,
            )
            continue
        if block.problem is not None:
            where = block.problem.location
            ctx.error(
                ctx.loc(token, match.start(1), len(name)),
                f"parameters block '{name}' cannot be used: {where.file}:{where.line}:{where.column}: "
                f"{block.problem.message}",
            )
            continue
        for entry in block.block.entries:
            taken.pop(entry.key, None)
            if entry.location.file != ctx.filename:
                entry = replace(_located_from(entry, ctx.filename), taken_at=line_of(token))
            taken[entry.key] = entry
    return list(taken.values())


def _located_from(entry: ParameterEntry, filename: str) -> ParameterEntry:
    """A description location taken in from another file's named block: a relative path is that
    file's (as it reads where it is written), so it is made absolute; `classpath:` names and
    references stay as written."""
    if not isinstance(entry.value, str):
        return entry
    parts = params.binding_parts(entry.key)
    if entry.key != params.OPENAPI and (parts is None or parts[1] != "location"):
        return entry
    value = entry.value
    if value.startswith("classpath:") or "{{" in value or os.path.isabs(value):
        return entry
    return replace(
        entry, value=os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(entry.location.file)), value))
    )


def check_user_keys(ctx: BuildContext) -> tuple[tuple[str, SourceLocation], ...]:
    """A parameter key that is not known is a user parameter (docs/spec/parameters.md#user-parameters)
    unless it is a near miss of a known key (`timout`, `shareVariables`), which stays the
    unknown-key error with its hint. Returns the user keys the file never reads as
    {{param.KEY}}: `check --strict` reports them (a typo far from every known key)."""
    if not ctx.user_keys:
        return ()
    read = set(_PARAM_REF.findall(ctx.text)) if "param." in ctx.text else set()
    unread: list[tuple[str, SourceLocation]] = []
    for key, location in ctx.user_keys:
        if not params.is_user_key(key):
            ctx.error(location, params.unknown_key_message(key))
        elif key not in read:
            unread.append((key, location))
    return tuple(unread)


# A column's name may hold dots (`custom.value`, as BerryCrush's examples write them); `env.X` and
# `param.X` stay references to the environment and to parameters.
_COLUMN_REF = re.compile(r"\{\{\s*(?!(?:env|param)\.)([A-Za-z_][\w-]*(?:\.[\w-]+)*)\s*\}\}")


def _reads_columns(raw: str) -> bool:
    """Whether a value reads a plain `{{NAME}}`: an example column in an outline's own block."""
    return bool(_COLUMN_REF.search(raw))


def report_row_parameters(ctx: BuildContext) -> None:
    """The `{{NAME}}` parameter values no outline took: not in an outline's own block."""
    for _, where, message in ctx.row_parameters.values():
        ctx.error(where, message)
    ctx.row_parameters = {}


def parameters_for_row(ctx: BuildContext, block: ParametersNode | None, cells: dict[str, str]) -> ParametersNode | None:
    """An outline's own block for one examples row: each value that reads `{{COLUMN}}` with the
    row's cell put in, then validated as written so (docs/spec/parameters.md#references-in-values). A name that is no column
    keeps the static-parameters error."""
    if block is None or not any(id(e) in ctx.row_parameters for e in block.entries):
        return block
    entries = []
    for entry in block.entries:
        pending = ctx.row_parameters.get(id(entry))
        if pending is None:
            entries.append(entry)
            continue
        _, where, message = pending
        missing = [n for n in _COLUMN_REF.findall(entry.raw) if n not in cells]
        if missing:
            ctx.error(where, message)
            continue
        raw = _COLUMN_REF.sub(lambda m: cells[m.group(1)], entry.raw)
        try:
            value = (
                params.parse_value(entry.key, raw)
                if params.is_known(entry.key)
                else params.parse_user_value(entry.key, raw)
            )
        except ParameterValueError as problem:
            ctx.error(where, f"{problem} (examples row {cells})")
            continue
        entries.append(ParameterEntry(entry.key, value, raw, entry.location))
    return ParametersNode(tuple(entries), block.location)
