"""The Masker: learns secret values as a run reveals them (variables, headers, `secrets`) and masks
events and text with the rules of support/secrets.py (what is secret, how it is masked).

What it learns of one value is bounded: the value and its secret_forms, each made from the value
itself -- never a form of a form, which for a value holding `\\`, `"` or a control character
grew without end. A value is long or short (masked anywhere, or as a whole value
only) by its own length, and so are all its forms.

Cost: learning a secret is O(1); masking text costs one pass per regex group, whatever the
number of secrets (long ones are found by report/long_secrets.py, short ones by a set lookup per
candidate token). JSON values are walked iteratively.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable, Mapping, cast, overload
from urllib.parse import unquote, unquote_plus, urlsplit

from scenario_core.language.parameter_keys import SECRETS as SECRETS_PARAMETER
from scenario_core.report.long_secrets import LongSecrets
from scenario_core.run import events
from scenario_core.run.consumers import EventConsumer
from scenario_core.run.edits import VariableEdited
from scenario_core.support.json_depth import MAX_DEPTH, cut_marker
from scenario_core.support.secrets import (  # noqa: F401 (the rules the Masker applies, re-exported)
    AUTH_HEADERS,
    ELLIPSIS,
    ESCAPED_JSON_STRING,
    HEADER_LINE,
    JSON_FIELD,
    JSON_SCALAR,
    JSON_STRING,
    LONG_SECRET_LENGTH,
    MASK,
    MIN_SECRET_LENGTH,
    PATH_SEGMENT,
    QUERY_FIELD,
    SECRET_HEADERS,
    SECRET_NAME,
    SECRET_NAME_PARTS,
    USERINFO,
    is_secret_header,
    is_secret_variable,
    mask_cookie_pair,
    mask_header_value,
    mask_headers,
    mask_json_fields,
    mask_lowered_header_value,
    mask_query_fields,
    mask_text,
    mask_userinfo,
    mask_variables,
    secret_forms,
)

# A name in a JSON path (`$.json.password`, `$['api-key']`, `$..tokens[0]`).
_PATH_NAME = re.compile(r"[A-Za-z_][\w-]*")
_MAX_VERDICTS = 1024  # header names (and JSON paths) judged and remembered, at most


def _kept(verdicts: dict[str, bool], key: str, verdict: bool) -> bool:
    """Remember `verdict` for `key`; past _MAX_VERDICTS (a server inventing header names) the
    table starts again."""
    if len(verdicts) >= _MAX_VERDICTS:
        verdicts.clear()
    verdicts[key] = verdict
    return verdict


class Masker(EventConsumer):
    """Scrubs text with what it has learnt: the secret values seen so far in the run.

    Feed it as the run goes (`learn_variables`, `learn_headers`, or `feed` with executor events); `enabled=False` (--show-secrets) makes every method return its input unchanged.
    `names`: more secret names (the `secrets` parameter), for variables, headers, fields and
    query parameters.
    """

    def __init__(self, values: Iterable[object] = (), enabled: bool = True, names: Iterable[str] = ()):
        self.enabled = enabled  # off (--show-secrets) it still learns: the TUI can turn it on again
        self._values: set[str] = set()  # the values learnt, as given (stripped)
        self._long = LongSecrets()
        self._long_forms: set[str] = set()  # the forms in _long
        self._short: set[str] = set()  # the forms of short values
        self._names: frozenset[str] = frozenset()
        self._literal_segments: set[str] = set()  # path segments the file writes (routes)
        self._run_variables: Mapping[str, object] = {}
        # Every request and response asks about the same few header names: answered once each.
        self._header_verdicts: dict[str, bool] = {}
        self._path_verdicts: dict[str, bool] = {}  # an extraction's JSON path: ends in a secret name?
        self._templates_seen: set[str] = set()  # URL templates whose segments were taken
        self.learn_names(names)
        for value in values:
            self.learn(value)

    # ---- learning

    def learn(self, value: object) -> None:
        """Remember a secret value, whatever its JSON type: strings, numbers, and the scalars of
        lists and objects (walked iteratively: a value may be nested a thousand levels deep)."""
        stack = [value]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                self._learn_text(item)
            elif isinstance(item, bool) or item is None:
                continue  # `true` is no secret worth bullets everywhere
            elif isinstance(item, (int, float)):
                self._learn_text(json.dumps(item))
            elif isinstance(item, Mapping):
                stack.extend(item.values())
            elif isinstance(item, (list, tuple)):
                stack.extend(item)

    def _learn_text(self, value: str) -> None:
        value = value.strip()
        if not value or value in self._values:
            return
        self._values.add(value)
        if len(value) < LONG_SECRET_LENGTH:
            self._short.update(secret_forms(value))
            return
        for form in secret_forms(value):
            if form not in self._long_forms:
                self._long_forms.add(form)
                self._long.add(form)

    def learn_names(self, names: Iterable[str]) -> None:
        """More secret names; run variables of those names already seen are learnt at once."""
        new = frozenset(n.lower() for n in names) - self._names
        if not new:
            return
        self._names |= new
        self._header_verdicts.clear()
        self._path_verdicts.clear()
        for name, value in self._run_variables.items():
            if name.lower() in new:
                self.learn(value)

    def is_secret_name(self, name: str) -> bool:
        return is_secret_variable(name) or name.lower() in self._names

    def is_secret_header(self, name: str) -> bool:
        verdict = self._header_verdicts.get(name)
        if verdict is None:
            verdict = _kept(self._header_verdicts, name, is_secret_header(name) or name.lower() in self._names)
        return verdict

    def learn_variables(self, variables: Mapping[str, object]) -> None:
        for name, value in variables.items():
            self.learn_variable(name, value)

    def learn_variable(self, name: str, value: object) -> None:
        if self.is_secret_name(name):
            self.learn(value)

    def learn_headers(self, headers: Iterable[tuple[str, str]]) -> None:
        verdicts = self._header_verdicts  # (is_secret_header's, read here first: twice a request)
        for name, value in headers:
            verdict = verdicts.get(name)
            if not (self.is_secret_header(name) if verdict is None else verdict):
                continue
            lowered = name.lower()
            if lowered in AUTH_HEADERS:
                scheme, sep, credentials = value.strip().partition(" ")
                self.learn(credentials if sep else value)
            elif lowered in ("cookie", "set-cookie"):
                for pair in value.split(";") if lowered == "cookie" else value.split(";")[:1]:
                    cookie = pair.partition("=")[2].strip()
                    if len(cookie) > 2 and cookie[0] == cookie[-1] == '"':  # `sid="abc"` (RFC 6265): abc
                        cookie = cookie[1:-1]
                    self.learn(cookie)
            else:
                self.learn(value)

    def learn_url(self, url: str, template: str | None = None) -> None:
        """A URL's userinfo password, and the `Basic` credentials an HTTP client makes of it;
        the literal path segments of its template as written (routes, not secrets)."""
        if "@" in url:
            try:
                parts = urlsplit(url)
                user, password = parts.username, parts.password
            except ValueError:
                user = password = None
            if password:
                self.learn(password)
                self.learn(unquote(password))
                pair = f"{unquote(user or '')}:{unquote(password)}".encode()
                import base64  # (a URL with a password only)

                self.learn(base64.b64encode(pair).decode("ascii"))
        if template and template not in self._templates_seen:
            self._templates_seen.add(template)
            path = template.partition("?")[0].partition("#")[0]
            self._literal_segments.update(s for s in path.split("/") if s and "{{" not in s)

    def _from_request(self, event: events.RequestSent) -> None:
        self.learn_headers(event.headers)
        url = getattr(getattr(event.step, "url", None), "text", None)
        self.learn_url(event.url, url)
        self.learn_fields(event.url)
        self.learn_fields(event.body)

    def _from_response(self, event: events.ResponseReceived) -> None:
        self.learn_headers(event.headers)
        self.learn_fields(event.body)

    def _from_extraction(self, event: events.VariableExtracted) -> None:
        self.learn_variable(event.name, event.value)
        if self._extracts_a_secret(event.step):  # `extract: pw from $.json.password`
            self.learn(event.value)

    def _from_run_start(self, event: events.RunStarted) -> None:
        self._run_variables = event.run_variables
        self.learn_variables(event.run_variables)

    def _from_parameters(self, event: events.FileStarted | events.FeatureStarted | events.ScenarioStarted) -> None:
        self.learn_parameters(event.parameters)

    def _from_edit(self, event: VariableEdited) -> None:  # set while paused (edit and continue): a secret by its name
        self.learn_variable(event.name, event.new)

    def learn_fields(self, text: str | None) -> None:
        """The long values of secret JSON fields and query or form fields in a body or URL: the
        field is masked by name, and now its value wherever it is copied (an echo, a variable
        extracted under another name). Short ones are not learnt: a false positive name
        (`sortKey: "name"`) would mask every whole `"name"` of the run."""
        if not text or (not self._names and SECRET_NAME.search(text) is None):  # most bodies: one scan
            return
        found: list[str] = []
        if '"' in text:
            for match in JSON_FIELD.finditer(text):
                if len(match.group(3)) >= LONG_SECRET_LENGTH and self.is_secret_name(match.group(1)):
                    try:
                        found.append(json.loads(f'"{match.group(3)}"'))
                    except ValueError:  # not valid JSON text after all: as it stands
                        found.append(match.group(3))
        if "=" in text:
            for match in QUERY_FIELD.finditer(text):
                if len(match.group(3)) >= LONG_SECRET_LENGTH and self.is_secret_name(match.group(2)):
                    found.append(unquote_plus(match.group(3)))
        for value in found:
            if len(value.strip()) >= LONG_SECRET_LENGTH:
                self.learn(value)

    def _extracts_a_secret(self, step: object) -> bool:
        """An extraction from a secret header or a cookie, or from a JSON path whose last name is secret."""
        path = getattr(step, "path", None)
        if not isinstance(path, str):
            return False
        if getattr(step, "source", None) == "header":
            return self.is_secret_header(path)
        if getattr(step, "source", None) == "cookie":  # Cookie and Set-Cookie values are masked: so is one extracted
            return True
        verdict = self._path_verdicts.get(path)
        if verdict is None:
            names = _PATH_NAME.findall(path)
            verdict = _kept(self._path_verdicts, path, bool(names) and self.is_secret_name(names[-1]))
        return verdict

    def learn_parameters(self, parameters: Mapping[str, object]) -> None:
        """The `secrets` parameter of effective parameters (names accumulate over the run)."""
        effective = parameters.get(SECRETS_PARAMETER) if parameters else None
        names = getattr(effective, "value", effective)
        if names:
            self.learn_names(cast("Iterable[str]", names))  # its spec parses a list of names

    @property
    def secrets(self) -> frozenset[str]:
        """The values learnt."""
        return frozenset(self._values)

    @property
    def forms(self) -> frozenset[str]:
        """Every string masked: the values learnt and their secret_forms."""
        return frozenset(self._short | self._long_forms)

    @property
    def names(self) -> frozenset[str]:
        return self._names

    # ---- scrubbing

    @overload
    def text(self, text: str) -> str: ...
    @overload
    def text(self, text: None) -> None: ...
    def text(self, text: str | None) -> str | None:
        """Mask every learnt value, and secret JSON fields and query parameters, in text."""
        if not self.enabled or not text:
            return text
        if self._long:
            text = self._long.sub(text)
            if ELLIPSIS in text:
                text = self._long.clipped(text)
        if self._short:
            text = self._whole_values(text)
        return mask_text(text, self._names)

    def _whole_values(self, text: str) -> str:
        """Short secrets, only where one stands as a whole value: each candidate is a set lookup."""
        short = self._short

        def json_string(match: re.Match[str]) -> str:
            inner = match.group(1)
            return f'"{MASK}"' if inner.strip() in short else match.group(0)

        def escaped_json_string(match: re.Match[str]) -> str:
            """A JSON string in a JSON string (an echoed body): its text is one level deeper."""
            try:
                inner = json.loads(f'"{match.group(1)}"')
            except ValueError:
                return match.group(0)
            return f'\\"{MASK}\\"' if inner.strip() in short else match.group(0)

        def scalar(match: re.Match[str]) -> str:
            return match.group(1) + MASK if match.group(2) in short else match.group(0)

        def segment(match: re.Match[str]) -> str:
            value = match.group(1)
            if value in self._literal_segments:
                return value
            return MASK if value in short or unquote(value) in short else value

        def query(match: re.Match[str]) -> str:
            value = match.group(3)
            if value and (value in short or unquote_plus(value) in short):
                return f"{match.group(1)}{match.group(2)}={MASK}"
            return match.group(0)

        def header(match: re.Match[str]) -> str:
            value = match.group(2)
            scheme, sep, credentials = value.partition(" ")
            if value in short or (sep and credentials.strip() in short):
                return match.group(1) + (f"{scheme} {MASK}" if sep and credentials.strip() in short else MASK)
            return match.group(0)

        if '"' in text:
            text = JSON_STRING.sub(json_string, text)
            if '\\"' in text:
                text = ESCAPED_JSON_STRING.sub(escaped_json_string, text)
        text = JSON_SCALAR.sub(scalar, text)
        if "/" in text:
            text = PATH_SEGMENT.sub(segment, text)
        if "=" in text:
            text = QUERY_FIELD.sub(query, text)
        if ":" in text:
            text = HEADER_LINE.sub(header, text)
        if text.strip() in short:  # the whole text is the value (a header value, a cell)
            return MASK
        return text

    def headers(self, headers: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
        if not self.enabled:
            return tuple(headers)
        shown = []
        for name, value in headers:
            if self.is_secret_header(name):
                value = mask_lowered_header_value(name.lower(), value)
            shown.append((name, self.text(value)))
        return tuple(shown)

    def value(self, value: object, name: str | None = None) -> object:
        """A JSON-like value with secret names masked and learnt secrets scrubbed from its
        strings, at any depth. Returns new containers; the input is never mutated. Walked
        iteratively; levels deeper than MAX_DEPTH are cut (json_depth's marker), even unmasked, so what
        is printed or written next (json.dumps recurses) never meets a RecursionError."""
        masking = self.enabled
        if masking and name is not None and self.is_secret_name(name):
            return MASK
        result: list[object] = [None]
        # (source, container to fill, key or index in it, depth): a dict and its key or a list
        # and its index, which no one type spells: the pair is always one or the other
        stack: list[tuple[object, Any, Any, int]] = [(value, result, 0, 0)]
        while stack:
            item, parent, slot, depth = stack.pop()
            if isinstance(item, str):
                parent[slot] = self.text(item) if masking else item
            elif isinstance(item, Mapping):
                if depth >= MAX_DEPTH:
                    parent[slot] = cut_marker(MAX_DEPTH)
                    continue
                copy: dict[object, object] = {}
                parent[slot] = copy
                for k, v in item.items():
                    if masking and isinstance(k, str) and self.is_secret_name(k):
                        copy[k] = MASK
                    else:
                        copy[k] = None  # keeps the key order
                        stack.append((v, copy, k, depth + 1))
            elif isinstance(item, (list, tuple)):
                if depth >= MAX_DEPTH:
                    parent[slot] = cut_marker(MAX_DEPTH)
                    continue
                items = [None] * len(item)
                parent[slot] = items
                stack.extend((v, items, i, depth + 1) for i, v in enumerate(item))
            elif (
                masking
                and isinstance(item, (int, float))
                and not isinstance(item, bool)
                and json.dumps(item) in self._values
            ):
                parent[slot] = MASK  # a learnt number (`--var apiKey=31415926`) copied elsewhere
            else:
                parent[slot] = item
        return result[0]

    def variables(self, variables: Mapping[str, object]) -> dict[str, object]:
        return {k: self.value(v, k) for k, v in variables.items()}


# What each kind of event teaches the Masker; other events teach nothing. Fed every event (`feed`), it learns run variables, extracted secret variables, secret headers
# sent or received, URL credentials and the `secrets` parameter.
Masker.receivers = {
    events.RequestSent: Masker._from_request,
    events.ResponseReceived: Masker._from_response,
    events.VariableExtracted: Masker._from_extraction,
    events.RunStarted: Masker._from_run_start,
    events.FileStarted: Masker._from_parameters,
    events.FeatureStarted: Masker._from_parameters,
    events.ScenarioStarted: Masker._from_parameters,
    VariableEdited: Masker._from_edit,
}
