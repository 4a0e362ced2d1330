"""The secret rules, in one place: the headless runner, the reports and the TUI all mask through
here, so what counts as a secret never differs between what is printed and what is written.

What is secret:
- the values of the headers `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie`
  (names compare case-insensitively);
- the values of variables whose name contains `token`, `secret`, `password` or `key`, in any
  case (`apiKey`, `TOKEN`, `db_password`; also `monkey` -- a false positive is cheaper than a leak);
- in JSON text and URLs, the values of fields / query parameters with such names
  (`{"token": "..."}`, `?api_key=...`), so a login response prints safely before anything
  was extracted from it;
- anywhere in other text (URLs, bodies, messages): every string value the Masker has learnt is
  secret (secret variables, secret header values), when it is at least 4 characters long --
  shorter values would mask innocent text everywhere; also a learnt secret's 4+ character
  prefix cut short by a `…` (messages clip long values).

How it is masked: the value is replaced by MASK, a fixed run of bullets, so neither the content
nor the length leaks. The only hint kept is what is not secret: the auth scheme
(`Bearer ••••••`) and cookie names and attributes (`session=••••••; Path=/`).
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

from . import events

MASK = "••••••"
SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie"})
SECRET_NAME_PARTS = ("token", "secret", "password", "key")
MIN_SECRET_LENGTH = 4
ELLIPSIS = "…"  # how messages and excerpts mark clipped text

_AUTH_HEADERS = frozenset({"authorization", "proxy-authorization"})
_SECRET_NAME = re.compile("|".join(SECRET_NAME_PARTS), re.IGNORECASE)
# "name": "value" in JSON text (also when the text is cut short, as in a printed excerpt).
_JSON_FIELD = re.compile(r'"((?:[^"\\]|\\.)*)"(\s*:\s*)"((?:[^"\\]|\\.)*)"')
# name=value in a query string or form body.
_QUERY_FIELD = re.compile(r"(^|[?&;])([^=&;?#\s]+)=([^&;#\s]*)")


def is_secret_header(name: str) -> bool:
    return name.lower() in SECRET_HEADERS


def is_secret_variable(name: str) -> bool:
    """Also used for JSON field and query parameter names."""
    return _SECRET_NAME.search(name) is not None


def mask_header_value(name: str, value: str) -> str:
    """The value to show for a header: unchanged unless the header is secret."""
    lowered = name.lower()
    if lowered not in SECRET_HEADERS:
        return value
    if lowered in _AUTH_HEADERS:
        scheme, sep, credentials = value.strip().partition(" ")
        return f"{scheme} {MASK}" if sep and credentials.strip() else MASK
    if lowered == "cookie":  # a=1; b=2 -> a=••••••; b=••••••
        return "; ".join(_mask_cookie_pair(pair) for pair in value.split(";"))
    first, sep, attributes = value.partition(";")  # Set-Cookie: attributes (Path, HttpOnly) are not secret
    return _mask_cookie_pair(first) + (sep + attributes if sep else "")


def _mask_cookie_pair(pair: str) -> str:
    name, sep, _ = pair.strip().partition("=")
    return f"{name}={MASK}" if sep else MASK


def mask_headers(headers: Iterable[tuple[str, str]] | Mapping[str, str]) -> Any:
    """Pairs in, pairs out (a tuple); a mapping in, a dict out."""
    if isinstance(headers, Mapping):
        return {k: mask_header_value(k, v) for k, v in headers.items()}
    return tuple((k, mask_header_value(k, v)) for k, v in headers)


def mask_variables(variables: Mapping[str, Any]) -> dict[str, Any]:
    """Secret names get MASK whatever their value; other values are kept as they are (nested
    fields with secret names included: use Masker.variables to scrub those too)."""
    return {k: (MASK if is_secret_variable(k) else v) for k, v in variables.items()}


def mask_json_fields(text: str) -> str:
    """`"token": "abc"` -> `"token": "••••••"` in JSON text, however it is formatted."""

    def replace(match: re.Match) -> str:
        if not is_secret_variable(match.group(1)):
            return match.group(0)
        return f'"{match.group(1)}"{match.group(2)}"{MASK}"'

    return _JSON_FIELD.sub(replace, text) if '"' in text else text


def mask_query_fields(text: str) -> str:
    """`?api_key=abc&x=1` -> `?api_key=••••••&x=1`."""

    def replace(match: re.Match) -> str:
        if not match.group(3) or not is_secret_variable(match.group(2)):
            return match.group(0)
        return f"{match.group(1)}{match.group(2)}={MASK}"

    return _QUERY_FIELD.sub(replace, text) if "=" in text else text


class Masker:
    """Scrubs text with what it has learnt: the secret values seen so far in the run.

    Feed it as the run goes (`learn_variables`, `learn_headers`, or `learn_event` with executor
    events); `enabled=False` (--show-secrets) makes every method return its input unchanged.
    """

    def __init__(self, values: Iterable[Any] = (), enabled: bool = True):
        self.enabled = enabled
        self._values: set[str] = set()
        self._pattern: re.Pattern | None = None
        self._dirty = False
        for value in values:
            self.learn(value)

    # ---- learning

    def learn(self, value: Any) -> None:
        """Remember a secret value; strings shorter than MIN_SECRET_LENGTH and non-strings
        (numbers, lists...) are not searched for in text, only masked by name."""
        if isinstance(value, str):
            value = value.strip()
            if len(value) >= MIN_SECRET_LENGTH and value not in self._values:
                self._values.add(value)
                self._dirty = True

    def learn_variables(self, variables: Mapping[str, Any]) -> None:
        for name, value in variables.items():
            self.learn_variable(name, value)

    def learn_variable(self, name: str, value: Any) -> None:
        if is_secret_variable(name):
            self.learn(value)

    def learn_headers(self, headers: Iterable[tuple[str, str]]) -> None:
        for name, value in headers:
            lowered = name.lower()
            if lowered not in SECRET_HEADERS:
                continue
            if lowered in _AUTH_HEADERS:
                scheme, sep, credentials = value.strip().partition(" ")
                self.learn(credentials if sep else value)
            else:
                for pair in value.split(";") if lowered == "cookie" else value.split(";")[:1]:
                    self.learn(pair.partition("=")[2])

    def learn_event(self, event: Any) -> None:
        """Learn from an executor event: run variables, extracted secret variables, secret
        headers sent or received."""
        kind = type(event)  # exact types: this runs for every event of a run
        if kind is events.RequestSent or kind is events.ResponseReceived:
            self.learn_headers(event.headers)
        elif kind is events.VariableExtracted:
            self.learn_variable(event.name, event.value)
        elif kind is events.RunStarted:
            self.learn_variables(event.run_variables)

    @property
    def secrets(self) -> frozenset[str]:
        return frozenset(self._values)

    # ---- scrubbing

    def text(self, text: str | None) -> str | None:
        """Mask every learnt value, and secret JSON fields and query parameters, in text."""
        if not self.enabled or not text:
            return text
        if self._dirty:
            # Longest first, so a secret containing another is masked whole.
            ordered = sorted(self._values, key=len, reverse=True)
            self._pattern = re.compile("|".join(map(re.escape, ordered))) if ordered else None
            self._dirty = False
        if self._pattern is not None:
            text = self._pattern.sub(MASK, text)
            if ELLIPSIS in text:
                text = self._clipped(text)
        return mask_query_fields(mask_json_fields(text))

    def _clipped(self, text: str) -> str:
        """Messages clip long values with `…`: a secret cut there leaves a prefix that the
        whole-value search cannot see, so mask any learnt secret's prefix right before a `…`."""
        parts = text.split(ELLIPSIS)
        for i, part in enumerate(parts[:-1]):
            for secret in self._values:
                for k in range(min(len(secret) - 1, len(part)), MIN_SECRET_LENGTH - 1, -1):
                    if part.endswith(secret[:k]):
                        parts[i] = part = part[:-k] + MASK
                        break
        return ELLIPSIS.join(parts)

    def headers(self, headers: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
        if not self.enabled:
            return tuple(headers)
        return tuple((k, self.text(mask_header_value(k, v))) for k, v in headers)

    def value(self, value: Any, name: str | None = None) -> Any:
        """A JSON-like value with secret names masked and learnt secrets scrubbed from its
        strings, at any depth. Returns new containers; the input is never mutated."""
        if not self.enabled:
            return value
        if name is not None and is_secret_variable(name):
            return MASK
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {k: self.value(v, k) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.value(v) for v in value]
        return value

    def variables(self, variables: Mapping[str, Any]) -> dict[str, Any]:
        if not self.enabled:
            return dict(variables)
        return {k: self.value(v, k) for k, v in variables.items()}
