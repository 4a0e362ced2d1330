"""Building the file and its blocks: features (with their description, parameters and background),
backgrounds, fragments, scenarios, outlines and their examples tables (one scenario per row),
tags; where each block may go, and the whole-file checks once every block is built."""

from __future__ import annotations

from lark import Token

from scenario_core.language import parameter_keys as params
from scenario_core.language.builder.context import BuildContext, Children, Raw, line_of, present, unquoted
from scenario_core.language.builder.directives import external_custom
from scenario_core.language.builder.include_parameters import resolve_parameter_includes
from scenario_core.language.builder.includes import check_includes
from scenario_core.language.builder.parameter_blocks import (
    PARAMETERS_GO,
    check_user_keys,
    parameters_for_row,
    report_row_parameters,
)
from scenario_core.language.builder.scenario_lines import NO_TAGS, scenario_lines
from scenario_core.language.line_lexer import TAG
from scenario_core.language.nodes.base import SourceLocation
from scenario_core.language.nodes.blocks import (
    BackgroundNode,
    FeatureNode,
    FragmentNode,
    NamedParametersNode,
    OutlineRow,
    ParametersNode,
    ScenarioFileNode,
    ScenarioNode,
)
from scenario_core.language.nodes.steps import Step
from scenario_core.language.templates import REF_NAME


def _cells(row: str) -> list[str]:
    """An examples row's cells: split at `|` outside quotes (`| "a|b" | c |` has two)."""
    cells, start, quote = [], 0, ""
    for i, ch in enumerate(row):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'" and not row[start:i].strip():
            quote = ch
        elif ch == "|":
            cells.append(row[start:i])
            start = i + 1
    cells.append(row[start:])
    return cells


def _steps(
    ctx: BuildContext, items: Children, where: str, allow_parameters: bool = False
) -> tuple[tuple[Step, ...], ParametersNode | None]:
    """A block's steps, and its own parameters: block when it may have one (a scenario's or an
    outline's, as its first lines: docs/spec/parameters.md#placement)."""
    steps: list[Step] = []
    own: ParametersNode | None = None
    for index, item in enumerate(items):
        if isinstance(item, Raw):  # only parameters blocks reach here
            if allow_parameters and index == 0 and item.kind == "parameters":
                own = item.node
                shared = own.get(params.SHARE) if own is not None else None
                if shared is not None:
                    ctx.error(
                        shared.location,
                        f"{params.SHARE} cannot be set for one scenario: sharing is "
                        "decided by its feature or the file, because stores outlive scenarios",
                    )
                continue
            if allow_parameters and own is not None and not steps and item.kind == "parameters":
                ctx.error(
                    ctx.loc(item.token),
                    f"{where} has at most one parameters: block; the first is on line {own.line}",
                )
                continue
            where_go = f"{PARAMETERS_GO}, or as the first lines of a scenario" if allow_parameters else PARAMETERS_GO
            ctx.error(
                ctx.loc(item.token),
                f"parameters: cannot go inside {where}"
                f"{' after its first step' if allow_parameters else ''}; {where_go}",
            )
        elif item is not None:
            steps.append(item)
    return tuple(steps), own


def tags(ctx: BuildContext, children: Children) -> Raw:
    # A TAG token holds a line's tags (`@a @b`).
    return Raw("tags", children[0], frozenset(t[1:] for line in children for t in TAG.findall(str(line))))


def scenario(ctx: BuildContext, children: Children) -> Raw:
    tags = children.pop(0).node if isinstance(children[0], Raw) else NO_TAGS
    keyword = children[0]
    items, description, more_tags, cleanup = scenario_lines(ctx, children[1:])
    steps, own = _steps(ctx, items, "a scenario", allow_parameters=True)
    steps += (cleanup,) if cleanup is not None else ()
    node = ScenarioNode(
        ctx.named(keyword, "scenario:"),
        tags | more_tags if more_tags else tags,
        steps,
        ctx.whole(keyword),
        own,
        description=description,
    )
    return Raw("scenario", keyword, node)


