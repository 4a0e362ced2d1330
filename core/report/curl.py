"""A request as sent, written as a curl command a shell runs as is: `y` in the TUI copies it.

Pure: it reads a RequestSent event (method, final URL, headers and body after interpolation) and
quotes every word with shlex.quote, so quotes, `$`, spaces and newlines in a value reach curl
unchanged. Secrets are masked when a Masker is given (the TUI passes its own, which `v` turns off):
a copied command must not leak a token into a chat or a ticket by default. The run's
`Accept-Encoding: gzip, deflate` becomes `--compressed` (so the body prints decoded) and its
`Connection: keep-alive` is left out.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from scenario_core.report.curl_forms import form_body_words

if TYPE_CHECKING:
    from scenario_core.report.masking import Masker
    from scenario_core.run.events import RequestSent

# Headers curl computes itself from what it sends: copying them would only risk a wrong length.
_COMPUTED = frozenset({"content-length", "host"})
# The run's default Accept-Encoding (run.http.request): `--compressed` asks for these (curl adds
# what else it decodes) and, unlike the bare header, makes curl print the body decoded.
_OUR_ENCODINGS = frozenset({"gzip", "deflate"})


def _codings(value: str) -> set[str]:
    return {part.split(";")[0].strip().lower() for part in value.split(",") if part.strip()}


def _header_words(headers: tuple[tuple[str, str], ...]) -> tuple[list[str], bool]:
    """The `-H` words, and whether the command needs `--compressed`. `Connection: keep-alive` is
    left out: curl keeps a connection open by default, and a one-shot command has nothing to reuse."""
    words, compressed = [], False
    for name, value in headers:
        lower = name.lower()
        if lower in _COMPUTED or (lower == "connection" and value.strip().lower() == "keep-alive"):
            continue
        if lower == "accept-encoding":
            codings = _codings(value)
            compressed = compressed or bool(codings & _OUR_ENCODINGS)
            if codings and codings <= _OUR_ENCODINGS:  # curl's own header covers these
                continue
        words.append("-H " + shlex.quote(f"{name}: {value}"))
    return words, compressed


def curl_command(request: RequestSent, masker: Masker | None = None) -> str:
    """`curl -X POST 'http://…/pets' -H 'Content-Type: application/json' --data-raw '{…}'`, one
    option per line (joined by ` \\` continuations) so a long command stays readable."""
    url, headers, body = request.url, tuple(request.headers), request.body
    if masker is not None:
        url = masker.text(url) or url
        headers = masker.headers(headers)
        body = masker.text(body) if body is not None else None
    first = "curl"
    if request.method != "GET" or body is not None:
        first += f" -X {shlex.quote(request.method)}"
    forms = form_body_words(request.step, body) if body is not None else None  # form:, multipart:, bodyFile:
    if forms is not None and forms[1]:  # curl writes a multipart body with its own boundary
        headers = tuple((n, v) for n, v in headers if n.lower() != "content-type")
    header_words, compressed = _header_words(headers)
    words = [f"{first} {shlex.quote(url)}", *(["--compressed"] if compressed else []), *header_words]
    if forms is not None:
        words += forms[0]
    elif body is not None:
        words.append("--data-raw " + shlex.quote(body))
    return " \\\n  ".join(words)
