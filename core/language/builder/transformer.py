"""The Builder: lark's transformer, run inside the parse (no intermediate tree). lark calls each
grammar rule's callback by the rule's name (grammar.lark); each is bound here to the function of
its family that builds it, so the parse makes no call more per line than the function itself."""

from __future__ import annotations

from lark import Token, Transformer

from scenario_core.language.builder import (
    blocks,
    bodies,
    context,
    dialects,
    directives,
    parameter_blocks,
    requests,
    scenario_lines,
)
from scenario_core.language.builder.context import BuildContext
from scenario_core.language.nodes.blocks import ScenarioFileNode


class Builder(BuildContext, Transformer[Token, ScenarioFileNode]):
    """Builds the syntax tree of one parse at a time: `begin`, parse, then `end` for its errors."""

    def __init__(self) -> None:
        Transformer.__init__(self, visit_tokens=False)
        BuildContext.__init__(self)

    # The file and its blocks
    start = blocks.scenario_file
    feature = blocks.feature
    description = blocks.description
    background = blocks.background
    fragment = blocks.fragment
    scenario = blocks.scenario
    outline = blocks.outline
    examples = blocks.examples
    tags = blocks.tags
    taglist = scenario_lines.taglist
    finally_ = scenario_lines.finally_

    # name: value lines, parameters blocks, and lines the parser skipped
    entry = context.read_entry
    bad = context.bad
    parameters = parameter_blocks.parameters

    # Steps: ours or BerryCrush's, told apart by their line and what is below it
    when = dialects.when
    then = dialects.then
    step = dialects.step
    extract = dialects.extract
    include = dialects.include

    # A request's children
    headers = requests.headers
    query = requests.query
    call_entry = requests.call_entry
    body = bodies.body
    body_line = bodies.body_line

    # BerryCrush's directives
    call = directives.call
    assert_ = directives.assert_
    xextract = directives.xextract
    xinclude = directives.xinclude
    if_ = directives.if_
    else_ = directives.else_
    fail = directives.fail
    webhook = directives.webhook
    hook_list = directives.hook_list
