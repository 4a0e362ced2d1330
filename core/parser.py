"""Reading `.scenario` text into a syntax tree: lark's LALR parser with an indentation post-lexer,
the builder running inside the parse (no intermediate tree), syntax errors made readable."""

from __future__ import annotations

import difflib
import gc
import hashlib
import os
import stat
import threading
from pathlib import Path

from lark import Lark, Token
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.indenter import Indenter

from . import input_files
from .builder import Builder
from .errors import Diagnostic, InvalidFileError, UsageError
from .line_lexer import KEYWORDS, OTHER_TOKENS, WORD_NAMES, LineLexer
from .nodes import ScenarioFileNode, SourceLocation

_GRAMMAR = Path(__file__).with_name("grammar.lark")

# A scenario file is text a person writes: anything larger is a mistake (a log, an image, a
# device) that must be refused at once rather than read into memory.
MAX_FILE_BYTES = 50 * 1024 * 1024


class IndentationProblem(Exception):
    def __init__(self, message: str, line: int, column: int):
        super().__init__(message)
        self.line, self.column = line, column


class _Indenter(Indenter):
    NL_type = "_NL"
    OPEN_PAREN_types: list[str] = []
    CLOSE_PAREN_types: list[str] = []
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 8

    def handle_NL(self, token: Token):
        # The line lexer sends a line break only where the indentation changes, and it is not
        # passed on: every line is one token, so only indentation changes carry structure.
        # The last segment of a line break is pure indentation.
        indent_str = token[token.rfind("\n") + 1:]
        if "\t" in indent_str:
            raise IndentationProblem(
                "a tab in indentation; indent with spaces", token.end_line, indent_str.index("\t") + 1
            )
        indent = len(indent_str)
        levels = self.indent_level
        if indent > levels[-1]:
            levels.append(indent)
            yield Token.new_borrow_pos(self.INDENT_type, indent_str, token)
            return
        if indent == levels[-1]:
            return
        # Named before the dedents below pop them; the text is only built for a bad line.
        stray = None if indent in levels else " or ".join(str(level) for level in levels)
        while indent < levels[-1]:
            levels.pop()
            yield Token.new_borrow_pos(self.DEDENT_type, indent_str, token)
        # The dedents go first: the parser closes the finished blocks and the builder reports
        # their errors too.
        if stray is not None:
            raise IndentationProblem(
                f"this line's indentation ({indent} space{'' if indent == 1 else 's'}) matches no enclosing block "
                f"(expected {stray} spaces)",
                token.end_line, indent + 1,
            )


_builder = Builder()
_lock = threading.Lock()  # the builder runs inside lark's parse and holds per-parse state
_lark: Lark | None = None


def _private_cache_file(grammar: str) -> str | None:
    """Where the LALR tables may be cached: a file in the user's own cache directory
    (`$XDG_CACHE_HOME/scenario-tui`, else `~/.cache/scenario-tui`), created 0700. lark's cache is
    a pickle, and unpickling runs code: lark's default place, a predictable name in the shared
    `$TMPDIR`, lets whoever writes it first run code as the next user. So the directory must be
    ours and closed to others, and the file ours and writable by no one else; otherwise no
    cache (the tables are built in memory, ~0.1 s)."""
    if not hasattr(os, "getuid"):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if not os.path.isabs(base):
        return None
    directory = os.path.join(base, "scenario-tui")
    uid = os.getuid()
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        info = os.lstat(directory)
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != uid or info.st_mode & 0o077:
            return None
        import lark

        digest = hashlib.sha256(grammar.encode("utf-8")).hexdigest()[:16]
        path = os.path.join(directory, f"grammar-{digest}-lark{lark.__version__}.cache")
        if os.path.lexists(path):
            info = os.lstat(path)
            if not stat.S_ISREG(info.st_mode) or info.st_uid != uid or info.st_mode & 0o022:
                return None
        return path
    except OSError:  # a read-only or missing home: run without a cache
        return None


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


def parse_text(text: str, filename: str = "<text>", fragments: tuple = ()) -> ScenarioFileNode:
    """Parse and validate text; raises InvalidFileError holding every diagnostic found.
    `fragments`: FragmentNodes of .fragment files, available to `include` after the file's own."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    # A leading line break lets a comment stand on line 1; lines are shifted back when located.
    source = "\n" + text.rstrip() + "\n"
    with _lock:
        _builder.begin(filename, text, fragments)
        # The syntax tree is acyclic: pausing the cycle collector while half a million small
        # objects are made saves ~10% of a large file's parse and frees nothing less.
        collecting = gc.isenabled()
        gc.disable()
        try:
            tree = _parser().parse(source)
        except UnexpectedInput as error:
            _builder.diagnostics.append(_syntax_diagnostic(error, filename, source))
            tree = None
        except IndentationProblem as problem:
            location = SourceLocation(filename, problem.line - 1, problem.column, problem.line - 1, problem.column + 1)
            _builder.diagnostics.append(Diagnostic(location, str(problem)))
            tree = None
        except RecursionError:
            _builder.diagnostics.append(Diagnostic(SourceLocation(filename, 1, 1, 1, 1), "nested too deeply"))
            tree = None
        finally:
            if collecting:
                gc.enable()
        diagnostics = _builder.end()
    if diagnostics:
        raise InvalidFileError(diagnostics)
    assert isinstance(tree, ScenarioFileNode)
    return tree


def _usage_error(path: str | Path, problem: input_files.InputFileError, what: str) -> UsageError:
    if problem.cause == "kind":
        return UsageError(f"{path} {problem}; give a {what}")
    if problem.cause == "size":
        return UsageError(f"{path} {problem}, the limit of a {what}")
    return UsageError(f"{path}: {problem}")


def require_regular_file(path: str | Path, what: str = ".scenario file") -> None:
    """Refuse a directory, FIFO or device before anything opens it: UsageError, one line."""
    try:
        input_files.require_regular_file(path)
    except input_files.InputFileError as problem:
        raise _usage_error(path, problem, what) from None


def read_input(path: str | Path, what: str = ".scenario file", limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; UsageError, one line, otherwise."""
    try:
        return input_files.read_regular_file(path, limit)
    except input_files.InputFileError as problem:
        raise _usage_error(path, problem, what) from None


