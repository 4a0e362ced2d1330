"""The guard between the editor's standard input and pygls: pygls reads `Content-Length` frames
itself and trusts them (a `Content-Length: 99999999999999` is allocated and kills the server with
MemoryError; a frame without the header makes it read the body as the next header, and every later
frame with it; a body that is not JSON-RPC prints a traceback). `FramedInput` reads the real
stream and hands pygls only well-formed frames of JSON-RPC messages, rewritten canonically:

- a frame header without a valid `Content-Length` (missing, negative, not a number, or over
  MAX_FRAME_BYTES), or bytes that are not a header at all: one log line, then everything up to
  the next `Content-Length:` header is skipped, in bounded reads, and serving goes on from there;
- a body that is not JSON: answered ParseError (id null, as JSON-RPC 2.0 says), one log line;
- JSON that is not a JSON-RPC 2.0 message: answered InvalidRequest (with its id when it has a
  usable one; a response from the client is never answered), one log line.

The answers go out through `LockedOutput`, the one writer pygls also writes through, so a whole
message is written at a time whichever thread writes it (pygls reads in a worker thread)."""

from __future__ import annotations

import json
import logging
import re
import threading
from typing import BinaryIO

logger = logging.getLogger("scenario_tui.lsp")

# The largest frame read: an editor's biggest message is a whole document (didOpen, or didChange
# without incremental sync), and JSON escaping at most doubles it for ordinary text; 64 MiB is
# over 50 times our 50,000-line benchmark file (bench/check_large_file.py, 1.2 MB), while one
# frame plus its parsed JSON stays a few hundred MB at worst instead of whatever a header says.
MAX_FRAME_BYTES = 64 * 1024 * 1024
MAX_HEADER_LINE = 64 * 1024  # a longer "line" is read in pieces of this size (skipped input)
MAX_HEADERS = 16  # LSP defines two header fields; more in one frame is not a frame

PARSE_ERROR, INVALID_REQUEST = -32700, -32600
_ERROR_NAMES = {PARSE_ERROR: "ParseError", INVALID_REQUEST: "InvalidRequest"}

_HEADER = re.compile(rb"([A-Za-z0-9-]+):[ \t]*(.*?)[ \t]*\r?\n")
_MARKER = re.compile(rb"content-length:", re.IGNORECASE)
_CARRY = len(b"content-length:") - 1  # what a piece keeps of the last so a split marker is found


