"""What may be sent as an HTTP header name: a token of RFC 9110 §5.1 (letters, digits and a
few marks; no space, colon or control character). One rule for `check` (a name written in the
file) and for the transport (every name a request sends, however it was made)."""

from __future__ import annotations

import re

HEADER_NAME_CHARACTERS = "letters, digits and !#$%&'*+-.^_`|~ only"
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")


def is_header_name(name: str) -> bool:
    return _TOKEN.fullmatch(name) is not None
