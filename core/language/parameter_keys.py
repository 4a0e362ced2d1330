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
ENVIRONMENT = "environment"
LOG_REQUESTS = "logRequests"
LOG_RESPONSES = "logResponses"
FOLLOW_REDIRECTS = "followRedirects"
RETRY_MAX_ATTEMPTS = "retry.maxAttempts"
RETRY_DELAY = "retry.delay"
RETRY_MAX_DELAY = "retry.maxDelay"
RETRY_BACKOFF = "retry.backoff"
RETRY_JITTER = "retry.jitter"
ERROR_REQUEST_BODY = "errorContext.includeRequestBody"
ERROR_RESPONSE_BODY = "errorContext.includeResponseBody"
ERROR_MAX_BODY = "errorContext.maxBodySize"
MULTI_SEQUENTIAL = "multiTestSequentialCount"
MULTI_CONCURRENT = "multiTestConcurrentCount"
HEADER = "header."  # header.NAME: a header sent with every request of its scope
MULTI_TEST = "multiTest."  # multiTest.X: options of `auto: [multi]`
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
        _ = parts and parts.port  # an out-of-range or non-numeric port raises here
    except ValueError:  # e.g. an unbalanced '[' reads as a broken IPv6 host
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.netloc:
        raise ParameterValueError(f"{key} must be an absolute http:// or https:// URL, got {_shown(raw)}")
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


def _count(key: str, raw: str, low: int, maximum: int, what: str) -> int:
    """An integer from `low` to `maximum`, written bare."""
    if _POSITIVE_INT.fullmatch(raw):
        digits = raw.lstrip("0") or "0"
        if len(digits) <= len(str(maximum)) and low <= int(digits) <= maximum:
            return int(digits)
    inner = _unquote(raw)
    hint = " (remove the quotes)" if inner is not None and _POSITIVE_INT.fullmatch(inner) else ""
    raise ParameterValueError(f"{key} must be {what} from {low} to {maximum}, got {_shown(raw)}{hint}")


def _attempts(key: str, raw: str) -> int:
    return _count(key, raw, 0, 100, "a whole number of retries")


def _repeats(key: str, raw: str) -> int:
    return _count(key, raw, 1, 10_000, "a whole number of requests")


def _body_size(key: str, raw: str) -> int:
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


_DURATION = re.compile(r"([0-9]{1,9})(ms|s|m)?")
_UNIT_MS = {None: 1, "ms": 1, "s": 1000, "m": 60_000}
MAX_DURATION_MS = 86_400_000  # a day


def _duration(key: str, raw: str) -> Duration:
    inner = _unquote(raw)
    found = _DURATION.fullmatch(raw if inner is None else inner)
    if found is not None:
        ms = int(found.group(1)) * _UNIT_MS[found.group(2)]
        if ms <= MAX_DURATION_MS:
            return Duration(ms)
        raise ParameterValueError(f"{key} is at most a day (86400s), got {_shown(raw)}")
    raise ParameterValueError(f"{key} must be a duration: 500ms, 2s, 1m or a number of milliseconds, got {_shown(raw)}")


BACKOFFS = ("fixed", "linear", "exponential")


def _backoff(key: str, raw: str) -> str:
    inner = _unquote(raw)
    value = raw if inner is None else inner
    if value in BACKOFFS:
        return value
    hint = f" (write it in lower case: {value.lower()})" if value.lower() in BACKOFFS else ""
    raise ParameterValueError(f"{key} must be fixed, linear or exponential, got {_shown(raw)}{hint}")


def _string(key: str, raw: str) -> str:
    """Text, quoted or bare; quotes are removed."""
    inner = _unquote(raw)
    value = raw if inner is None else inner
    if not value.strip():
        raise ParameterValueError(f"{key} must be some text, got {_shown(raw)}")
    return value


