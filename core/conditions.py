"""BerryCrush's conditions, as `assert` and `if` write them (berrycrush.md §3.3, §3.5), parsed
into the assertion nodes `then:` uses.

Placeholder until the condition language lands: only the forms `then:` already knows.
"""

from __future__ import annotations

from .nodes import Assertion, SourceLocation
from .step_syntax import parse_assertion
from .templates import Locate


def parse_condition(text: str, locate: Locate, location: SourceLocation, *, in_if: bool = False) -> Assertion:
    """The condition after `assert` (in_if False) or after `if` / `else if` (in_if True: `and`,
    `or` and the full header operators). Raises step_syntax.LineError, located in `text`."""
    return parse_assertion(text, locate, location)
