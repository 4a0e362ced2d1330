"""Encoding the form bodies of a request (docs/spec/requests.md#body-forms):
`application/x-www-form-urlencoded` (names and values percent-encoded as browsers do, spaces as
`+`, in written order, a name may repeat) and `multipart/form-data` (RFC 7578: one part a field,
a fresh random boundary that no part holds)."""

from __future__ import annotations

import os
from typing import NamedTuple, Sequence
from urllib.parse import quote_plus

FORM_TYPE = "application/x-www-form-urlencoded"
MULTIPART_TYPE = "multipart/form-data"


class Part(NamedTuple):
    """One part of a multipart body: a text field (filename None) or a file's bytes."""

    name: str
    data: bytes
    filename: str | None = None
    media_type: str | None = None


def urlencoded(fields: Sequence[tuple[str, str]]) -> str:
    """`name=Rex&tag=dog&tag=cat`: UTF-8, percent-encoded, spaces as `+`."""
    return "&".join(f"{quote_plus(name)}={quote_plus(value)}" for name, value in fields)


def _quoted(text: str) -> str:
    """A name or filename in a Content-Disposition: quotes, backslashes and line breaks escaped
    as browsers do (RFC 7578 §4.2), so no value can end its header early."""
    return text.replace("\\", "\\\\").replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")


def multipart(parts: Sequence[Part], boundary: str | None = None) -> tuple[bytes, str]:
    """The body and its Content-Type (with the boundary)."""
    while True:
        # os.urandom(16).hex() is what secrets.token_hex(16) does, without importing random and hmac
        chosen = boundary or f"----scenario-tui-{os.urandom(16).hex()}"
        marker = chosen.encode("ascii")
        if boundary is not None or not any(marker in part.data for part in parts):
            break
    chunks: list[bytes] = []
    for part in parts:
        disposition = f'form-data; name="{_quoted(part.name)}"'
        if part.filename is not None:
            disposition += f'; filename="{_quoted(part.filename)}"'
        head = f"--{chosen}\r\nContent-Disposition: {disposition}\r\n"
        if part.filename is not None or part.media_type:
            head += f"Content-Type: {part.media_type or 'application/octet-stream'}\r\n"
        chunks += [head.encode("utf-8"), b"\r\n", part.data, b"\r\n"]
    chunks.append(f"--{chosen}--\r\n".encode("ascii"))
    return b"".join(chunks), f"{MULTIPART_TYPE}; boundary={chosen}"
