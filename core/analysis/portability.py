"""`check --strict`: a file written in BerryCrush's dialect that also uses forms only scenario-tui
reads (docs/spec/berrycrush.md#our-forms-in-a-berrycrush-file) gets one warning, at the first
such line, naming how many there are: BerryCrush itself cannot run the file as written.

A file is in BerryCrush's dialect when it has a described step (`given …` with directives), a
`call`, an `assert`, or an `extract $.x => name`. Our forms: `form:` and `multipart:` bodies, and
`extract:` / `then:` from a cookie, a regex, an XPath or the whole body (`extract: x from body`,
`then: body matches …`). Both dialects' other lines are read by both tools."""

from __future__ import annotations

from typing import Iterator

from scenario_core.language.errors import WARNING, Diagnostic
from scenario_core.language.nodes.assertions import BodyAssertion, SourceAssertion
from scenario_core.language.nodes.base import SourceLocation
from scenario_core.language.nodes.blocks import ScenarioFileNode
from scenario_core.language.nodes.steps import AssertStep, DescribedStep, ExtractStep, RequestStep, Step
from scenario_core.language.nodes.walk import leaf_conditions, step_blocks, walk_steps

CODE = "berrycrush-portability"
_OUR_SOURCES = frozenset(("cookie", "regex", "xpath", "text"))


def berrycrush_portability(file: ScenarioFileNode) -> list[Diagnostic]:
    """One warning for a BerryCrush-dialect file that uses our forms, else none."""
    # this file's own lines: a .fragment file beside it is another file, in its own dialect
    steps = [step for block in step_blocks(file) for step in walk_steps(block) if step.location.file == file.path]
    if not any(_berrycrush(step) for step in steps):
        return []
    ours = sorted({where for step in steps for where in _our_forms(step)}, key=lambda w: (w[0].line, w[0].column))
    if not ours:
        return []
    location, what = ours[0]
    more = len(ours) - 1
    rest = f" (and {more} more line{'s' if more > 1 else ''})" if more else ""
    message = (
        f"this file is written in BerryCrush's dialect, but {what} on this line{rest} is a form only "
        "scenario-tui reads: BerryCrush itself cannot run the file as written"
    )
    return [Diagnostic(location, message, WARNING, CODE)]


def _berrycrush(step: Step) -> bool:
    if isinstance(step, DescribedStep):
        return True
    if isinstance(step, (RequestStep, AssertStep)):
        return step.keyword in ("call", "assert")
    return isinstance(step, ExtractStep) and step.arrow


def _our_forms(step: Step) -> Iterator[tuple[SourceLocation, str]]:
    if isinstance(step, RequestStep):
        if step.form is not None:
            yield step.location, "`form:`"
        if step.multipart is not None:
            yield step.location, "`multipart:`"
    elif isinstance(step, ExtractStep) and step.source in _OUR_SOURCES:
        yield step.location, f"`extract: … from {'body' if step.source == 'text' else step.source}`"
    elif isinstance(step, AssertStep):
        for leaf in leaf_conditions(step.assertion):
            if isinstance(leaf, SourceAssertion):
                yield step.location, f"`{leaf.source} …`"
            elif isinstance(leaf, BodyAssertion) and leaf.operator == "matches":
                yield step.location, "`body matches`"