def load_file(path: str | Path, fragments: tuple[str, ...] | list[str] | None = ()) -> ScenarioFileNode:
    """Read and parse a file. Unreadable files are a UsageError, bad content an InvalidFileError.
    A .scenario file also sees the fragments of .fragment files (fragment_files.py): those under
    the nearest fragments/ folder and those `fragments` names (`--fragments`); None: none at all."""
    name = str(path)
    external: tuple = ()
    if fragments is not None and not name.endswith(".fragment"):
        from .fragment_files import fragment_files, load_fragments

        external = load_fragments(fragment_files(path, fragments))
    data = read_input(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise InvalidFileError([Diagnostic(
            SourceLocation(name, line, column, line, column + 1), "the file is not UTF-8 text"
        )]) from None
    return parse_text(text, name, external)


# ---------------------------------------------------------------- syntax errors

_KEYWORDS = {kind: keyword for keyword, kind in KEYWORDS.items()}
_DIRECTIVES = frozenset(("CALL", "ASSERT", "XEXTRACT", "XINCLUDE", "IF", "ELSE", "FAIL"))
_KEYWORDS.update({"STEP": "given/and/but", **{kind: name for kind, name in WORD_NAMES.items() if kind != "STEP"}})


def _expected(names: set[str]) -> list[str]:
    keywords = [k for name, k in _KEYWORDS.items() if name in names]
    others = [text for name, text in OTHER_TOKENS.items() if name in names]
    return keywords + others


def _syntax_diagnostic(error: UnexpectedInput, filename: str, source: str) -> Diagnostic:
    line = max(getattr(error, "line", 1) or 1, 1)
    column = max(getattr(error, "column", 1) or 1, 1)
    message = "syntax error"
    if isinstance(error, UnexpectedCharacters):
        text_line = source.splitlines()[line - 1] if line - 1 < len(source.splitlines()) else ""
        got = text_line[column - 1:].strip()
        expected = _expected(set(error.allowed or ()))
        message = f"unexpected '{_clip(got)}'"
        guess = _guess(got, expected)
        if guess:
            message += f"; did you mean '{guess}'?"
        elif expected:
            message += f"; expected {_alternatives(expected)}"
    elif isinstance(error, (UnexpectedToken, UnexpectedEOF)):
        token = getattr(error, "token", None)
        kind = getattr(token, "type", "$END")
        expected = _expected(set(getattr(error, "expected", ()) or ()))
        if kind == "_INDENT":
            line, column = token.end_line, len(str(token)) + 1
            message = "unexpected indentation"
            if expected:
                message += f"; expected {_alternatives(expected)} at the previous level"
        elif kind in ("_DEDENT", "$END"):
            message = "unexpected end of block"
            if expected:
                message += f"; expected {_alternatives(expected)}"
            if "_INDENT" in (getattr(error, "expected", ()) or ()):
                message = "expected an indented block below this line"
        else:
            got = _KEYWORDS.get(kind, str(token)).strip()
            if kind == "ENTRY":  # `When: GET /` read as a name: value line; the name is the point
                got = got[: got.index(":") + 1]
            got = got.split("\n", 1)[0]  # a """ block's token spans lines; a message has one
            message = f"'{_clip(got)}' is not allowed here"
            if kind in _DIRECTIVES:  # BerryCrush's `call`, `assert` … at a step's level
                message += ("; a directive stands indented under a step (when I create a pet), at the "
                            "indentation of the step's call: not at the step's own level, not under the call")
                expected = []
            guess = _guess(got, expected)
            if guess:
                message += f"; did you mean '{guess}'?"
            elif expected:
                message += f"; expected {_alternatives(expected)}"
    location = SourceLocation(filename, max(line - 1, 1), column, max(line - 1, 1), column + 1)
    return Diagnostic(location, message)


def _guess(text: str, expected: list[str]) -> str | None:
    """A keyword the line probably meant: `When:` for `when:`, `scenario x` for `scenario:`."""
    words = text.split()
    if not words or words[0] in expected:
        return None
    word = words[0].lower().rstrip(":") + ":"
    guess = difflib.get_close_matches(word, expected, n=1, cutoff=0.7)
    return guess[0] if guess else None


def _alternatives(options: list[str]) -> str:
    return options[0] if len(options) == 1 else ", ".join(options[:-1]) + " or " + options[-1]


def _clip(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
