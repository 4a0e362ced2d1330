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


def _seconds(key: str, raw: str) -> int:
    if _POSITIVE_INT.fullmatch(raw) and int(raw) > 0:
        return int(raw)
    inner = _unquote(raw)
    hint = " (remove the quotes)" if inner is not None and _POSITIVE_INT.fullmatch(inner) else ""
    raise ParameterValueError(
        f"{key} must be a positive integer number of seconds, got {_shown(raw)}{hint}"
    )


def _bytes(key: str, raw: str) -> int:
    if _POSITIVE_INT.fullmatch(raw) and int(raw) > 0:
        return int(raw)
    inner = _unquote(raw)
    hint = " (remove the quotes)" if inner is not None and _POSITIVE_INT.fullmatch(inner) else ""
    raise ParameterValueError(f"{key} must be a positive integer number of bytes, got {_shown(raw)}{hint}")


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


def _shown(raw: str) -> str:
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
