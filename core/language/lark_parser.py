"""lark's side of reading `.scenario` text into a syntax tree (parser.py is the front door, and
imports this module only when no cached tree will do): lark's LALR parser with an indentation
post-lexer, the builder running inside the parse (no intermediate tree), syntax errors made
readable.

Every error at once (docs/spec/steps.md#every-error-at-once). A valid file takes lark's own parse loop, unchanged. A file
that stops it is read a second time, from the start, by `_recovering_parse`: the same tables and
builder, fed token by token through lark's interactive parser. A line the parser cannot place is
reported, skipped with the lines indented below it, and replaced by a `BAD` token that every
block of the grammar accepts as a child (grammar.lark: `bad`), so the parser's state stays whole
and reading goes on at the next line of the same or a lower indentation; an indentation problem
(a tab, a stray dedent) is reported and its lines skipped the same way. Each token is fed once
and each skipped one passed over once: linear, however many errors (no re-parse per error).

Why this and not the alternatives, measured on bench/check_large_file.py (50,000 lines):
- A valid file's parse is as fast as before the recovery existed: best of 9 in process 0.516 s
  against 0.517 s, start-up with the (larger) tables 0.099 s against 0.097 s, and the bench's
  ratio 1.48 against 1.43 on the same loaded machine, within its run-to-run noise. Reading every
  file with the recovering loop instead cost 2-3% more on a valid file (0.527 s against lark's
  own loop's 0.513 s), so it runs only after lark's parse has failed: a second read of a file
  with errors costs its user nothing they would notice.
- Linear on errors: 50,000 lines that are each a syntax error take ~1 s, 101 lines printed.
- lark's `on_error` hook would need the same BAD token and the same stream of tokens to skip
  from, behind a less direct interface; the interactive parser is what it drives anyway.
- Splitting the file into top-level blocks (column 1) and parsing each alone cost 3-6% more on
  a valid file (best of 7: 0.533-0.553 s against 0.519 s, the split and a parse call per block),
  recovers only at the next block when the issue's own example has all of its errors in one
  scenario, and splits the builder's whole-file checks (fragments, placement) across parses.
The grammar's BAD alternatives add no work to a valid file: no token of a valid file is BAD.
"""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path
from typing import Iterator

from lark import Lark, Token
from lark.exceptions import UnexpectedInput, UnexpectedToken
from lark.indenter import Indenter

from scenario_core.language.builder.transformer import Builder
from scenario_core.language.errors import Diagnostic, clip
from scenario_core.language.line_lexer import LineLexer
from scenario_core.language.nodes.base import SourceLocation
from scenario_core.language.nodes.blocks import ExternalBlocks, ScenarioFileNode
from scenario_core.language.parse_cache import private_cache_directory, trusted_entry
from scenario_core.language.syntax_errors import allowed_lines, syntax_diagnostic

_GRAMMAR = Path(__file__).with_name("grammar.lark")


class IndentationProblem(Exception):
    def __init__(self, message: str, line: int | None, column: int):
        super().__init__(message)
        self.line, self.column = line, column


TAB_IN_INDENTATION = "a tab in indentation; indent with spaces"


def stray_indentation(indent: int, levels: list[int]) -> str:
    """The message of a line whose indentation opens no block and closes to none (both parses)."""
    return (
        f"this line's indentation ({indent} space{'' if indent == 1 else 's'}) matches no enclosing block "
        f"(expected {' or '.join(str(level) for level in levels)} spaces)"
    )


class _Indenter(Indenter):
    NL_type = "_NL"
    OPEN_PAREN_types: list[str] = []
    CLOSE_PAREN_types: list[str] = []
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 8

    def handle_NL(self, token: Token) -> Iterator[Token]:
        # The line lexer sends a line break only where the indentation changes, and it is not
        # passed on: every line is one token, so only indentation changes carry structure.
        # The last segment of a line break is pure indentation.
        indent_str = token[token.rfind("\n") + 1 :]
        if "\t" in indent_str:
            raise IndentationProblem(TAB_IN_INDENTATION, token.end_line, indent_str.index("\t") + 1)
        indent = len(indent_str)
        levels = self.indent_level
        if indent > levels[-1]:
            levels.append(indent)
            yield Token.new_borrow_pos(self.INDENT_type, indent_str, token)
            return
        if indent == levels[-1]:
            return
        # Named before the dedents below pop them; the text is only built for a bad line.
        stray = None if indent in levels else stray_indentation(indent, levels)
        while indent < levels[-1]:
            levels.pop()
            yield Token.new_borrow_pos(self.DEDENT_type, indent_str, token)
        # The dedents go first: the parser closes the finished blocks and the builder reports
        # their errors too.
        if stray is not None:
            raise IndentationProblem(stray, token.end_line, indent + 1)


