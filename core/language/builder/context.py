"""One parse's building state, and the machinery every family of the builder shares: where a token
is (`loc`, `whole`, `span`), collecting located errors, a keyword's value, templates, and the
pieces a rule hands to its parent (`Raw`; `Entry`, a `name: value` line).

Problems are collected, not raised, so one pass reports every error of a file it can parse.
"""

from __future__ import annotations

from typing import Any, Callable

from lark import Token

from scenario_core.language.errors import Diagnostic
from scenario_core.language.nodes.base import SourceLocation, TextTemplate
from scenario_core.language.nodes.blocks import FragmentNode, NamedParametersNode, ParameterEntry
from scenario_core.language.nodes.steps import UnreadableStep
from scenario_core.language.templates import TemplateError, text_template
from scenario_core.support.records import dataclass

# What lark hands a rule's callback (grammar.lark): the rule's tokens and what its child rules'
# callbacks returned (a Raw, an Entry, a Step; None for a line the parser skipped). The grammar
# fixes which comes where, so each callback reads its own positions unchecked: this is the parse.
Children = list[Any]


@dataclass(slots=True)
class Raw:
    """An intermediate piece handed from a rule to its parent: what it is, where, and its node."""

    kind: str
    token: Token
    node: Any = None
    structured: bool = False  # a body written as name: value lines


@dataclass(slots=True)
class Entry:
    """`name: value`, one token: the name and the value's offset in it."""

    token: Token
    key: str
    value: str
    value_offset: int
    children: list[Entry] | None = None  # a nested block: `retry:` + indented entries
    items: list[Token] | None = None  # `- name` lines below it (a webhook's `hooks:`)


def present(children: Children) -> Children:
    """A block's children without the lines the parser skipped after a syntax error (None)."""
    return [child for child in children if child is not None]


def unquoted(raw: str) -> str:
    return raw[1:-1] if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'" else raw


# Lines are one too high: the parser prepends a line break to the text. The line lexer locates
# every token it makes (lark's Token allows a token without a place; ours never are).


def line_of(token: Token) -> int:
    """The token's line in the file."""
    assert token.line is not None
    return token.line - 1


def column_of(token: Token) -> int:
    assert token.column is not None
    return token.column


