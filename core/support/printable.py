"""Text from a file or a server, made safe to print: a terminal, the TUI and CI logs must show
control characters, never obey them (`ESC[2J` clears a screen, an OSC sequence retitles the
window, `\\r` overwrites a line with a fake `✓`). Reports use their own formats' escaping
(JSON escapes everything; `xml_safe` keeps JUnit XML valid)."""

from __future__ import annotations

import re

from scenario_core.support.patterns import on_first_use

# C0 and C1 controls, DEL, line/paragraph separators, bidirectional overrides and isolates
# (which reorder what follows them on screen), zero-width characters that can hide text.
_OTHERS = "\x7f-\x9f\u2028\u2029\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff"
_UNSAFE_INLINE = on_first_use(f"[\x00-\x1f{_OTHERS}]")
_UNSAFE_BLOCK = on_first_use(f"[\x00-\x08\x0b-\x1f{_OTHERS}]")  # keeps \t and \n
# XML 1.0 allows tab, LF, CR and everything from U+0020 except surrogates, U+FFFE and U+FFFF.
_XML_FORBIDDEN = on_first_use("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """One line of text with every control character shown as an escape (`\\x1b`, `\\n`
    as `\\x0a`, `\\u2028`): for status lines, messages, names, header values."""
    # str.isprintable is False for each character escaped here: most text needs no regex at all
    if text.isprintable() or _UNSAFE_INLINE().search(text) is None:
        return text
    return _UNSAFE_INLINE().sub(_escape, text)


def visible_block(text: str) -> str:
    """Multi-line text (a body): line breaks and tabs kept, every other control character
    shown as an escape; a lone `\\r` too, so it cannot return the cursor over a line."""
    text = text.replace("\r\n", "\n")
    if _UNSAFE_BLOCK().search(text) is None:
        return text
    return _UNSAFE_BLOCK().sub(_escape, text)


_UNSAFE_JSON = on_first_use(f"[{_OTHERS}]")  # json.dumps already escapes \x00-\x1f


def visible_json(text: str) -> str:
    """JSON text (from json.dumps) with what json.dumps leaves raw (DEL, C1 controls, `\\u2028`,
    bidi overrides...) written as `\\uXXXX`: still valid JSON, and it says the same."""
    if _UNSAFE_JSON().search(text) is None:
        return text
    return _UNSAFE_JSON().sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def xml_safe(text: str) -> str:
    """Text that XML 1.0 accepts: each forbidden character written as a visible escape."""
    if _XML_FORBIDDEN().search(text) is None:
        return text
    return _XML_FORBIDDEN().sub(_escape, text)