def _header_value(key: str, raw: str) -> str:
    inner = _unquote(raw)
    value = raw if inner is None else inner
    if any(c in value for c in "\r\n\0"):
        raise ParameterValueError(f"{key} cannot hold a line break or NUL")
    return value


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
        ParameterSpec(SHARE, "boolean", False, _boolean, "share extracted variables between scenarios of this level"),
        ParameterSpec(
            TIMEOUT, "integer seconds", 30, _seconds, "bound on each request as a whole (connect, send, wait, read)"
        ),
        ParameterSpec(BASE_URL, "URL", None, _url, "base URL that relative request paths are joined to"),
        ParameterSpec(
            OPENAPI, "path", None, _path, "OpenAPI description (relative to the scenario file) giving the baseUrl"
        ),
        ParameterSpec(
            MAX_RESPONSE_SIZE,
            "integer bytes",
            100 * 1024 * 1024,
            _bytes,
            "largest response body accepted, raw and decoded (gzip, deflate)",
        ),
        ParameterSpec(
            SECRETS, "names", (), _names, "more secret names: variables, headers, JSON fields, query parameters to mask"
        ),
        ParameterSpec(
            STRICT_SCHEMA, "boolean", False, _boolean, "schema checks reject properties the schema does not declare"
        ),
        ParameterSpec(
            AUTO_ENABLED, "boolean", False, _boolean, "check every operation call's response against its description"
        ),
        ParameterSpec(
            AUTO_SCHEMA, "boolean", True, _boolean, "with autoAssertions.enabled: the response body matches its schema"
        ),
        ParameterSpec(
            AUTO_STATUS,
            "boolean",
            True,
            _boolean,
            "with autoAssertions.enabled: the status is one the operation declares",
        ),
        ParameterSpec(
            AUTO_CONTENT_TYPE,
            "boolean",
            True,
            _boolean,
            "with autoAssertions.enabled: the Content-Type is one the operation declares",
        ),
        ParameterSpec(
            ENVIRONMENT,
            "text",
            None,
            _string,
            "a label for the environment under test, shown by params, run and the JSON report",
        ),
        ParameterSpec(
            LOG_REQUESTS, "boolean", False, _boolean, "run prints a line for every request: method, URL, body"
        ),
        ParameterSpec(
            LOG_RESPONSES, "boolean", False, _boolean, "run prints a line for every response: status, time, body"
        ),
        ParameterSpec(
            FOLLOW_REDIRECTS,
            "boolean",
            False,
            _boolean,
            "follow 3xx redirects (at most 10); false: a 3xx is the response",
        ),
        ParameterSpec(
            RETRY_MAX_ATTEMPTS,
            "integer",
            0,
            _attempts,
            "retries after the first attempt on 429, 502, 503, 504, a refused connection or a timeout",
        ),
        ParameterSpec(RETRY_DELAY, "duration", Duration(1000), _duration, "wait before the first retry"),
        ParameterSpec(
            RETRY_MAX_DELAY, "duration", Duration(30_000), _duration, "the longest wait between two attempts"
        ),
        ParameterSpec(
            RETRY_BACKOFF,
            "fixed|linear|exponential",
            "exponential",
            _backoff,
            "how the wait grows: delay, delay*(n+1), delay*2^n",
        ),
        ParameterSpec(RETRY_JITTER, "boolean", True, _boolean, "vary each wait by up to 20 % either way"),
        ParameterSpec(ERROR_REQUEST_BODY, "boolean", True, _boolean, "a failed step's report shows the request body"),
        ParameterSpec(ERROR_RESPONSE_BODY, "boolean", True, _boolean, "a failed step's report shows the response body"),
        ParameterSpec(
            ERROR_MAX_BODY,
            "integer bytes",
            4096,
            _body_size,
            "bodies in a failed step's report are cut at this many bytes",
        ),
        ParameterSpec(
            MULTI_SEQUENTIAL, "integer", 3, _repeats, "auto: [multi] sends this many requests one after another"
        ),
        ParameterSpec(MULTI_CONCURRENT, "integer", 5, _repeats, "auto: [multi] sends this many requests at once"),
    )
}

_DESCRIPTION_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_ALIAS_TARGET = re.compile(r"\^[A-Za-z_][A-Za-z0-9_.-]*|(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) /\S*")


def _alias(key: str, raw: str) -> str:
    value = _unquote(raw)
    value = (raw if value is None else value).strip()
    if not _ALIAS_TARGET.fullmatch(value):
        raise ParameterValueError(f'{key} must name an operation: "^operationId" or "METHOD /path", got {_shown(raw)}')
    return value


