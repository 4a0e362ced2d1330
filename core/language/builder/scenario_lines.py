"""Lines BerryCrush samples write in a scenario's (or an outline's) body besides its steps, read
for what they say: `description: text` (the scenario's description), `tags: a, b` (more tags, as
if written `@a @b` before it) and `finally: clean up` with directives below it (a described step
that runs after the scenario's other steps, whether they passed or failed; run/plan.py marks its
directives). BerryCrush's own parser passes over these lines (and so never runs a `finally:`
block); docs/berrycrush.md lists that difference. `include NAME` straight under a scenario needs
nothing here: it is an include step like any other."""

from __future__ import annotations

import re

from scenario_core.language.builder.context import BuildContext, Children, Raw, line_of
from scenario_core.language.builder.directives import described
from scenario_core.language.nodes.steps import FINALLY, DescribedStep

# `tags: smoke, health` or `tags: @smoke @health`: names split at commas and spaces.
_TAG_SEPARATORS = re.compile(r"[\s,]+")

# One empty set of tags for every untagged node: a frozenset() costs 216 bytes, and a file at the
# size limit holds up to a million scenarios.
NO_TAGS: frozenset[str] = frozenset()


def taglist(ctx: BuildContext, children: Children) -> Raw:
    (token,) = children
    text, _ = ctx.value(token, len("tags:"))
    names = frozenset(name.lstrip("@") for name in _TAG_SEPARATORS.split(text) if name.lstrip("@"))
    if not names:
        ctx.error(ctx.whole(token), "tags: needs tag names: tags: smoke, pets")
    return Raw("taglist", token, names)


def finally_(ctx: BuildContext, children: Children) -> Raw:
    token, items = children[0], children[1:]
    text, base = ctx.value(token, len("finally:"))
    if not text:  # `finally:` alone: its description is the keyword
        text, base = FINALLY, 0
    return Raw("finally", token, described(ctx, token, FINALLY, text, base, items))


def scenario_lines(
    ctx: BuildContext, items: Children
) -> tuple[Children, str | None, frozenset[str], DescribedStep | None]:
    """A scenario's body without its description:, tags: and finally: lines, and what they say:
    (the other items, the description, the tags, the finally: block). A finally: block comes
    last, once."""
    rest: Children = []
    descriptions: list[str] = []
    tags = NO_TAGS
    block: Raw | None = None
    for item in items:
        if not isinstance(item, Raw) or item.kind not in ("description", "taglist", "finally"):
            if block is not None and item is not None and not (isinstance(item, Raw) and item.kind == "examples"):
                where = ctx.loc(item.token) if isinstance(item, Raw) else item.location
                ctx.error(
                    where, f"finally: comes last in a scenario, after its steps (it is on line {line_of(block.token)})"
                )
            rest.append(item)
        elif item.kind == "description":
            descriptions.append(item.node)
        elif item.kind == "taglist":
            tags |= item.node
        elif block is not None:
            ctx.error(
                ctx.loc(item.token), f"a scenario has one finally: block; the first is on line {line_of(block.token)}"
            )
        else:
            block = item
    cleanup = block.node if block is not None and isinstance(block.node, DescribedStep) else None
    return rest, "\n".join(descriptions) or None, tags, cleanup
