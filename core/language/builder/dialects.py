"""Telling the dialects apart (docs/spec/berrycrush.md#telling-the-dialects-apart): `when: METHOD target` with only headers:, query:,
body: below is our request, `when: ^op` our operation call, `then: ASSERTION` our assertion; any
other step line is BerryCrush's described step, its directives below. Also our `extract:` and
`include:` lines."""

from __future__ import annotations

import re

from scenario_core.language.builder.context import BuildContext, Children, Raw
from scenario_core.language.builder.directives import described
from scenario_core.language.builder.requests import request
from scenario_core.language.errors import CONDITION, JSON_PATH, clip
from scenario_core.language.nodes.steps import IncludeStep, Step
from scenario_core.language.step_syntax import METHODS, LineError, parse_extract, parse_then

# `when: VERB target` reads as our request when the target is a path, a URL or a reference
# (or its verb is a method: `when: GET health`; a lone upper-case word is a method missing its path).
REQUEST_LIKE = re.compile(r"[A-Za-z]+\s+(/|https?://|\{\{)|(" + "|".join(METHODS) + r")\s|[A-Z]+\s*$")
_ASSERTION_WORDS = ("status", "header", "body", "time", "schema", "cookie", "regex", "xpath")


def when(ctx: BuildContext, children: Children) -> Step | None:
    token, items = children[0], children[1:]
    text, base = ctx.value(token, len("when:"))
    if not _has_directives(items) and (text.startswith(("^", "using ")) or REQUEST_LIKE.match(text)):
        return request(ctx, token, text, base, items)
    return described(ctx, token, "when", text, base, items)


def then(ctx: BuildContext, children: Children) -> Step | None:
    token, items = children[0], children[1:]
    text, base = ctx.value(token, len("then:"))
    if not _has_directives(items):
        try:
            return parse_then(text, ctx.locator(token, base), ctx.whole(token))
        except LineError as problem:
            # A line that starts like an assertion is one with a mistake, not a custom step:
            # an invalid condition, local to its scenario (docs/spec/steps.md#errors-local-to-one-scenario).
            if not items and (not text or text.split()[0] in _ASSERTION_WORDS or text.startswith("$")):
                where = ctx.loc(token, base + problem.offset, problem.length)
                return ctx.unreadable(token, "then", where, str(problem), problem.code or CONDITION)
    return described(ctx, token, "then", text, base, items)


def step(ctx: BuildContext, children: Children) -> Step | None:
    token, items = children[0], children[1:]
    word = str(token).split(None, 1)[0].split(":", 1)[0]
    text, base = ctx.value(token, len(word))
    colon = text.startswith(":")
    if colon:
        text, base = ctx.value(token, len(word) + 1)
    keyword = word.lower()
    if not colon and not _has_directives(items) and keyword in ("when", "then"):
        # `when GET /health`, `then status 200`: ours, missing its colon (a described step
        # would need directives below it or a custom step of that exact text).
        ours = (
            REQUEST_LIKE.match(text) and text.split()[0] in METHODS
            if keyword == "when"
            else text and (text.split()[0] in _ASSERTION_WORDS or text.startswith("$"))
        )
        if ours:
            ctx.error(
                ctx.loc(token, 0, len(word)),
                f"'{word} {clip(text)}' reads as a described step; "
                f"write {keyword}: with a colon for a "
                f"{'request' if keyword == 'when' else 'check'}",
            )
            return None
    return described(ctx, token, keyword, text, base, items)


def _has_directives(items: Children) -> bool:
    """Whether a step line has BerryCrush's directives below it (`if` / `else` included)."""
    return any(not isinstance(item, Raw) or item.kind in ("if", "else") for item in items if item is not None)


def extract(ctx: BuildContext, children: Children) -> Step | None:
    (token,) = children
    text, base = ctx.value(token, len("extract:"))
    try:
        return parse_extract(text, ctx.locator(token, base), ctx.whole(token))
    except LineError as problem:
        where = ctx.loc(token, base + problem.offset, problem.length)
        if problem.code == JSON_PATH:  # local to its scenario (docs/spec/steps.md#errors-local-to-one-scenario)
            return ctx.unreadable(token, "extract", where, str(problem), JSON_PATH)
        ctx.error(where, str(problem))
        return None


def include(ctx: BuildContext, children: Children) -> Step | None:
    (token,) = children
    name = ctx.named(token, "include:")
    return IncludeStep(name, ctx.whole(token)) if name else None
