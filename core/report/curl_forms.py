"""The curl words of a request's form bodies (report/curl.py): `form:` as `--data-urlencode`
words, `multipart:` as `--form-string` (text) and `-F name=@PATH;type=…` (file) words, and
`bodyFile:` as `--data-binary @PATH`. A file is named by its path as written in the scenario
(relative to the scenario file's folder, where the command is meant to run). The multipart
Content-Type header is left out: curl makes its own boundary."""

from __future__ import annotations

import json
import shlex
from typing import TYPE_CHECKING, Iterable
from urllib.parse import parse_qsl

if TYPE_CHECKING:
    from scenario_core.language.nodes.steps import FormField

_FILE_PART = " file "


def form_body_words(step: object, body: str) -> tuple[list[str], bool] | None:
    """(the words, whether the Content-Type header must go) for a form, multipart or bodyFile
    request; None for any other. `body` is the body as shown (masked when the command is)."""
    if getattr(step, "form", None) is not None:
        pairs = parse_qsl(body, keep_blank_values=True)
        return ["--data-urlencode " + shlex.quote(f"{name}={value}") for name, value in pairs], False
    parts = getattr(step, "multipart", None)
    if parts is not None:
        return _multipart_words(parts, body), True
    body_file = getattr(step, "body_file", None)
    if body_file is not None and getattr(step, "operation", None) is None and not body_file.refs:
        return ["--data-binary " + shlex.quote("@" + body_file.text)], False
    return None


def _multipart_words(parts: Iterable[FormField], body: str) -> list[str]:
    words: list[str] = []
    lines = body.split("\n")
    for part, line in zip(parts, lines):
        if part.file:
            path = part.value.text  # as written; a {{…}} in it shows as written
            media = f";type={part.media_type}" if part.media_type else ""
            words.append("-F " + shlex.quote(f"{part.name}=@{path}{media}"))
            continue
        _, _, shown = line.partition(": ")
        try:
            value = json.loads(shown)
        except ValueError:
            value = shown
        words.append("--form-string " + shlex.quote(f"{part.name}={value}"))
    return words
