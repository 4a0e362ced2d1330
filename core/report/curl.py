"""A request as sent, written as a curl command a shell runs as is: `y` in the TUI copies it.

Pure: it reads a RequestSent event (method, final URL, headers and body after interpolation) and
quotes every word with shlex.quote, so quotes, `$`, spaces and newlines in a value reach curl
unchanged. Secrets are masked when a Masker is given (the TUI passes its own, which `v` turns off):
a copied command must not leak a token into a chat or a ticket by default.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scenario_core.report.masking import Masker
    from scenario_core.run.events import RequestSent

# Headers curl computes itself from what it sends: copying them would only risk a wrong length.
_COMPUTED = frozenset({"content-length", "host"})


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
    words = [f"{first} {shlex.quote(url)}"]
    for name, value in headers:
        if name.lower() not in _COMPUTED:
            words.append("-H " + shlex.quote(f"{name}: {value}"))
    if body is not None:
        words.append("--data-raw " + shlex.quote(body))
    return " \\\n  ".join(words)