class LockedOutput:
    """Standard output as pygls's writer and the guard's: each write is one whole message."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()

    def write(self, data: bytes) -> None:
        with self._lock:
            self._stream.write(data)
            self._stream.flush()

    def flush(self) -> None:
        with self._lock:
            self._stream.flush()

    def close(self) -> None:
        with self._lock:
            self._stream.close()


class FramedInput:
    """A reader with the two calls pygls makes (`readline`, then `read` of the announced length)
    that yields only well-formed frames of JSON-RPC messages; see the module's docstring."""

    def __init__(self, raw: BinaryIO, output: LockedOutput) -> None:
        self._raw = raw
        self._output = output
        self._frame = b""  # the canonical frame pygls is reading
        self._at = 0

    # ---------------------------------------------------------------- what pygls calls

    def readline(self) -> bytes:
        if self._at >= len(self._frame):
            body = self._next_body()
            if body is None:
                return b""  # end of input: pygls stops serving
            self._frame, self._at = b"Content-Length: %d\r\n\r\n" % len(body) + body, 0
        end = self._frame.find(b"\n", self._at)
        end = len(self._frame) if end < 0 else end + 1
        line, self._at = self._frame[self._at : end], end
        return line

    def read(self, size: int = -1) -> bytes:
        end = len(self._frame) if size < 0 else min(len(self._frame), self._at + size)
        data, self._at = self._frame[self._at : end], end
        return data

    # ---------------------------------------------------------------- frames

    def _next_body(self) -> bytes | None:
        """The next body that is a JSON-RPC message; None at the end of input."""
        while True:
            length = self._next_header()
            if length is None:
                return None
            body = self._raw.read(length)
            if len(body) < length:
                return None  # the input ended inside the body
            if self._acceptable(body):
                return body

    def _next_header(self) -> int | None:
        """Reads one frame's header; returns its content length (None at the end of input).
        A bad header is logged once and skipped, with what follows it, up to the next one."""
        length: int | None = None
        headers = 0
        skipping = False
        line = self._raw.readline(MAX_HEADER_LINE)
        while line:
            problem, header = None, None
            if not line.strip():  # the blank line that ends a header
                if length is not None:
                    return length
                if headers:
                    problem = "a frame header without Content-Length"
            elif (header := _HEADER.fullmatch(line)) is None:
                problem = "input that is not a frame header"
            elif header.group(1).lower() != b"content-length":
                headers += 1  # Content-Type, or a field of a later version: not ours to judge
                problem = "too many header fields" if headers > MAX_HEADERS else None
            elif not header.group(2).isdigit():
                problem = f"Content-Length {_shown(header.group(2))} is not a length"
            elif len(header.group(2)) > 12 or int(header.group(2)) > MAX_FRAME_BYTES:  # int() refuses 4,300 digits
                problem = f"Content-Length {_shown(header.group(2))} is over the limit of {MAX_FRAME_BYTES} bytes"
            else:
                length, headers = int(header.group(2)), headers + 1
            if problem is None:
                line = self._raw.readline(MAX_HEADER_LINE)
                continue
            if not skipping:  # one line for a run of bad input, however many bad headers it holds
                logger.warning("scenario-tui lsp: %s; skipping input to the next Content-Length header", problem)
            length, headers, skipping = None, 0, True
            line = self._skip_to_marker(line if header is None else b"")
        return None

    def _skip_to_marker(self, line: bytes) -> bytes:
        """Drops input up to the next `Content-Length:` (searched in `line` first, and anywhere
        in a line: a frame without a header leaves its body on the next header's line); returns
        the header line that starts there, or b"" at the end of input."""
        carry = b""
        while True:
            if line:
                seen = carry + line
                found = _MARKER.search(seen)
                if found is not None:
                    rest = seen[found.start() :]
                    if not rest.endswith(b"\n"):
                        rest += self._raw.readline(MAX_HEADER_LINE)
                    return rest
                carry = b"" if line.endswith(b"\n") else seen[-_CARRY:]
            line = self._raw.readline(MAX_HEADER_LINE)
            if not line:
                return b""

    # ---------------------------------------------------------------- messages

    def _acceptable(self, body: bytes) -> bool:
        """Whether `body` is a JSON-RPC 2.0 message for pygls; if not, answers it and logs one line."""
        try:
            message = json.loads(body)
        except (ValueError, RecursionError) as error:  # UnicodeDecodeError is a ValueError
            self._refuse(PARSE_ERROR, f"the message is not JSON ({_first_line(error)})", None)
            return False
        problem = _not_json_rpc(message)
        if problem is None:
            return True
        ident = message.get("id") if isinstance(message, dict) else None
        if isinstance(message, dict) and "method" not in message and ("result" in message or "error" in message):
            logger.warning("scenario-tui lsp: ignored a response that is not JSON-RPC 2.0 (%s)", problem)
            return False  # JSON-RPC never answers a response
        self._refuse(
            INVALID_REQUEST, f"the message is not JSON-RPC 2.0 ({problem})", ident if _usable_id(ident) else None
        )
        return False

    def _refuse(self, code: int, reason: str, ident: object) -> None:
        logger.warning("scenario-tui lsp: answered %s: %s", _ERROR_NAMES[code], reason)
        answer = json.dumps({"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": reason}}).encode()
        try:
            self._output.write(b"Content-Length: %d\r\n\r\n" % len(answer) + answer)
        except (OSError, ValueError):  # the client has gone, or the server is closing its output
            pass


def _not_json_rpc(message: object) -> str | None:
    """Why `message` is not a JSON-RPC 2.0 request, notification or response; None if it is."""
    if not isinstance(message, dict):
        return f"a JSON {type(message).__name__}, not an object"
    if message.get("jsonrpc") != "2.0":
        return 'no "jsonrpc": "2.0"'
    if "method" in message:
        if not isinstance(message["method"], str):
            return "the method is not a string"
        if "id" in message and not _usable_id(message["id"]):
            return "the id is not an integer or a string"
        if "params" in message and not isinstance(message["params"], (dict, list)):
            return "the params are not an object or an array"
        return None
    if "id" not in message or not (_usable_id(message["id"]) or message["id"] is None):
        return "neither a method nor the id of a response"
    if ("result" in message) == ("error" in message):
        return "a response needs a result or an error"
    error = message.get("error")
    if "error" in message and not (
        isinstance(error, dict) and _is_int(error.get("code")) and isinstance(error.get("message"), str)
    ):
        return "the error has no integer code and string message"
    return None


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _usable_id(value: object) -> bool:
    return _is_int(value) or isinstance(value, str)


def _shown(value: bytes) -> str:
    text = value.decode("utf-8", "replace")
    return repr(text if len(text) <= 40 else text[:40] + "...")


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
