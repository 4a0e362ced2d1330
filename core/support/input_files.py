"""Reading an input file (a scenario, a fragment, an OpenAPI description) safely: only a
regular file, and never more than a limit. Opening a FIFO blocks until a writer comes and
`/dev/zero` never ends, so both are refused before a byte is read; a file past the limit is
refused unread, or, should it grow while read, as soon as it passes the limit."""

from __future__ import annotations

import os
import stat


class InputFileError(Exception):
    """Why the file can't be read, as a phrase that follows its path: `is a FIFO, not a regular
    file`, `is larger than 50 MB`, `cannot be read: Permission denied`. `cause` is "kind",
    "size" or "os", for callers that say what to do about each."""

    def __init__(self, phrase: str, cause: str):
        super().__init__(phrase)
        self.cause = cause


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "is a directory"
    if stat.S_ISFIFO(mode):
        return "is a FIFO, not a regular file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "is a device, not a regular file"
    return "is not a regular file"


def size_text(count: int) -> str:
    return f"{count // (1024 * 1024)} MB" if count >= 1024 * 1024 else f"{count} bytes"


def require_regular_file(path: str | os.PathLike[str]) -> os.stat_result:
    """The file's status, or InputFileError when it is no regular file (or can't be seen)."""
    try:
        info = os.stat(path)
    except OSError as error:
        raise InputFileError(f"cannot be read: {error.strerror or error}", "os") from None
    if not stat.S_ISREG(info.st_mode):
        raise InputFileError(_kind(info.st_mode), "kind")
    return info


def read_regular_file(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of a regular file of at most `limit` bytes."""
    info = require_regular_file(path)
    if info.st_size > limit:
        raise InputFileError(f"is larger than {size_text(limit)}", "size")
    try:
        # O_NONBLOCK: should the path be swapped for a FIFO after the check, open() still returns.
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as error:
        raise InputFileError(f"cannot be read: {error.strerror or error}", "os") from None
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise InputFileError(_kind(mode), "kind")
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(descriptor, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as error:
        raise InputFileError(f"cannot be read: {error.strerror or error}", "os") from None
    finally:
        os.close(descriptor)
    if total > limit:  # it grew while read
        raise InputFileError(f"is larger than {size_text(limit)}", "size")
    return b"".join(chunks)
