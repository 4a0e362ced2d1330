"""Building BerryCrush's described steps (`when I create a pet`) and the directives indented under
them: `call`, `assert`, `extract … =>`, `include` with parameters, `if` / `else if` / `else`
chained into one ConditionalStep, `fail` and `webhook:`. Also whether a file needs plugins: a
described step without directives is a custom step, and a condition may be a custom assertion."""

from __future__ import annotations

import re

from lark import Token

from scenario_core.language.builder.context import (
    BuildContext,
    Children,
    Entry,
    Raw,
    flat,
    present,
    read_entry,
    unquoted,
)
from scenario_core.language.builder.include_parameters import parameter_named
from scenario_core.language.builder.requests import call_parameter, request
from scenario_core.language.errors import CONDITION, JSON_PATH, clip
from scenario_core.language.nodes.assertions import Assertion, CustomAssertion
from scenario_core.language.nodes.steps import (
    AssertStep,
    ConditionalBranch,
    ConditionalStep,
    DescribedStep,
    ExtractStep,
    FailStep,
    IncludeStep,
    Step,
    UnreadableStep,
    WebhookStep,
)
from scenario_core.language.nodes.walk import leaf_conditions, walk_steps
from scenario_core.language.step_syntax import JsonPathError, LineError, compile_json_path
from scenario_core.language.templates import REF_NAME
from scenario_core.language.typo_hints import extract_typo
from scenario_core.support.digits import ascii_int

# `extract $.path => name` (the path may be quoted, the name written {{name}}).
_ARROW = re.compile(r"""("[^"]*"|'[^']*'|\S+)\s*=>\s*(?:\{\{\s*([^{}\s]+)\s*\}\}|(\S+))""")


def has_custom(condition: Assertion | None) -> bool:
    """Whether a condition (None: an `else`'s) is, or holds (under not / and / or), a custom assertion."""
    return condition is not None and any(isinstance(node, CustomAssertion) for node in leaf_conditions(condition))


def described(ctx: BuildContext, token: Token, keyword: str, text: str, base: int, items: Children) -> Step | None:
    if not text:
        ctx.error(
            ctx.whole(token),
            f"'{keyword}' needs a description (when I create a pet) or, with a colon, a request (when: POST /pets)",
        )
        return None
    description = ctx.template(token, text, base, ctx.whole(token))
    steps = _directive_steps(ctx, items, f"'{keyword} {clip(text)}'")
    if description is None:
        return None
    if not steps:
        ctx.custom_seen = True
    return DescribedStep(keyword, description, steps, ctx.whole(token))


def _directive_steps(ctx: BuildContext, items: Children, where: str) -> tuple[Step, ...]:
    """Directives as steps, `if` / `else if` / `else` chained into one ConditionalStep."""
    steps: list[Step] = []
    chain: list[ConditionalBranch] = []
    chain_start: Token | None = None
    chain_closed = broken = False

    def close() -> None:
        nonlocal chain, chain_start
        if chain and chain_start is not None:
            steps.append(ConditionalStep(tuple(chain), ctx.whole(chain_start)))
        chain, chain_start = [], None

    for item in items:
        if item is None:
            continue
        if isinstance(item, Raw) and item.kind == "if":
            close()
            if isinstance(item.node, UnreadableStep):  # stands for the chain: its scenario ends there
                steps.append(item.node)
            broken = not isinstance(item.node, ConditionalBranch)  # reported; its else branches go with it
            chain, chain_start, chain_closed = ([] if broken else [item.node]), item.token, False
            continue
        if isinstance(item, Raw) and item.kind == "else":
            if isinstance(item.node, UnreadableStep) and not broken:
                close()  # the chain up to it, then the step that ends the scenario at its line
                steps.append(item.node)
            if broken or not isinstance(item.node, ConditionalBranch):
                broken = True
                continue
            if not chain:
                ctx.error(ctx.whole(item.token), "else without an if before it at the same indentation")
            elif chain_closed:
                ctx.error(
                    ctx.whole(item.token), "nothing may follow a plain else in an if chain; put else if before it"
                )
            else:
                chain.append(item.node)
                chain_closed = item.node.condition is None
            continue
        close()
        broken = False
        if isinstance(item, Raw):
            what = item.kind if item.kind != "entry" else f"'{item.node.key}:'"
            ctx.error(
                ctx.loc(item.token),
                f"{what} cannot go under {where}: under a described step go "
                "call, assert, extract, include, if/else, fail and webhook",
            )
        elif isinstance(item, DescribedStep):
            ctx.error(item.location, f"steps do not nest: '{item.keyword}' goes at the indentation of {where}")
        else:
            steps.append(item)
    close()
    return tuple(steps)


