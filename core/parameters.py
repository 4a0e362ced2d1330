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
STRICT_SCHEMA = "strictSchemaValidation"
AUTO_ENABLED = "autoAssertions.enabled"
AUTO_SCHEMA = "autoAssertions.schema"
AUTO_STATUS = "autoAssertions.statusCode"
AUTO_CONTENT_TYPE = "autoAssertions.contentType"
BINDING = "binding."  # binding.NAME.location / binding.NAME.baseUrl / binding[.NAME].alias.X
DEFAULT_DESCRIPTION = "default"


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
        ParameterSpec(STRICT_SCHEMA, "boolean", False, _boolean,
                      "schema checks reject properties the schema does not declare"),
        ParameterSpec(AUTO_ENABLED, "boolean", False, _boolean,
                      "check every operation call's response against its description"),
        ParameterSpec(AUTO_SCHEMA, "boolean", True, _boolean,
                      "with autoAssertions.enabled: the response body matches its schema"),
        ParameterSpec(AUTO_STATUS, "boolean", True, _boolean,
                      "with autoAssertions.enabled: the status is one the operation declares"),
        ParameterSpec(AUTO_CONTENT_TYPE, "boolean", True, _boolean,
                      "with autoAssertions.enabled: the Content-Type is one the operation declares"),
    )
}

_DESCRIPTION_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_ALIAS_TARGET = re.compile(r"\^[A-Za-z_][A-Za-z0-9_.-]*|(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) /\S*")


def _alias(key: str, raw: str) -> str:
    value = _unquote(raw)
    value = (raw if value is None else value).strip()
    if not _ALIAS_TARGET.fullmatch(value):
        raise ParameterValueError(
            f"{key} must name an operation: \"^operationId\" or \"METHOD /path\", got {_shown(raw)}")
    return value


def binding_parts(key: str) -> tuple[str, str, str | None] | None:
    """`binding.auth.location` -> ("auth", "location", None); `binding.alias.x` -> ("default",
    "alias", "x"); `binding.auth.alias.x` -> ("auth", "alias", "x"); None for anything else."""
    if not key.startswith(BINDING):
        return None
    parts = key[len(BINDING):].split(".")
    if len(parts) >= 2 and parts[0] == "alias" and all(parts[1:]):
        return DEFAULT_DESCRIPTION, "alias", ".".join(parts[1:])
    if len(parts) == 2 and parts[1] in ("location", "baseUrl") and _DESCRIPTION_NAME.fullmatch(parts[0]):
        return parts[0], parts[1], None
    if len(parts) >= 3 and parts[1] == "alias" and _DESCRIPTION_NAME.fullmatch(parts[0]) and all(parts[2:]):
        return parts[0], "alias", ".".join(parts[2:])
    return None


_BINDING_SPECS = {
    "location": ParameterSpec("binding.NAME.location", "path", None, _path,
                              "the OpenAPI description named NAME (relative to the scenario file)"),
    "baseUrl": ParameterSpec("binding.NAME.baseUrl", "URL", None, _url,
                             "the base URL of the OpenAPI description named NAME"),
    "alias": ParameterSpec("binding.alias.X", "operation", None, _alias,
                           "^X calls this operation: \"^operationId\" or \"METHOD /path\""),
}


def spec_for(key: str) -> ParameterSpec | None:
    """The spec of a known key: a fixed one, or one of the `binding.*` families."""
    spec = SPECS.get(key)
    if spec is not None:
        return spec
    parts = binding_parts(key)
    return _BINDING_SPECS[parts[1]] if parts is not None else None


def parse_value(key: str, raw: str) -> Any:
    """Validate a raw value for a known key. Raises ParameterValueError."""
    if "{{" in raw:
        raise ParameterValueError(
            f"{key} cannot use {{{{...}}}}: parameters are static, variables exist only at run time"
        )
    spec = spec_for(key)
    if spec is None:
        raise ParameterValueError(unknown_key_message(key))
    return spec.parse(key, raw)


def unknown_key_message(key: str) -> str:
    message = f"unknown parameter '{key}'"
    if key.startswith(BINDING):
        return message + ("; bindings are binding.NAME.location, binding.NAME.baseUrl, "
                          "binding.alias.OP or binding.NAME.alias.OP")
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
