"""A command line as a POSIX shell splits it into words, for the commands browsers and API tools
copy: `'…'` (nothing escaped), `"…"` (`\\"`, `\\\\`, `\\$`, `` \\` `` and a line continuation
escaped), `$'…'` (C escapes: `\\n`, `\\t`, `\\xHH`, `\\uHHHH`, `\\'`…), a backslash outside
quotes, and `\\` at a line end joining lines. Windows' cmd style (`^"` and `^` at a line end) is
read too, as Chrome's "Copy as cURL (cmd)" writes it. Nothing is expanded or run: `$HOME` stays
text. Linear in the length of the command."""

from __future__ import annotations

_C_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "v": "\v"}
_SEPARATORS = " \t\r\n"
_HEX = "0123456789abcdefABCDEF"


class ShellWordsError(ValueError):
    """Why the command cannot be split, in one line."""


def _dollar_quoted(text: str, at: int) -> tuple[str, int]:
    """The text of `$'…'` starting after its opening quote, and the index after its closing one."""
    out: list[str] = []
    n = len(text)
    while at < n:
        ch = text[at]
        if ch == "'":
            return "".join(out), at + 1
        if ch != "\\" or at + 1 >= n:
            out.append(ch)
            at += 1
            continue
        escape = text[at + 1]
        at += 2
        if escape in _C_ESCAPES:
            out.append(_C_ESCAPES[escape])
        elif escape in ("x", "u", "U"):
            width = {"x": 2, "u": 4, "U": 8}[escape]
            digits = ""
            while len(digits) < width and at < n and text[at] in _HEX:
                digits += text[at]
                at += 1
            if not digits:
                out.append("\\" + escape)
            else:
                code = int(digits, 16)
                out.append(chr(code) if code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else "\ufffd")
        elif escape in "01234567":
            digits = escape
            while len(digits) < 3 and at < n and text[at] in "01234567":
                digits += text[at]
                at += 1
            out.append(chr(int(digits, 8) & 0xFF))
        elif escape in "\\'\"?":
            out.append(escape)
        else:
            out.append("\\" + escape)
    raise ShellWordsError("a $'…' quote is not closed")


def _is_cmd_style(text: str) -> bool:
    """Chrome's cmd copy: `curl ^"https://…^" ^` with `^` continuations and `^"` quotes. Only a
    `^` outside POSIX quotes counts: `'^"'` or `'^` + line break + `'` is a POSIX word."""
    end = len(text.rstrip())
    quote = ""  # the POSIX quote open at `at`: "'", '"', "$'" or none
    at = 0
    while at < end:
        ch = text[at]
        if quote == "'":
            quote = "" if ch == "'" else quote
        elif quote:  # "…" and $'…': a backslash escapes the next character
            if ch == "\\":
                at += 1
            elif ch == quote[-1]:
                quote = ""
        elif ch == "\\":
            at += 1
        elif ch in "'\"":
            quote = ch
        elif ch == "$" and text.startswith("$'", at):
            quote, at = "$'", at + 1
        elif ch == "^" and (at + 1 == end or text[at + 1] in '"\r\n'):
            return True
        at += 1
    return False


def _cmd_words(text: str) -> list[str]:
    """cmd's splitting as Chrome's copy needs it: first cmd's own escapes (`^X` is X, `^` at a
    line end joins lines), then the program's argument rules (`"…"` quotes, `\\"` a quote
    character, backslashes before a quote halved)."""
    plain: list[str] = []
    at, n = 0, len(text)
    while at < n:
        ch = text[at]
        if ch == "^" and at + 1 < n:
            if text[at + 1] == "\n":
                at += 2
                continue
            if text.startswith("\r\n", at + 1):
                at += 3
                continue
            plain.append(text[at + 1])
            at += 2
            continue
        plain.append(ch)
        at += 1
    line = "".join(plain)
    words: list[str] = []
    current: list[str] = []
    started = quoted = False
    at, n = 0, len(line)
    while at < n:
        ch = line[at]
        if ch == "\\":
            run = at
            while run < n and line[run] == "\\":
                run += 1
            count = run - at
            if run < n and line[run] == '"':
                current.append("\\" * (count // 2))
                if count % 2:
                    current.append('"')
                    run += 1
                at = run
            else:
                current.append("\\" * count)
                at = run
            started = True
            continue
        if ch == '"':
            quoted = not quoted
            started = True
            at += 1
            continue
        if ch in _SEPARATORS and not quoted:
            if started:
                words.append("".join(current))
                current, started = [], False
            at += 1
            continue
        current.append(ch)
        started = True
        at += 1
    if quoted:
        raise ShellWordsError('a " quote is not closed')
    if started:
        words.append("".join(current))
    return words


def shell_words(text: str) -> list[str]:
    """The words of a command line; ShellWordsError (one line) for an unclosed quote."""
    if _is_cmd_style(text) and "\\\n" not in text:
        return _cmd_words(text)
    words: list[str] = []
    current: list[str] = []
    started = False
    at, n = 0, len(text)
    while at < n:
        ch = text[at]
        if ch == "\\":
            if at + 1 >= n:
                at += 1
                continue
            following = text[at + 1]
            if following == "\n":  # a line continuation: nothing
                at += 2
            elif text.startswith("\r\n", at + 1):
                at += 3
            else:
                current.append(following)
                started = True
                at += 2
            continue
        if ch == "'":
            end = text.find("'", at + 1)
            if end < 0:
                raise ShellWordsError("a ' quote is not closed")
            current.append(text[at + 1 : end])
            started = True
            at = end + 1
            continue
        if ch == "$" and at + 1 < n and text[at + 1] == "'":
            value, at = _dollar_quoted(text, at + 2)
            current.append(value)
            started = True
            continue
        if ch == '"':
            at += 1
            while True:
                if at >= n:
                    raise ShellWordsError('a " quote is not closed')
                inner = text[at]
                if inner == '"':
                    at += 1
                    break
                if inner == "\\" and at + 1 < n and text[at + 1] in '"\\$`\n':
                    if text[at + 1] != "\n":
                        current.append(text[at + 1])
                    at += 2
                    continue
                current.append(inner)
                at += 1
            started = True
            continue
        if ch in _SEPARATORS:
            if started:
                words.append("".join(current))
                current, started = [], False
            at += 1
            continue
        if ch == "#" and not started:  # a comment to the end of the line
            end = text.find("\n", at)
            at = n if end < 0 else end
            continue
        current.append(ch)
        started = True
        at += 1
    if started:
        words.append("".join(current))
    return words