def call(ctx: BuildContext, children: Children) -> Step | None:
    token, items = children[0], children[1:]
    text, base = ctx.value(token, len("call"))
    if not text:
        ctx.error(ctx.whole(token), "call needs an operation: call ^getPetById")
        return None
    return request(ctx, token, text, base, items, keyword="call")


def _condition(
    ctx: BuildContext, token: Token, text: str, base: int, in_if: bool, keyword: str
) -> Assertion | UnreadableStep:
    """The condition, or the step that stands for it when it cannot be read (an error local to
    its scenario, docs/spec/steps.md#errors-local-to-one-scenario)."""
    from scenario_core.language.conditions import parse_condition

    try:
        condition = parse_condition(text, ctx.locator(token, base), ctx.whole(token), in_if=in_if)
        if not ctx.custom_seen and has_custom(condition):
            ctx.custom_seen = True
        return condition
    except LineError as problem:
        where = ctx.loc(token, base + problem.offset, problem.length)
        return ctx.unreadable(token, keyword, where, str(problem), problem.code or CONDITION)


def assert_(ctx: BuildContext, children: Children) -> Step | None:
    (token,) = children
    text, base = ctx.value(token, len("assert"))
    if not text:
        ctx.error(ctx.whole(token), "assert needs a condition: assert status 200")
        return None
    condition = _condition(ctx, token, text, base, in_if=False, keyword="assert")
    if isinstance(condition, UnreadableStep):
        return condition
    return AssertStep(text, condition, ctx.whole(token), keyword="assert")


def xextract(ctx: BuildContext, children: Children) -> Step | None:
    (token,) = children
    text, base = ctx.value(token, len("extract"))
    match = _ARROW.fullmatch(text)
    if not match:
        meant = extract_typo(str(token), ours=False)  # ours, written under a described step
        ctx.error(
            ctx.loc(token, base, max(len(text), 1)),
            f"extract reads like: extract $.id => petId; did you mean '{clip(meant, 60)}'?"
            if meant
            else "extract reads like: extract $.id => petId (or, ours, extract: petId from $.id)",
        )
        return None
    path = unquoted(match.group(1))
    name = match.group(2) or match.group(3)
    name_at = match.start(2) if match.group(2) else match.start(3)
    if not REF_NAME.fullmatch(name):
        ctx.error(
            ctx.loc(token, base + name_at, len(name)),
            f"'{name}' is not a variable name: letters, digits and _, not starting with a digit",
        )
        return None
    try:
        compiled = compile_json_path(path)
    except JsonPathError as error:  # local to its scenario (docs/spec/steps.md#errors-local-to-one-scenario)
        return ctx.unreadable(token, "extract", ctx.loc(token, base, len(match.group(1))), str(error), JSON_PATH)
    return ExtractStep(name, "body", path, compiled, ctx.whole(token), keyword="extract", arrow=True)


def xinclude(ctx: BuildContext, children: Children) -> Step | None:
    token, entries = children[0], present(children[1:])
    name, base = ctx.value(token, len("include"))
    if not name:
        ctx.error(ctx.whole(token), "include needs a fragment name: include login")
        return None
    parameter = parameter_named(name)
    if " " in name and parameter is None:
        ctx.error(
            ctx.loc(token, base, len(name)),
            "a fragment name is one word; its parameters go on the indented lines below: name: value",
        )
        return None
    if parameter is None and "{{" in name:
        ctx.error(
            ctx.loc(token, base, len(name)),
            "a fragment is named by a word or by a parameter, {{param.NAME}} (parameters are fixed before a run)",
        )
        return None
    arguments = [
        call_parameter(ctx, entry, entry.value or "null") for entry in flat(ctx, entries, "include parameters")
    ]
    return IncludeStep(
        name,
        ctx.whole(token),
        tuple(a for a in arguments if a is not None),
        keyword="include",
        bare=True,
        parameter=parameter,
    )


def _branch(
    ctx: BuildContext, token: Token, text: str, base: int, items: Children, keyword: str
) -> ConditionalBranch | UnreadableStep:
    """The branch, or, when its condition cannot be read, the step that stands for its chain."""
    in_if = keyword != "else"
    condition = _condition(ctx, token, text, base, in_if=True, keyword=keyword) if in_if else None
    steps = _directive_steps(ctx, items, "an if branch")
    if isinstance(condition, UnreadableStep):
        return condition
    return ConditionalBranch(condition, text, steps, ctx.whole(token), keyword)