def binding_parts(key: str) -> tuple[str, str, str | None] | None:
    """`binding.auth.location` -> ("auth", "location", None); `binding.alias.x` -> ("default",
    "alias", "x"); `binding.auth.alias.x` -> ("auth", "alias", "x"); None for anything else."""
    if not key.startswith(BINDING):
        return None
    parts = key[len(BINDING) :].split(".")
    if len(parts) >= 2 and parts[0] == "alias" and all(parts[1:]):
        return DEFAULT_DESCRIPTION, "alias", ".".join(parts[1:])
    if len(parts) == 2 and parts[1] in ("location", "baseUrl") and _DESCRIPTION_NAME.fullmatch(parts[0]):
        return parts[0], parts[1], None
    if len(parts) >= 3 and parts[1] == "alias" and _DESCRIPTION_NAME.fullmatch(parts[0]) and all(parts[2:]):
        return parts[0], "alias", ".".join(parts[2:])
    return None


_BINDING_SPECS = {
    "location": ParameterSpec(
        "binding.NAME.location",
        "path",
        None,
        _path,
        "the OpenAPI description named NAME (relative to the scenario file)",
    ),
    "baseUrl": ParameterSpec(
        "binding.NAME.baseUrl", "URL", None, _url, "the base URL of the OpenAPI description named NAME"
    ),
    "alias": ParameterSpec(
        "binding.alias.X", "operation", None, _alias, '^X calls this operation: "^operationId" or "METHOD /path"'
    ),
}


_HEADER_NAME = re.compile(r"[A-Za-z0-9!#$%&'*+.^_`|~-]+")  # RFC 9110 token
_OPTION_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_HEADER_SPEC = ParameterSpec(
    "header.NAME",
    "text",
    None,
    _header_value,
    "header NAME, sent with every request of this scope (a step's own header wins)",
)
_MULTI_SPEC = ParameterSpec("multiTest.X", "integer", None, _repeats, "an option of auto: [multi]")
# The open-ended families, as `params` and messages name them.
FAMILIES = ("autoAssertions.*", "retry.*", "errorContext.*", "header.NAME", "multiTest.X", "binding.*")


def header_name(key: str) -> str | None:
    """`header.X-Api-Key` -> `X-Api-Key`; None when the key is not a valid header.NAME."""
    if key.startswith(HEADER) and _HEADER_NAME.fullmatch(key[len(HEADER) :]):
        return key[len(HEADER) :]
    return None


def spec_for(key: str) -> ParameterSpec | None:
    """The spec of a known key: a fixed one, or one of the open families (`binding.*`,
    `header.NAME`, `multiTest.X`)."""
    spec = SPECS.get(key)
    if spec is not None:
        return spec
    parts = binding_parts(key)
    if parts is not None:
        return _BINDING_SPECS[parts[1]]
    if header_name(key) is not None:
        return _HEADER_SPEC
    if key.startswith(MULTI_TEST) and _OPTION_NAME.fullmatch(key[len(MULTI_TEST) :]):
        return _MULTI_SPEC
    return None


def is_known(key: str) -> bool:
    """A key this tool gives a meaning to (fixed or of a family). Any other key is a user key
    when the file reads it as `{{param.KEY}}`, and an error otherwise."""
    return spec_for(key) is not None


USER_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")  # what `{{param.KEY}}` can name


# ---------------------------------------------------------------- {{env.NAME}} / {{param.KEY}}


ENV, PARAM = "env", "param"
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True, slots=True)
class ValueTemplate:
    """A parameter value reading `{{env.NAME}}` or `{{param.KEY}}` (semantics.md §1): fixed
    before the run, so it is resolved once before a scenario starts, then validated by its key's
    type as if the result had been written bare. Shown as written until then."""

    key: str
    raw: str  # as written, quotes included
    parts: tuple[str | tuple[str, str], ...]  # text, or (ENV | PARAM, name)

    def __str__(self) -> str:
        return self.raw

    @property
    def refs(self) -> tuple[tuple[str, str], ...]:
        return tuple(p for p in self.parts if isinstance(p, tuple))

    def sources(self) -> str:
        """`$API_URL, param.region`: where the value came from, for provenance."""
        return ", ".join(f"${name}" if kind == ENV else f"param.{name}" for kind, name in self.refs)

    def render(self, lookup: Callable[[str, str], str]) -> str:
        return "".join(p if isinstance(p, str) else lookup(*p) for p in self.parts)


