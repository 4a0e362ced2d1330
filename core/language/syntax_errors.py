"""The messages of syntax errors: what the parser expected, named as a person writes it (`when:`,
`given/and/but`, `a name: value line`), and per block exactly what that block takes at that point
(`allowed_lines`), not the parser's merged view of several blocks; a did-you-mean for a keyword
written wrong (`When:` for `when:`, `scenario x` for `scenario:`)."""

from __future__ import annotations

from lark import Token
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from scenario_core.language.builder.dialects import REQUEST_LIKE
from scenario_core.language.errors import Diagnostic, clip
from scenario_core.language.line_lexer import KEYWORDS, OTHER_TOKENS, WORD_NAMES
from scenario_core.language.nodes.base import SourceLocation
from scenario_core.language.typo_hints import extract_typo, request_typo

# What each block takes, as a syntax error names it: `(parent token type, kinds seen) -> names`.
_STEPS = ["when:", "then:", "extract:", "include:", "given/and/but"]
_DIRECTIVE_NAMES = ["call", "assert", "extract", "include", "if", "else", "fail", "webhook:"]
_ENTRY_LINE = [OTHER_TOKENS["ENTRY"]]


def allowed_lines(parent: Token | None, seen: list[str]) -> list[str]:
    """The lines a block takes at this point (docs/spec/parameters.md#placement), for the message of a line
    that is not one of them: exact per block, not the parser's merged view of several blocks."""
    kind = parent.type if parent is not None else None
    if seen and seen[-1] == "TAG":  # after tags, only what takes them
        return (["feature:"] if kind is None else []) + ["scenario:", "outline:"]
    if kind is None:
        names = ["feature:", "scenario:"] + ([] if "SCENARIO" in seen or "OUTLINE" in seen else ["background:"])
        names += ["fragment:"] + (["parameters:"] if all(k == "PARAMETERS" for k in seen) else [])
        return names + ["outline:", "@tag"]
    if kind == "FEATURE":
        names = ["description:"] if all(k == "DESCRIPTION" for k in seen) else []
        names += ["parameters:"] if all(k in ("DESCRIPTION", "PARAMETERS") for k in seen) else []
        names += [] if "SCENARIO" in seen or "OUTLINE" in seen else ["background:"]
        return names + ["scenario:", "outline:", "@tag"]
    if kind in ("SCENARIO", "OUTLINE"):
        return (["parameters:"] if not seen else []) + _STEPS + (["examples:"] if kind == "OUTLINE" else [])
    if kind in ("BACKGROUND", "FRAGMENT"):
        return list(_STEPS)
    if kind == "WHEN":
        text = str(parent)[len("when:") :].strip()
        if text.startswith(("^", "using ")):
            return ["headers:", "query:", "body:", OTHER_TOKENS["ENTRY"]]
        if REQUEST_LIKE.match(text):
            return ["headers:", "query:", "body:"]
        return list(_DIRECTIVE_NAMES)
    if kind in ("THEN", "STEP", "IF", "ELSE", "FINALLY"):
        return list(_DIRECTIVE_NAMES)
    if kind == "CALL":
        return _ENTRY_LINE + ["headers:", "query:", "body:"]
    if kind == "EXAMPLES":
        return ["a table row (| Fluffy | 3 |)"]
    if kind in ("BODY", "LINE"):
        return [OTHER_TOKENS["LINE"]]
    return list(_ENTRY_LINE)  # parameters:, headers:, query:, include's and webhook's settings


_KEYWORDS = {kind: keyword for keyword, kind in KEYWORDS.items()}
_DIRECTIVES = frozenset(("CALL", "ASSERT", "XEXTRACT", "XINCLUDE", "IF", "ELSE", "FAIL"))
_KEYWORDS.update({"STEP": "given/and/but", **{kind: name for kind, name in WORD_NAMES.items() if kind != "STEP"}})


def _expected(names: set[str]) -> list[str]:
    keywords = [k for name, k in _KEYWORDS.items() if name in names]
    others = [text for name, text in OTHER_TOKENS.items() if name in names]
    return keywords + others


def syntax_diagnostic(
    error: UnexpectedInput, filename: str, source: str, allowed: list[str] | None = None
) -> Diagnostic:
    """`allowed`: what the block takes (`allowed_lines`), named instead of the parser's expected set."""
    line = max(getattr(error, "line", 1) or 1, 1)
    column = max(getattr(error, "column", 1) or 1, 1)
    message = "syntax error"
    if isinstance(error, UnexpectedCharacters):
        text_line = source.splitlines()[line - 1] if line - 1 < len(source.splitlines()) else ""
        got = text_line[column - 1 :].strip()
        expected = _expected(set(error.allowed or ()))
        message = f"unexpected '{clip(got)}'"
        guess = _guess(got, expected)
        if guess:
            message += f"; did you mean '{guess}'?"
        elif expected:
            message += f"; expected {_alternatives(expected)}"
    elif isinstance(error, (UnexpectedToken, UnexpectedEOF)):
        token = getattr(error, "token", None)
        kind = getattr(token, "type", "$END")
        expected = allowed if allowed is not None else _expected(set(getattr(error, "expected", ()) or ()))
        if kind == "_INDENT":
            assert token is not None  # its kind is the token's
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
            message = f"'{clip(got)}' is not allowed here"
            slip = _slip(str(token).split("\n", 1)[0], expected)
            if slip is not None:  # `GETT /pets`, `extract token from $.token`: one slip from a step
                message = f"'{clip(str(token).strip())}' is not allowed here; did you mean '{clip(slip, 60)}'?"
                expected = []
            elif kind in _DIRECTIVES:  # BerryCrush's `call`, `assert` … at a step's level
                message += (
                    "; a directive stands indented under a step (when I create a pet), at the "
                    "indentation of the step's call: not at the step's own level, not under the call"
                )
                expected = []
            guess = _guess(got, expected)
            if guess:
                message += f"; did you mean '{guess}'?"
            elif expected:
                message += f"; expected {_alternatives(expected)}"
    location = SourceLocation(filename, max(line - 1, 1), column, max(line - 1, 1), column + 1)
    return Diagnostic(
        location, message, code="indentation" if message.startswith("unexpected indentation") else "syntax"
    )


def _slip(line: str, expected: list[str]) -> str | None:
    """Where our steps may go, a line one slip from one: the step it meant (typo_hints.py)."""
    if "when:" not in expected:
        return None
    return request_typo(line) or extract_typo(line, ours=True)


def _guess(text: str, expected: list[str]) -> str | None:
    """A keyword the line probably meant: `When:` for `when:`, `scenario x` for `scenario:`."""
    words = text.split()
    if not words or words[0] in expected:
        return None
    word = words[0].lower().rstrip(":") + ":"
    import difflib  # only for a hint: not imported by every start-up

    guess = difflib.get_close_matches(word, expected, n=1, cutoff=0.7)
    return guess[0] if guess else None


def _alternatives(options: list[str]) -> str:
    return options[0] if len(options) == 1 else ", ".join(options[:-1]) + " or " + options[-1]