_builder = Builder()
_lock = threading.Lock()  # the builder runs inside lark's parse and holds per-parse state
_lark: Lark | None = None


def _private_cache_file(grammar: str) -> str | None:
    """Where the LALR tables may be cached: a file in the user's private cache directory
    (parse_cache.private_cache_directory). lark's cache is a pickle, and unpickling runs code:
    lark's default place, a predictable name in the shared `$TMPDIR`, lets whoever writes it first
    run code as the next user. So the file must be ours and writable by no one else; otherwise
    no cache (the tables are built in memory, ~0.1 s)."""
    directory = private_cache_directory()
    if directory is None:
        return None
    import lark

    digest = hashlib.sha256(grammar.encode("utf-8")).hexdigest()[:16]
    path = os.path.join(directory, f"grammar-{digest}-lark{lark.__version__}.cache")
    try:
        if os.path.lexists(path):
            info = os.lstat(path)
            if not trusted_entry(info):
                return None
    except OSError:
        return None
    return path


def _parser() -> Lark:
    global _lark
    if _lark is None:
        grammar = _GRAMMAR.read_text(encoding="utf-8")
        cache = _private_cache_file(grammar)
        _lark = Lark(
            grammar,
            parser="lalr",
            lexer=LineLexer,
            postlex=_Indenter(),
            transformer=_builder,
            maybe_placeholders=False,
            cache=cache if cache is not None else False,  # never lark's shared-$TMPDIR default
        )
    return _lark


def parse_source(
    text: str, filename: str, fragments: ExternalBlocks
) -> tuple[ScenarioFileNode | None, list[Diagnostic]]:
    """The tree of `text` (line breaks already \\n) and every diagnostic found, unsorted and
    uncapped: with diagnostics, the tree is what was read around them (None when the parser
    could not go on to the end)."""
    # A leading line break lets a comment stand on line 1; lines are shifted back when located.
    source = "\n" + text.rstrip() + "\n"
    with _lock:
        _builder.begin(filename, text, fragments)
        tree: object  # what the Builder's start rule built; lark's signature says a Tree
        try:
            try:
                tree = _parser().parse(source)
            except (UnexpectedInput, IndentationProblem):
                # Read again from the start, reporting every error: what the failed parse's
                # builder found so far would be found again, so it is dropped.
                _builder.begin(filename, text, fragments)
                tree = _recovering_parse(source, filename, _builder.diagnostics)
                if tree is None and not _builder.diagnostics:  # never expected: still one located line
                    _builder.diagnostics.append(
                        Diagnostic(SourceLocation(filename, 1, 1, 1, 1), "syntax error", code="syntax")
                    )
        except RecursionError:
            _builder.diagnostics.append(Diagnostic(SourceLocation(filename, 1, 1, 1, 1), "nested too deeply"))
            tree = None
        diagnostics = _builder.end()
    return (tree if isinstance(tree, ScenarioFileNode) else None), diagnostics


# ---------------------------------------------------------------- recovering after errors