def parse_template(key: str, raw: str) -> ValueTemplate:
    """Split a value holding `{{...}}` into text and references. Only `{{env.NAME}}` and
    `{{param.KEY}}` may appear; `\\{{` writes a literal `{{`. Raises ParameterValueError."""
    inner = _unquote(raw)
    text = raw if inner is None else inner
    parts: list[str | tuple[str, str]] = []
    literal, position = [], 0
    while (start := text.find("{{", position)) != -1:
        if start > 0 and text[start - 1] == "\\":
            literal.append(text[position : start - 1] + "{{")
            position = start + 2
            continue
        end = text.find("}}", start + 2)
        if end == -1:
            raise ParameterValueError(f"{key}: '{{{{' is not closed by '}}}}'")
        literal.append(text[position:start])
        name = text[start + 2 : end].strip()
        kind, _, rest = name.partition(".")
        if kind == ENV and _ENV_NAME.fullmatch(rest):
            ref = (ENV, rest)
        elif kind == PARAM and USER_KEY.fullmatch(rest):
            ref = (PARAM, rest)
        else:
            shown = name if len(name) <= 30 else name[:29] + "…"
            raise ParameterValueError(
                f"{key} cannot use {{{{{shown}}}}}: parameters are static, variables exist only at run time "
                "(a parameter value may read {{env.NAME}} or {{param.KEY}})"
            )
        if ref == (PARAM, key):
            raise ParameterValueError(f"{key} cannot read itself ({{{{param.{key}}}}})")
        if "".join(literal):
            parts.append("".join(literal))
        literal = []
        parts.append(ref)
        position = end + 2
    literal.append(text[position:])
    if "".join(literal):
        parts.append("".join(literal))
    return ValueTemplate(key, raw, tuple(parts))


def parse_value(key: str, raw: str) -> Any:
    """Validate a raw value for a known key: its typed value, or a ValueTemplate when it reads
    `{{env.NAME}}` / `{{param.KEY}}` (typed once resolved). Raises ParameterValueError."""
    spec = spec_for(key)
    if spec is None:
        raise ParameterValueError(unknown_key_message(key))
    if "{{" in raw:
        return parse_template(key, raw)
    return spec.parse(key, raw)


def parse_user_value(key: str, raw: str) -> Any:
    """A user key's value (semantics.md §1): text, quotes removed, or a ValueTemplate."""
    if "{{" in raw:
        return parse_template(key, raw)
    inner = _unquote(raw)
    return raw if inner is None else inner


def unknown_key_message(key: str) -> str:
    message = f"unknown parameter '{key}'"
    if key.startswith(BINDING):
        return message + (
            "; bindings are binding.NAME.location, binding.NAME.baseUrl, binding.alias.OP or binding.NAME.alias.OP"
        )
    if key.startswith(HEADER):
        return message + "; write header.NAME with NAME a header name (letters, digits, -), e.g. header.X-Api-Key"
    if key.startswith(MULTI_TEST):
        return message + "; write multiTest.NAME with NAME letters, digits and _"
    suggestion = closest_key(key)
    if suggestion:
        message += f"; did you mean '{suggestion}'?"
    else:
        fixed = [k for k in SPECS if not any(k.startswith(f[:-1]) for f in FAMILIES if f.endswith("*"))]
        message += f"; known parameters: {', '.join(fixed + list(FAMILIES))}"
    return message


def _family_fix(key: str) -> str | None:
    """`headers.X-Id` -> `header.X-Id`, `Header.X-Id` -> `header.X-Id`."""
    prefix, dot, rest = key.partition(".")
    if dot and rest:
        for family in (HEADER, MULTI_TEST):
            name = family[:-1]
            if prefix != name and difflib.SequenceMatcher(None, prefix.lower(), name.lower()).ratio() >= 0.8:
                if is_known(family + rest):
                    return family + rest
    return None


def closest_key(key: str) -> str | None:
    fixed = _family_fix(key)
    if fixed:
        return fixed
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


def near_miss(key: str) -> str | None:
    """The known key an unknown one is almost surely a typo of (stricter than closest_key, which
    also suggests distant keys): `--param` refuses these rather than take them for user keys."""
    for known in SPECS:
        if known.lower() == key.lower():
            return known
    matches = difflib.get_close_matches(key, list(SPECS), n=1, cutoff=0.8)
    if matches:
        return matches[0]
    for known in SPECS:  # cut short: `shareVariables`
        if len(key) >= 4 and known.lower().startswith(key.lower()):
            return known
    return _family_fix(key)
