"""The known parameters: their types, defaults and the one validator every level uses
(a file's block, a feature's block, `--param KEY=VALUE`)."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Any, Callable
from urllib.parse import urlsplit

SHARE = "shareVariablesAcrossScenarios"
TIMEOUT = "timeout"
BASE_URL = "baseUrl"
OPENAPI = "openapi"
SECRETS = "secrets"
MAX_RESPONSE_SIZE = "maxResponseSize"


class ParameterValueError(ValueError):
    """A value that does not fit its key; the message names key, expected type and what was found."""


def _unquote(raw: str) -> str | None:
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'":
        return raw[1:-1]
    return None


def _boolean(key: str, raw: str) -> bool:
    if raw == "true":
        return True
    if raw == "false":
        return False
    hint = ""
    inner = _unquote(raw)
    if inner in ("true", "false"):
        hint = " (remove the quotes)"
    elif raw.lower() in ("true", "false"):
        hint = f" (write it in lower case: {raw.lower()})"
    raise ParameterValueError(f"{key} must be true or false, got {_shown(raw)}{hint}")


_POSITIVE_INT = re.compile(r"[0-9]+")
# Upper bounds: a longer wait or a larger body is a typo, and a number past the event loop's
# clock (or past Python's 4,300-digit int() limit) would fail far from the line that wrote it.
MAX_TIMEOUT = 86_400  # a day
MAX_RESPONSE_BYTES = 1 << 40  # 1 TiB


def _positive_int(key: str, raw: str, unit: str, maximum: int, what: str) -> int:
    if _POSITIVE_INT.fullmatch(raw):
        digits = raw.lstrip("0")
        if len(digits) > len(str(maximum)) or (digits and int(digits) > maximum):
            raise ParameterValueError(f"{key} is at most {maximum} {unit}{what}, got {_shown(raw)}")
        if digits:
            return int(digits)
    inner = _unquote(raw)
    hint = " (remove the quotes)" if inner is not None and _POSITIVE_INT.fullmatch(inner) else ""
    raise ParameterValueError(f"{key} must be a positive integer number of {unit}, got {_shown(raw)}{hint}")


def _seconds(key: str, raw: str) -> int:
    return _positive_int(key, raw, "seconds", MAX_TIMEOUT, " (a day)")


def _bytes(key: str, raw: str) -> int:
    return _positive_int(key, raw, "bytes", MAX_RESPONSE_BYTES, " (1 TiB)")


def _url(key: str, raw: str) -> str:
    value = _unquote(raw)
    value = raw if value is None else value
    try:
        parts = urlsplit(value) if " " not in value else None
        parts and parts.port  # an out-of-range or non-numeric port raises here
    except ValueError:  # e.g. an unbalanced '[' reads as a broken IPv6 host
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.netloc:
        raise ParameterValueError(
            f"{key} must be an absolute http:// or https:// URL, got {_shown(raw)}"
        )
    return value


def _path(key: str, raw: str) -> str:
    value = _unquote(raw)
    value = raw if value is None else value
    if not value:
        raise ParameterValueError(f"{key} must be a file path, got {_shown(raw)}")
    return value


_NAME_LIST = re.compile(r"[A-Za-z0-9_-]+(?:[\s,]+[A-Za-z0-9_-]+)*")


def _names(key: str, raw: str) -> tuple[str, ...]:
    value = _unquote(raw)
    value = (raw if value is None else value).strip().strip(",").strip()
    if not _NAME_LIST.fullmatch(value):
        raise ParameterValueError(
            f"{key} must be variable or header names separated by commas (apiSession, X-Tenant), got {_shown(raw)}"
        )
    return tuple(re.split(r"[\s,]+", value))


def _shown(raw: str, width: int = 40) -> str:
    if len(raw) > width:  # a message stays one readable line, whatever was written
        raw = raw[: width - 1] + "…"
    return '""' if raw == "" else f'"{raw}"' if not raw.startswith('"') else raw


@dataclass(frozen=True, slots=True)
class ParameterSpec:
    key: str
    type_name: str
    default: Any
    parse: Callable[[str, str], Any]
    help: str


SPECS: dict[str, ParameterSpec] = {
    spec.key: spec
    for spec in (
        ParameterSpec(SHARE, "boolean", False, _boolean,
                      "share extracted variables between scenarios of this level"),
        ParameterSpec(TIMEOUT, "integer seconds", 30, _seconds,
                      "bound on each request as a whole (connect, send, wait, read)"),
        ParameterSpec(BASE_URL, "URL", None, _url,
                      "base URL that relative request paths are joined to"),
        ParameterSpec(OPENAPI, "path", None, _path,
                      "OpenAPI description (relative to the scenario file) giving the baseUrl"),
        ParameterSpec(MAX_RESPONSE_SIZE, "integer bytes", 100 * 1024 * 1024, _bytes,
                      "largest response body accepted, raw and decoded (gzip, deflate)"),
        ParameterSpec(SECRETS, "names", (), _names,
                      "more secret names: variables, headers, JSON fields, query parameters to mask"),
    )
}


def parse_value(key: str, raw: str) -> Any:
    """Validate a raw value for a known key. Raises ParameterValueError."""
    if "{{" in raw:
        raise ParameterValueError(
            f"{key} cannot use {{{{...}}}}: parameters are static, variables exist only at run time"
        )
    return SPECS[key].parse(key, raw)


def unknown_key_message(key: str) -> str:
    message = f"unknown parameter '{key}'"
    suggestion = closest_key(key)
    if suggestion:
        message += f"; did you mean '{suggestion}'?"
    else:
        message += f"; known parameters: {', '.join(SPECS)}"
    return message


def closest_key(key: str) -> str | None:
    for known in SPECS:
        if known.lower() == key.lower():
            return known
    matches = difflib.get_close_matches(key, list(SPECS), n=1, cutoff=0.5)
    if matches:
        return matches[0]
    for known in SPECS:  # a prefix such as `shareVariables` or `base`
        if len(key) >= 4 and known.lower().startswith(key.lower()):
            return known
    return None