def outline(ctx: BuildContext, children: Children) -> Raw:
    """An outline is one scenario per examples row (docs/spec/steps.md#outlines), named after the outline
    with the row's number and values; the row's cells are variables of that scenario."""
    tags = children.pop(0).node if isinstance(children[0], Raw) and children[0].kind == "tags" else NO_TAGS
    keyword = children[0]
    name = ctx.named(keyword, "outline:")
    body, description, more_tags, cleanup = scenario_lines(ctx, children[1:])
    if more_tags:
        tags |= more_tags
    tables = [item for item in body if isinstance(item, Raw) and item.kind == "examples"]
    rest = [item for item in body if not (isinstance(item, Raw) and item.kind == "examples")]
    for extra in tables[1:]:
        ctx.error(
            ctx.loc(extra.token),
            f"an outline has one examples: table; the first is on line {line_of(tables[0].token)}",
        )
    if tables:
        after = body[body.index(tables[0]) + 1 :]
        late = next(
            (item for item in after if item is not None and not (isinstance(item, Raw) and item.kind == "examples")),
            None,
        )
        if late is not None:
            ctx.error(
                ctx.loc(late.token) if isinstance(late, Raw) else late.location,
                "examples: comes last in an outline, after its steps",
            )
    steps, own = _steps(ctx, rest, "an outline", allow_parameters=True)
    steps += (cleanup,) if cleanup is not None else ()
    rows = tables[0].node if tables else None
    location = ctx.whole(keyword)
    if not rows:  # no examples (or none parsed): the outline runs once, as BerryCrush does
        return Raw("outlines", keyword, [ScenarioNode(name, tags, steps, location, own, description=description)])
    columns, body = rows
    scenarios = []
    for number, (token, cells) in enumerate(body, 1):
        shown = ", ".join(f"{c}={v}" for c, v in zip(columns, cells))
        row = OutlineRow(name, location.line, number, tuple(zip(columns, cells)))
        row_own = parameters_for_row(ctx, own, dict(zip(columns, (unquoted(c) for c in cells))))
        scenarios.append(
            ScenarioNode(
                f"{name} #{number} ({shown})", tags, steps, ctx.whole(token), row_own, row, description=description
            )
        )
    for entry in own.entries if own is not None else ():  # decided for every row
        ctx.row_parameters.pop(id(entry), None)
    return Raw("outlines", keyword, scenarios)


def examples(ctx: BuildContext, children: Children) -> Raw:
    token, lines = children[0], present(children[1:])
    word = "examples:" if str(token)[8:9] == ":" else "examples"
    ctx.bare(token, word)
    if not lines:
        ctx.error(ctx.whole(token), "examples: needs a table below it: | name | age | and a row per scenario")
        return Raw("examples", token, None)
    table: list[tuple[Token, list[str]]] = []
    for line in lines:
        text = str(line).strip()
        if not (text.startswith("|") and text.endswith("|") and len(text) > 1):
            ctx.error(ctx.whole(line), "an examples row reads like: | Fluffy | 3 |")
            return Raw("examples", token, None)
        table.append((line, [unquoted(cell.strip()) for cell in _cells(text[1:-1])]))
    columns = table[0][1]
    for index, column in enumerate(columns):
        if not REF_NAME.fullmatch(column) or "[" in column:
            ctx.error(
                ctx.whole(table[0][0]),
                f"column {index + 1} of the examples header, '{column}', is not a variable name: letters, digits and _",
            )
            return Raw("examples", token, None)
    rows = []
    for line, cells in table[1:]:
        if len(cells) != len(columns):
            ctx.error(
                ctx.whole(line),
                f"this row has {len(cells)} cell{'' if len(cells) == 1 else 's'}; "
                f"the header has {len(columns)} "
                f"({', '.join(columns)})",
            )
            continue
        rows.append((line, cells))
    return Raw("examples", token, (columns, rows))


def background(ctx: BuildContext, children: Children) -> Raw:
    keyword = _untagged(ctx, children, "background:")
    ctx.bare(keyword, "background:")
    steps, _ = _steps(ctx, children[1:], "a background")
    return Raw("background", keyword, BackgroundNode(steps, ctx.loc(keyword)))


def fragment(ctx: BuildContext, children: Children) -> Raw:
    keyword = _untagged(ctx, children, "fragment:")
    steps, _ = _steps(ctx, children[1:], "a fragment")
    return Raw("fragment", keyword, FragmentNode(ctx.named(keyword, "fragment:"), steps, ctx.whole(keyword)))


def _untagged(ctx: BuildContext, children: Children, keyword: str) -> Token:
    """The keyword of a block that takes no tags; a tag before it is reported on the tag's
    line (where the mistake is), and the block is read as if it were not there."""
    if isinstance(children[0], Raw):
        tags = children.pop(0)
        ctx.error(ctx.whole(tags.token), f"{keyword} takes no tags; tags go on a feature:, scenario: or outline:")
    keyword_token: Token = children[0]
    return keyword_token


def description(ctx: BuildContext, children: Children) -> Raw:
    return Raw("description", children[0], ctx.value(children[0], len("description:"))[0])


def _once(ctx: BuildContext, seen: dict[str, Raw], item: Raw, level: str) -> bool:
    if item.kind in seen:
        first = line_of(seen[item.kind].token)
        ctx.error(ctx.loc(item.token), f"{level} has at most one {item.kind}: block; the first is on line {first}")
        return False
    seen[item.kind] = item
    return True