def if_(ctx: BuildContext, children: Children) -> Raw:
    token, items = children[0], children[1:]
    text, base = ctx.value(token, len("if"))
    if not text:
        ctx.error(ctx.whole(token), "if needs a condition: if status 201")
    branch = _branch(ctx, token, text, base, items, "if") if text else None
    return Raw("if", token, branch)


def else_(ctx: BuildContext, children: Children) -> Raw:
    token, items = children[0], children[1:]
    text, base = ctx.value(token, len("else"))
    if text[:2].lower() == "if" and (len(text) == 2 or text[2] in " \t"):
        condition_text, offset = ctx.value(token, base + 2)
        if not condition_text:
            ctx.error(ctx.whole(token), "else if needs a condition: else if status 200")
            return Raw("else", token, None)
        return Raw("else", token, _branch(ctx, token, condition_text, offset, items, "else if"))
    if text:
        ctx.error(ctx.loc(token, base, len(text)), "else takes nothing after it (or: else if CONDITION)")
    return Raw("else", token, _branch(ctx, token, "", base, items, "else"))


def fail(ctx: BuildContext, children: Children) -> Step | None:
    (token,) = children
    text, base = ctx.value(token, len("fail"))
    message = text
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        message, base = text[1:-1], base + 1
    template = ctx.template(token, message or "failed", base, ctx.whole(token))
    return FailStep(template, ctx.whole(token)) if template is not None else None


def hook_list(ctx: BuildContext, children: Children) -> Entry:
    """`hooks:` over `- name` lines (grammar: hook_list): the entry with its items."""
    entry = read_entry(ctx, children[:1])
    entry.items = [line for line in children[1:] if line is not None]
    return entry


def webhook(ctx: BuildContext, children: Children) -> Step | None:
    token, entries = children[0], present(children[1:])
    word = "webhook:" if str(token)[7:8] == ":" else "webhook"
    name, base = ctx.value(token, len(word))
    if not REF_NAME.fullmatch(name or "-") or "." in name:
        ctx.error(ctx.whole(token), "webhook needs a name: webhook: callbacks")
        return None
    hooks: list[str] = []
    port, scope = 0, "scenario"
    for entry in flat(ctx, entries, "webhook"):
        value = unquoted(entry.value)
        where = ctx.loc(entry.token, entry.value_offset, max(len(entry.value), 1))
        if entry.key in ("hook", "hooks") and entry.items is not None:
            if value:
                ctx.error(where, f"{entry.key}: takes its names on its line or as '- name' lines below it, not both")
            for item in entry.items:
                hook = unquoted(str(item)[1:].strip()) if str(item).startswith("-") else ""
                if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", hook):
                    ctx.error(
                        ctx.whole(item), f"{entry.key}: takes '- name' lines (letters, digits, _ and -), got {item}"
                    )
                else:
                    hooks.append(hook)
        elif entry.key in ("hook", "hooks"):
            found = [h for h in re.split(r"[\s,\[\]\"']+", value) if h]
            bad = [h for h in found if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", h)]
            if bad or not found:
                ctx.error(
                    where,
                    f"{entry.key}: takes hook names (letters, digits, _ and -), got {entry.value or 'nothing'}",
                )
            hooks += [h for h in found if h not in bad]
        elif entry.key == "port":
            number = ascii_int(value, 5)
            if number is None or number > 65535:
                ctx.error(where, f"port must be 0 (any free port) or a port number up to 65535, got {entry.value}")
            else:
                port = number
        elif entry.key == "scope":
            if value not in ("scenario", "feature"):
                ctx.error(where, f"scope must be scenario or feature, got {entry.value}")
            else:
                scope = value
        else:
            ctx.error(
                ctx.loc(entry.token, 0, len(entry.key)),
                f"unknown webhook setting '{entry.key}'; use hook, hooks, port or scope",
            )
    if not hooks:
        ctx.error(ctx.whole(token), f"webhook {name} needs at least one hook: hook: callback")
        return None
    return WebhookStep(name, tuple(hooks), port, scope, ctx.whole(token))


def external_custom(ctx: BuildContext) -> bool:
    """A custom step or assertion in the fragments of .fragment files (the file's own steps are
    noted while they are built: `ctx.custom_seen`)."""
    for fragment in ctx.external_fragments:
        for step in walk_steps(fragment.steps):
            if isinstance(step, DescribedStep) and not step.steps:
                return True
            if isinstance(step, AssertStep) and has_custom(step.assertion):
                return True
            if isinstance(step, ConditionalStep) and any(has_custom(b.condition) for b in step.branches):
                return True
    return False