class _Recovering:
    """The line lexer's tokens through the indentation rules of `_Indenter`, for the recovering
    parse: a tab or a stray dedent is reported (not raised) and the lines it holds are skipped,
    and the parser may skip the rest of a line and the lines indented below it."""

    def __init__(self, source: str, filename: str, diagnostics: list[Diagnostic]):
        self.filename, self.diagnostics = filename, diagnostics
        self.levels = [0]  # the indentation of each open block
        # None; -1: lines indented with a tab; k: lines below a stray or unexpected line at k
        self.skipping: int | None = None
        self.tokens = self._indented(LineLexer.lex(None, source))  # type: ignore[arg-type]
        self.peeked: Token | None = None

    def report(self, line: int | None, column: int, message: str) -> None:
        assert line is not None  # the line lexer places every token
        location = SourceLocation(self.filename, line - 1, column, line - 1, column + 1)
        self.diagnostics.append(Diagnostic(location, message, code="indentation"))

    def _indented(self, tokens: Iterator[Token]) -> Iterator[Token]:
        levels = self.levels
        for token in tokens:
            if token.type != "_NL":
                if self.skipping is None:
                    yield token
                continue
            indent_str = token[token.rfind("\n") + 1 :]
            if "\t" in indent_str:
                self.report(token.end_line, indent_str.index("\t") + 1, TAB_IN_INDENTATION)
                self.skipping = -1
                continue
            indent = len(indent_str)
            skipping = self.skipping
            if skipping is not None and skipping >= 0 and indent > skipping and indent not in levels:
                continue  # indented below the skipped line: part of it
            self.skipping = None
            if indent > levels[-1]:
                levels.append(indent)
                yield Token.new_borrow_pos("_INDENT", indent_str, token)
            elif indent in levels:
                while indent < levels[-1]:
                    levels.pop()
                    yield Token.new_borrow_pos("_DEDENT", indent_str, token)
            elif indent != levels[-1]:
                # The open blocks stay open: the lines after it at their indentation go on in them.
                self.report(token.end_line, indent + 1, stray_indentation(indent, levels))
                self.skipping = indent
        while len(levels) > 1:  # the lexer closes at indentation 0; this is only a safeguard
            levels.pop()
            yield Token("_DEDENT", "")

    def __iter__(self) -> _Recovering:
        return self

    def __next__(self) -> Token:
        if self.peeked is not None:
            token, self.peeked = self.peeked, None
            return token
        return next(self.tokens)

    def drop_indent(self) -> None:
        """An _INDENT just taken opens no block: its lines, and the lines below them not at an
        open block's indentation, are skipped; the levels are those before it."""
        self.levels.pop()
        self.skipping = self.levels[-1]

    def skip_block(self) -> None:
        """Everything up to the _DEDENT that closes an _INDENT just taken."""
        depth = 1
        for token in self.tokens:
            if token.type == "_INDENT":
                depth += 1
            elif token.type == "_DEDENT":
                depth -= 1
                if not depth:
                    return

    def skip_line(self, token: Token) -> None:
        """The rest of `token`'s line (a tag's line goes on) and the lines indented below it."""
        end_line = token.end_line
        for following in self.tokens:
            if following.type == "_INDENT":
                self.skip_block()
                return
            if following.type == "_DEDENT":
                self.peeked = following
                return
            line = following.line
            assert line is not None and end_line is not None  # the line lexer places every line
            if line > end_line:
                self.peeked = following
                return


def _recovering_parse(source: str, filename: str, diagnostics: list[Diagnostic]) -> ScenarioFileNode | None:
    """Parse, reporting each syntax and indentation error and going on after it (module
    docstring); None when the parser cannot go on (then the errors found so far stand)."""
    state = _parser().parse_interactive("").parser_state
    tokens = _Recovering(source, filename, diagnostics)
    parents: list[Token | None] = [None]  # the line that opened each open block
    seen: list[list[str]] = [[]]  # the kinds of lines taken in each open block
    last: Token | None = None  # the last line taken: the one above an _INDENT, a dangling tag

    def report(error: UnexpectedToken, allowed: list[str] | None) -> None:
        diagnostics.append(syntax_diagnostic(error, filename, source, allowed))

    def dangling_tag(error: UnexpectedToken) -> bool:
        """`@tag` with nothing after it at the end of a block: reported on the tag, left out."""
        if last is None or last.type != "TAG" or "BAD" not in (error.expected or ()):
            return False
        tags = str(last).strip()
        line, column = last.line, last.column
        assert line is not None and column is not None  # the line lexer places every token
        location = SourceLocation(filename, line - 1, column, line - 1, column + len(tags))
        diagnostics.append(
            Diagnostic(
                location,
                f"'{clip(tags)}' is not followed by a feature:, scenario: or "
                f"outline: line; tags go on the line before one",
                code="syntax",
            )
        )
        state.feed_token(Token.new_borrow_pos("BAD", "", last))
        return True

    for token in tokens:
        try:
            state.feed_token(token)
        except UnexpectedToken as error:
            kind = token.type
            if kind == "_INDENT":
                report(error, allowed_lines(parents[-1], seen[-1]))
                tokens.drop_indent()
                continue
            if kind == "_DEDENT":
                if not dangling_tag(error):
                    report(error, None)
                    return None
                try:
                    state.feed_token(token)
                except UnexpectedToken:
                    return None
            else:
                report(error, allowed_lines(parents[-1], seen[-1]))
                _builder.skipped(token)
                tokens.skip_line(token)
                try:
                    state.feed_token(Token.new_borrow_pos("BAD", "", token))
                except UnexpectedToken:
                    return None
                continue
        kind = token.type
        if kind == "_INDENT":
            parents.append(last)
            seen.append([])
        elif kind == "_DEDENT":
            parents.pop()
            seen.pop()
        else:
            seen[-1].append(kind)
            last = token
    end = Token.new_borrow_pos("$END", "", last) if last is not None else Token("$END", "", 0, 1, 1)
    tree: ScenarioFileNode  # what the Builder's start rule built (lark's signature leaves it untyped)
    try:
        tree = state.feed_token(end, True)
        return tree
    except UnexpectedToken as error:
        if not dangling_tag(error):
            report(error, None)
            return None
        try:
            tree = state.feed_token(end, True)
            return tree
        except UnexpectedToken:
            return None