def feature(ctx: BuildContext, children: Children) -> Raw:
    tags = children.pop(0).node if isinstance(children[0], Raw) and children[0].kind == "tags" else NO_TAGS
    keyword, items = children[0], [i for i in children[1:] if i is not None and i.kind != "tags"]
    seen: dict[str, Raw] = {}
    descriptions: list[str] = []
    scenarios: list[ScenarioNode] = []
    later = None  # the first item after which parameters: and description: are too late
    for item in items:
        if item.kind == "description":
            if later is not None:
                ctx.error(ctx.loc(item.token), "description: goes directly after the feature: line")
            descriptions.append(item.node)
        elif item.kind == "parameters":
            if later is not None:
                ctx.error(
                    ctx.loc(item.token),
                    f"a feature's parameters: must come directly after its feature: line "
                    f"(and description:), before its {later}",
                )
            elif _once(ctx, seen, item, "a feature"):
                pass
        elif item.kind == "background":
            if scenarios:
                ctx.error(ctx.loc(item.token), "a feature's background: comes before its first scenario:")
            elif _once(ctx, seen, item, "a feature"):
                pass
            later = later or "background"
        elif item.kind == "scenario":
            scenarios.append(item.node)
            later = later or "scenarios"
        elif item.kind == "outlines":
            scenarios.extend(item.node)
            later = later or "scenarios"
        elif item.kind == "fragment":
            ctx.error(ctx.loc(item.token), "fragments are defined at file level, not inside a feature")
    node = FeatureNode(
        ctx.named(keyword, "feature:"),
        "\n".join(descriptions) or None,
        seen["background"].node if "background" in seen else None,
        tuple(scenarios),
        tags,
        seen["parameters"].node if "parameters" in seen else None,
        ctx.whole(keyword),
    )
    return Raw("feature", keyword, node)


def scenario_file(ctx: BuildContext, children: Children) -> ScenarioFileNode:
    """The whole file (grammar: start): its blocks in order, its fragments and .fragment files'
    ones, and the checks that need every block: user parameter keys, includes."""
    seen: dict[str, Raw] = {}
    items: list[FeatureNode | ScenarioNode] = []
    fragments: dict[str, FragmentNode] = {}
    first_other: Raw | None = None  # parameters: must precede every other block
    named: list[NamedParametersNode] = []
    for item in children:
        if item is None or item.kind == "tags":  # a line the parser skipped (reported), its tags
            continue
        if item.kind == "named_parameters":
            block = ctx.named_parameters[item.node.name]
            if block is not item.node and block.location == item.node.location:  # read ahead (parser.py)
                block = ctx.named_parameters[item.node.name] = item.node
            if block is not item.node:
                ctx.error(
                    item.node.location,
                    f"parameters block '{item.node.name}' is defined twice: {block.location.file}:{block.line} "
                    f"and {item.node.location.file}:{item.node.line}",
                )
            else:
                named.append(item.node)
            continue
        if item.kind == "parameters":
            if first_other is not None:
                ctx.error(
                    ctx.loc(item.token),
                    f"file-level parameters: must come before the first {first_other.kind.rstrip('s')}: "
                    f"(line {line_of(first_other.token)}); {PARAMETERS_GO}",
                )
            else:
                _once(ctx, seen, item, "a file")
            continue
        first_other = first_other or item
        if item.kind == "background":
            standalone = next((i for i in items if isinstance(i, ScenarioNode)), None)
            if standalone is not None:
                ctx.error(
                    ctx.loc(item.token),
                    f"the file's background: comes before its first scenario: (line {standalone.line})",
                )
            else:
                _once(ctx, seen, item, "a file")
        elif item.kind == "fragment":
            if item.node.name in fragments:
                ctx.error(
                    item.node.location,
                    f"a second fragment named '{item.node.name}'; "
                    f"the first is on line {fragments[item.node.name].line}",
                )
            else:
                fragments[item.node.name] = item.node
        elif item.kind == "outlines":
            items.extend(item.node)
        else:
            items.append(item.node)
    # Fragments of .fragment files come after the file's own (docs/spec/berrycrush.md#fragments).
    for fragment in ctx.external_fragments:
        first = fragments.get(fragment.name)
        if first is not None:
            ctx.error(
                first.location if first.location.file == ctx.filename else fragment.location,
                f"fragment '{fragment.name}' is defined twice: {first.location.file}:{first.line} "
                f"and {fragment.location.file}:{fragment.line}",
            )
        else:
            fragments[fragment.name] = fragment
    report_row_parameters(ctx)
    unread_user_keys = check_user_keys(ctx)
    parameters = seen["parameters"].node if "parameters" in seen else None
    items, background = resolve_parameter_includes(
        ctx, items, fragments, seen["background"].node if "background" in seen else None, parameters
    )
    features = tuple(i for i in items if isinstance(i, FeatureNode))
    node = ScenarioFileNode(
        scenarios=tuple(i for i in items if isinstance(i, ScenarioNode)),
        fragments=tuple(fragments.values()),
        features=features,
        parameters=parameters,
        background=background,
        items=tuple(items),
        location=SourceLocation(ctx.filename, 1, 1, 1, 1),
        custom_steps=ctx.custom_seen or external_custom(ctx),
        unread_user_keys=unread_user_keys,
        named_parameters=tuple(named),
    )
    check_includes(ctx, node, fragments)
    return node
