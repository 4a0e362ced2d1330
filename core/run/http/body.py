"""A response body as the client reads it: its content codings (gzip, deflate) decoded under the
size cap, its text (the charset the Content-Type names) and its JSON. No I/O here: the client
feeds the pieces as they arrive."""

from __future__ import annotations

import json
import re
import sys
from typing import TYPE_CHECKING, Sequence

from scenario_core.run.http.errors import one_line
from scenario_core.support.patterns import on_first_use

if TYPE_CHECKING:
    from scenario_core.support.json_types import JsonValue


class TooLarge(Exception):
    """A body over maxResponseSize; the message names what was over."""


class BadEncoding(Exception):
    """A body its Content-Encoding cannot decode."""


CODINGS = ("gzip", "x-gzip", "deflate")  # what Inflater decodes (and the client accepts)
_INFLATE_STEP = 1 << 20


class Inflater:
    """One content coding, decoded with a bound on its output. zlib's max_length stops a small
    gzip bomb from inflating past the cap in one call, and steps of at most 1 MiB keep zlib's
    own output buffer (joined at the end of each call) from doubling a large piece in memory."""

    __slots__ = ("coding", "zlib", "started")

    def __init__(self, coding: str):
        import zlib

        self.coding = coding
        self.zlib = zlib.decompressobj(zlib.MAX_WBITS | 16 if coding != "deflate" else zlib.MAX_WBITS)
        self.started = False

    def inflate(self, data: bytes, room: int) -> list[bytes]:
        """The decoded pieces of `data`; TooLarge past `room` bytes."""
        import zlib

        out = []
        while True:
            step = min(room, _INFLATE_STEP) + 1
            try:
                try:
                    piece = self.zlib.decompress(data, step)
                except zlib.error:
                    if self.coding != "deflate" or self.started:
                        raise
                    self.zlib = zlib.decompressobj(-zlib.MAX_WBITS)  # "deflate" sent raw, without zlib's header
                    piece = self.zlib.decompress(data, step)
            except zlib.error as error:
                raise BadEncoding(f"the response body is not valid {self.coding}: {one_line(error)}") from None
            self.started = True
            room -= len(piece)
            if room < 0:
                raise TooLarge(f"the response body, decoded ({self.coding}),")
            if piece:
                out.append(piece)
            data = self.zlib.unconsumed_tail
            if not data and len(piece) < step:  # all input used, no output held back
                return out

    def flush(self, room: int) -> list[bytes]:
        out = self.zlib.flush()  # empty or small: inflate() drained what its input held
        if len(out) > room:
            raise TooLarge(f"the response body, decoded ({self.coding}),")
        return [out] if out else []


def decode_into(
    pieces: list[bytes], size: int, parts: list[bytes], decoders: Sequence[Inflater], max_size: int, label: str
) -> int:
    """Run parts through the decoders (the last coding applied first), append them to pieces;
    the new decoded size."""
    for decoder in decoders:
        parts = [out for part in parts for out in decoder.inflate(part, max_size - size)]
    for part in parts:
        size += len(part)
        if size > max_size:
            raise TooLarge(f"the response body, decoded ({label}),")
        pieces.append(part)
    return size


_CHARSET = re.compile(r"charset\s*=\s*[\"']?([\w.:-]+)", re.IGNORECASE)
_charsets: dict[str, str] = {}  # Content-Type -> its charset: a run's responses have few of them


def decode_text(content: bytes, headers: tuple[tuple[str, str], ...]) -> str:
    """The body as text: the charset the Content-Type names, else UTF-8; undecodable bytes replaced.
    (httpx's `.text` parses the header with the email package on every response: slow.)"""
    charset = "utf-8"
    for name, value in headers:
        if name.lower() == "content-type":
            known = _charsets.get(value)
            if known is None:
                found = _CHARSET.search(value)
                known = found.group(1) if found else charset
                if len(_charsets) >= 64:
                    _charsets.clear()
                _charsets[value] = known
            charset = known
            break
    try:
        return content.decode(charset, errors="replace")
    except LookupError:  # an unknown charset
        return content.decode("utf-8", errors="replace")


_DIGITS = on_first_use(r"value has (\d+) digits")


def parse_json(content: bytes) -> tuple[JsonValue, str | None]:
    """(value, None) when the body is JSON, else (None, why not). Never raises: a server's body
    may be anything, including JSON that Python declines to read (see below)."""
    if not content.strip():
        return None, "the response body is empty"
    try:
        return json.loads(content), None
    except RecursionError:  # the C decoder gives up at the interpreter's recursion limit
        return None, f"the response JSON is nested too deeply to read (over {sys.getrecursionlimit()} levels)"
    except ValueError as error:
        if not isinstance(error, json.JSONDecodeError):
            # Integers over sys.get_int_max_str_digits() (4,300 digits) are refused because
            # converting them takes quadratic time; a server must not be able to stall a run so.
            found = _DIGITS().search(str(error))
            if "integer string conversion" in str(error):
                digits = f" of {found.group(1)} digits" if found else ""
                limit = getattr(sys, "get_int_max_str_digits", lambda: 4300)()
                return None, f"the response JSON has an integer{digits}, over Python's limit of {limit} digits"
            return None, f"the response body is not JSON ({one_line(error)})"
        return None, f"the response body is not JSON ({error.msg} at line {error.lineno} column {error.colno})"
    except Exception as error:  # whatever else a decoder may raise: a failed step, never a crash
        return None, f"the response body is not JSON ({type(error).__name__}: {one_line(error)})"
