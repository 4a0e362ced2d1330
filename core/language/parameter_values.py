"""Reading a parameter's value: one parser per type (booleans, bounded integers, URLs, paths,
names, durations, backoffs, text, header values, operation aliases), each turning the value as
written into its typed value or a `ParameterValueError` that names the key, the type expected and
what was found. The key table (parameter_keys.py) says which parser reads which key."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from scenario_core.support.patterns import on_first_use


class ParameterValueError(ValueError):
    """A value that does not fit its key; the message names key, expected type and what was found."""


def unquote(raw: str) -> str | None:
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'":
        return raw[1:-1]
    return None


def boolean(key: str, raw: str) -> bool:
    if raw == "true":
        return True
    if raw == "false":
        return False
    hint = ""
    inner = unquote(raw)
    if inner in ("true", "false"):
        hint = " (remove the quotes)"
    elif raw.lower() in ("true", "false"):
        hint = f" (write it in lower case: {raw.lower()})"
    raise ParameterValueError(f"{key} must be true or false, got {shown(raw)}{hint}")


_POSITIVE_INT = on_first_use(r"[0-9]+")
# Upper bounds: a longer wait or a larger body is a typo, and a number past the event loop's
# clock (or past Python's 4,300-digit int() limit) would fail far from the line that wrote it.
MAX_TIMEOUT = 86_400  # a day
MAX_RESPONSE_BYTES = 1 << 40  # 1 TiB


def _positive_int(key: str, raw: str, unit: str, maximum: int, what: str) -> int:
    if _POSITIVE_INT().fullmatch(raw):
        digits = raw.lstrip("0")
        if len(digits) > len(str(maximum)) or (digits and int(digits) > maximum):
            raise ParameterValueError(f"{key} is at most {maximum} {unit}{what}, got {shown(raw)}")
        if digits:
            return int(digits)
    inner = unquote(raw)
    hint = " (remove the quotes)" if inner is not None and _POSITIVE_INT().fullmatch(inner) else ""
    raise ParameterValueError(f"{key} must be a positive integer number of {unit}, got {shown(raw)}{hint}")


def seconds(key: str, raw: str) -> int:
    return _positive_int(key, raw, "seconds", MAX_TIMEOUT, " (a day)")


def byte_size(key: str, raw: str) -> int:
    return _positive_int(key, raw, "bytes", MAX_RESPONSE_BYTES, " (1 TiB)")


def url(key: str, raw: str) -> str:
    value = unquote(raw)
    value = raw if value is None else value
    try:
        parts = urlsplit(value) if " " not in value else None
        _ = parts and parts.port  # an out-of-range or non-numeric port raises here
    except ValueError:  # e.g. an unbalanced '[' reads as a broken IPv6 host
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.netloc:
        raise ParameterValueError(f"{key} must be an absolute http:// or https:// URL, got {shown(raw)}")
    return value


def path(key: str, raw: str) -> str:
    value = unquote(raw)
    value = raw if value is None else value
    if not value:
        raise ParameterValueError(f"{key} must be a file path, got {shown(raw)}")
    return value


_NAME_LIST = on_first_use(r"[A-Za-z0-9_-]+(?:[\s,]+[A-Za-z0-9_-]+)*")


def names(key: str, raw: str) -> tuple[str, ...]:
    value = unquote(raw)
    value = (raw if value is None else value).strip().strip(",").strip()
    if not _NAME_LIST().fullmatch(value):
        raise ParameterValueError(
            f"{key} must be variable or header names separated by commas (apiSession, X-Tenant), got {shown(raw)}"
        )
    return tuple(re.split(r"[\s,]+", value))


def shown(raw: str, width: int = 40) -> str:
    if len(raw) > width:  # a message stays one readable line, whatever was written
        raw = raw[: width - 1] + "…"
    return '""' if raw == "" else f'"{raw}"' if not raw.startswith('"') else raw


def _count(key: str, raw: str, low: int, maximum: int, what: str) -> int:
    """An integer from `low` to `maximum`, written bare."""
    if _POSITIVE_INT().fullmatch(raw):
        digits = raw.lstrip("0") or "0"
        if len(digits) <= len(str(maximum)) and low <= int(digits) <= maximum:
            return int(digits)
    inner = unquote(raw)
    hint = " (remove the quotes)" if inner is not None and _POSITIVE_INT().fullmatch(inner) else ""
    raise ParameterValueError(f"{key} must be {what} from {low} to {maximum}, got {shown(raw)}{hint}")


def attempts(key: str, raw: str) -> int:
    return _count(key, raw, 0, 100, "a whole number of retries")


def repeats(key: str, raw: str) -> int:
    return _count(key, raw, 1, 10_000, "a whole number of requests")


def body_size(key: str, raw: str) -> int:
    return _count(key, raw, 0, MAX_RESPONSE_BYTES, "a whole number of bytes")


class Duration(int):
    """Milliseconds that read back as written: `500ms`, `2s`, `1m` (JSON: the number of ms)."""

    __slots__ = ()

    def __str__(self) -> str:
        ms = int(self)
        if ms and ms % 60_000 == 0:
            return f"{ms // 60_000}m"
        if ms and ms % 1000 == 0:
            return f"{ms // 1000}s"
        return f"{ms}ms"

    __format__ = lambda self, spec: format(str(self), spec)  # noqa: E731 (f-strings too)

    @property
    def seconds(self) -> float:
        return int(self) / 1000


_DURATION = on_first_use(r"([0-9]{1,9})(ms|s|m)?")
_UNIT_MS = {None: 1, "ms": 1, "s": 1000, "m": 60_000}
MAX_DURATION_MS = 86_400_000  # a day


def duration(key: str, raw: str) -> Duration:
    inner = unquote(raw)
    found = _DURATION().fullmatch(raw if inner is None else inner)
    if found is not None:
        ms = int(found.group(1)) * _UNIT_MS[found.group(2)]
        if ms <= MAX_DURATION_MS:
            return Duration(ms)
        raise ParameterValueError(f"{key} is at most a day (86400s), got {shown(raw)}")
    raise ParameterValueError(f"{key} must be a duration: 500ms, 2s, 1m or a number of milliseconds, got {shown(raw)}")


BACKOFFS = ("fixed", "linear", "exponential")


def backoff(key: str, raw: str) -> str:
    inner = unquote(raw)
    value = raw if inner is None else inner
    if value in BACKOFFS:
        return value
    hint = f" (write it in lower case: {value.lower()})" if value.lower() in BACKOFFS else ""
    raise ParameterValueError(f"{key} must be fixed, linear or exponential, got {shown(raw)}{hint}")


def text(key: str, raw: str) -> str:
    """Text, quoted or bare; quotes are removed."""
    inner = unquote(raw)
    value = raw if inner is None else inner
    if not value.strip():
        raise ParameterValueError(f"{key} must be some text, got {shown(raw)}")
    return value


def header_value(key: str, raw: str) -> str:
    inner = unquote(raw)
    value = raw if inner is None else inner
    if any(c in value for c in "\r\n\0"):
        raise ParameterValueError(f"{key} cannot hold a line break or NUL")
    return value


_ALIAS_TARGET = on_first_use(r"\^[A-Za-z_][A-Za-z0-9_.-]*|(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) /\S*")


def alias(key: str, raw: str) -> str:
    value = unquote(raw)
    value = (raw if value is None else value).strip()
    if not _ALIAS_TARGET().fullmatch(value):
        raise ParameterValueError(f'{key} must name an operation: "^operationId" or "METHOD /path", got {shown(raw)}')
    return value