class BuildContext:
    """The state of the parse being built (reset by `begin`) and the located-error machinery."""

    filename: str
    diagnostics: list[Diagnostic]
    text: str
    external_fragments: tuple[FragmentNode, ...]  # from .fragment files (docs/spec/berrycrush.md#fragments)
    # `parameters: NAME` blocks by name: the .fragment files' ones, then this file's as they are built.
    named_parameters: dict[str, NamedParametersNode]
    user_keys: list[tuple[str, SourceLocation]]  # unknown parameter keys, decided once the file is read
    custom_seen: bool  # a custom step or assertion was built
    # Fragments whose `fragment:` line the parser skipped after a syntax error: an include of
    # one is not reported again as unknown (the line's own error says what is wrong).
    skipped_fragments: set[str]
    # Parameter entries that read `{{NAME}}` (not env./param.): allowed only in an outline's own
    # block, where NAME is an example column (docs/spec/parameters.md#references-in-values). id(entry) -> (entry, where, error);
    # outline() takes its own, the rest are reported once the file is read.
    row_parameters: dict[int, tuple[ParameterEntry, SourceLocation, str]]
    _whole: tuple[Token | None, SourceLocation | None]  # the last token `whole` located, and where

    def __init__(self) -> None:
        self.begin("<text>")

    def begin(
        self, filename: str, text: str = "", fragments: tuple[FragmentNode | NamedParametersNode, ...] = ()
    ) -> None:
        self.filename = filename
        self.diagnostics = []
        self.text = text
        self.external_fragments = tuple(f for f in fragments if isinstance(f, FragmentNode))
        self.named_parameters = {}
        for block in fragments:
            if isinstance(block, NamedParametersNode):
                self.named_parameters.setdefault(block.name, block)
        self.user_keys = []
        self.custom_seen = False
        self.skipped_fragments = set()
        self.row_parameters = {}
        self._whole = (None, None)

    def skipped(self, token: Token) -> None:
        """The parser skipped this line after reporting it (lark_parser.py's recovery)."""
        if token.type == "FRAGMENT":
            self.skipped_fragments.add(self.value(token, len("fragment:"))[0])

    def end(self) -> list[Diagnostic]:
        found, self.diagnostics = self.diagnostics, []
        return found

    # ------------------------------------------------------------ locations and errors

    def loc(self, token: Token, offset: int = 0, length: int | None = None) -> SourceLocation:
        line, column = token.line, token.column
        assert line is not None and column is not None
        column += offset
        if length is None:
            end_line, end_column = token.end_line, token.end_column
            assert end_line is not None and end_column is not None
            return SourceLocation(self.filename, line - 1, column, end_line - 1, end_column)
        return SourceLocation(self.filename, line - 1, column, line - 1, column + length)

    def whole(self, token: Token) -> SourceLocation:
        """The token's line without trailing spaces. A line's nodes share one location (a step,
        its template, its assertion ask for the same line in turn): a file at the size limit
        holds millions of them."""
        last, location = self._whole
        if token is last and location is not None:
            return location
        line, column = token.line, token.column
        assert line is not None and column is not None
        row = line - 1
        location = SourceLocation(self.filename, row, column, row, column + len(token.rstrip()))
        self._whole = (token, location)
        return location

    def span(self, first: Token, last: Token) -> SourceLocation:
        line, column, end_line, end_column = first.line, first.column, last.end_line, last.end_column
        assert line is not None and column is not None and end_line is not None and end_column is not None
        return SourceLocation(self.filename, line - 1, column, end_line - 1, end_column)

    def error(self, location: SourceLocation, message: str, code: str = "") -> None:
        if "\n" in message:  # one quoting a """ block's token: an error is one line
            message = " ".join(message.split("\n"))
        self.diagnostics.append(Diagnostic(location, message, code=code))

    def unreadable(
        self, token: Token, keyword: str, location: SourceLocation, message: str, code: str
    ) -> UnreadableStep:
        """A step whose JSON path or condition cannot be read: reported with `code` (an error local
        to its scenario, docs/spec/steps.md#errors-local-to-one-scenario) and kept as a step that ends its scenario there."""
        self.diagnostics.append(Diagnostic(location, message, code=code))
        written, _ = self.value(token, len(keyword))
        colon = written.startswith(":")
        if colon:
            written = written[1:].lstrip()
        step = self.whole(token)
        return UnreadableStep(TextTemplate(message, (message,), step), step, keyword, written, colon)

    def locator(self, token: Token, base: int = 0) -> Callable[[int, int], SourceLocation]:
        return lambda offset, length: self.loc(token, base + offset, length)

    @staticmethod
    def value(token: Token, keyword: int) -> tuple[str, int]:
        """The value after a keyword of `keyword` characters, and its offset in the token."""
        rest = str(token)[keyword:]
        stripped = rest.lstrip(" \t")
        return stripped.rstrip(), keyword + len(rest) - len(stripped)

    def bare(self, token: Token, keyword: str) -> None:
        """Block keywords stand alone on their line; their content goes on the lines below."""
        rest, offset = self.value(token, len(keyword))
        if rest:
            self.error(
                self.loc(token, offset, len(rest)),
                f"'{keyword}' stands alone on its line; put its content on the indented lines below",
            )

    def named(self, token: Token, keyword: str) -> str:
        name, _ = self.value(token, len(keyword))
        if not name:
            self.error(self.whole(token), f"'{keyword}' needs a name on the same line")
        return name

    def template(
        self, token: Token, text: str, base: int = 0, location: SourceLocation | None = None
    ) -> TextTemplate | None:
        try:
            return text_template(text, self.locator(token, base), location)
        except TemplateError as problem:
            self.error(self.loc(token, base + problem.offset, 2), str(problem))
            return None


# ------------------------------------------------------------ key: value lines (grammar: entry, bad)


def bad(ctx: BuildContext, children: Children) -> None:
    # A line the parser could not place, already reported (lark_parser.py's recovery): nothing.
    return None


def read_entry(ctx: BuildContext, children: Children) -> Entry:
    """A `name: value` line (grammar: entry), with the entries of a block nested under it."""
    children = present(children)
    token = children[0]
    text = str(token)
    colon = text.find(":")
    if colon < 0:  # `petId = 1`: BerryCrush's call children take `=` too
        colon = text.find("=")
    if colon < 0:
        return Entry(token, text.strip(), "", len(text), children[1:] or None)
    value, offset = ctx.value(token, colon + 1)
    return Entry(token, text[:colon].strip(), value, offset, children[1:] or None)


def flat(ctx: BuildContext, entries: list[Entry], what: str) -> list[Entry]:
    """Entries of a block that takes no nesting: an indented block under one is an error."""
    for item in entries:
        if item.children:
            ctx.error(
                ctx.loc(item.children[0].token),
                f"{what} lines do not nest; write each as `name: value` at one level",
            )
        if ":" not in str(item.token) and "=" not in str(item.token):
            ctx.error(ctx.whole(item.token), f"expected a `name: value` line in {what}")
    return [e for e in entries if ":" in str(e.token) or "=" in str(e.token)]
