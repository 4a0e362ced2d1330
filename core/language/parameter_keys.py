"""The known parameters: the key table (types, defaults, help), looking a key up (fixed keys and the
open families), values that read `{{env.NAME}}` / `{{param.KEY}}`, and the one validator every level
uses (a file's block, a feature's block, `--param KEY=VALUE`); the did-you-mean of an unknown key.
Each type's parser is in parameter_values.py."""

from __future__ import annotations

from typing import Any, Callable, Union

from scenario_core.language import parameter_values as values
from scenario_core.language.parameter_values import Duration, ParameterValueError, unquote
from scenario_core.support.digits import INT_DIGITS
from scenario_core.support.patterns import on_first_use
from scenario_core.support.records import dataclass

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

# BerryCrush keeps the run's base URL and its unnamed description as the binding named `default`:
# `binding.default.baseUrl` is `baseUrl` and `binding.default.location` is `openapi`, written or
# read as `{{param.KEY}}` (docs/spec/berrycrush.md#the-default-binding).
ALIASES = {f"{BINDING}{DEFAULT_DESCRIPTION}.baseUrl": BASE_URL, f"{BINDING}{DEFAULT_DESCRIPTION}.location": OPENAPI}


def canonical_key(key: str) -> str:
    """The key a BerryCrush alias stands for (`binding.default.baseUrl` -> `baseUrl`), else the key."""
    return ALIASES.get(key, key)


# A parameter's value once read: its key's type (parameter_values.py: a bool, an int or a Duration,
# a str, names as a tuple of str), a user key's scalar (a bool, an int, a float or a str), None
# when unset, or a ValueTemplate until its `{{env.NAME}}` / `{{param.KEY}}` is resolved.
ParameterValue = Union[None, bool, int, float, str, tuple[str, ...], "ValueTemplate"]


@dataclass(frozen=True, slots=True)
class ParameterSpec:
    key: str
    type_name: str
    default: Any  # its key's type: what the run reads a key it was not given as
    parse: Callable[[str, str], ParameterValue]
    help: str


SPECS: dict[str, ParameterSpec] = {
    spec.key: spec
    for spec in (
        ParameterSpec(
            SHARE, "boolean", False, values.boolean, "share extracted variables between scenarios of this level"
        ),
        ParameterSpec(
            TIMEOUT,
            "integer seconds",
            30,
            values.seconds,
            "bound on each request as a whole (connect, send, wait, read)",
        ),
        ParameterSpec(BASE_URL, "URL", None, values.url, "base URL that relative request paths are joined to"),
        ParameterSpec(
            OPENAPI, "path", None, values.path, "OpenAPI description (relative to the scenario file) giving the baseUrl"
        ),
        ParameterSpec(
            MAX_RESPONSE_SIZE,
            "integer bytes",
            100 * 1024 * 1024,
            values.byte_size,
            "largest response body accepted, raw and decoded (gzip, deflate)",
        ),
        ParameterSpec(
            SECRETS,
            "names",
            (),
            values.names,
            "more secret names: variables, headers, JSON fields, query parameters to mask",
        ),
        ParameterSpec(
            STRICT_SCHEMA,
            "boolean",
            False,
            values.boolean,
            "schema checks reject properties the schema does not declare",
        ),
        ParameterSpec(
            AUTO_ENABLED,
            "boolean",
            False,
            values.boolean,
            "check every operation call's response against its description",
        ),
        ParameterSpec(
            AUTO_SCHEMA,
            "boolean",
            True,
            values.boolean,
            "with autoAssertions.enabled: the response body matches its schema",
        ),
        ParameterSpec(
            AUTO_STATUS,
            "boolean",
            True,
            values.boolean,
            "with autoAssertions.enabled: the status is one the operation declares",
        ),
        ParameterSpec(
            AUTO_CONTENT_TYPE,
            "boolean",
            True,
            values.boolean,
            "with autoAssertions.enabled: the Content-Type is one the operation declares",
        ),
        ParameterSpec(
            ENVIRONMENT,
            "text",
            None,
            values.text,
            "a label for the environment under test, shown by params, run and the JSON report",
        ),
        ParameterSpec(
            LOG_REQUESTS, "boolean", False, values.boolean, "run prints a line for every request: method, URL, body"
        ),
        ParameterSpec(
            LOG_RESPONSES, "boolean", False, values.boolean, "run prints a line for every response: status, time, body"
        ),
        ParameterSpec(
            FOLLOW_REDIRECTS,
            "boolean",
            False,
            values.boolean,
            "follow 3xx redirects (at most 10); false: a 3xx is the response",
        ),
        ParameterSpec(
            RETRY_MAX_ATTEMPTS,
            "integer",
            0,
            values.attempts,
            "retries after the first attempt on 429, 502, 503, 504, a refused connection or a timeout",
        ),
        ParameterSpec(RETRY_DELAY, "duration", Duration(1000), values.duration, "wait before the first retry"),
        ParameterSpec(
            RETRY_MAX_DELAY, "duration", Duration(30_000), values.duration, "the longest wait between two attempts"
        ),
        ParameterSpec(
            RETRY_BACKOFF,
            "fixed|linear|exponential",
            "exponential",
            values.backoff,
            "how the wait grows: delay, delay*(n+1), delay*2^n",
        ),
        ParameterSpec(RETRY_JITTER, "boolean", True, values.boolean, "vary each wait by up to 20 % either way"),
        ParameterSpec(
            ERROR_REQUEST_BODY, "boolean", True, values.boolean, "a failed step's report shows the request body"
        ),
        ParameterSpec(
            ERROR_RESPONSE_BODY, "boolean", True, values.boolean, "a failed step's report shows the response body"
        ),
        ParameterSpec(
            ERROR_MAX_BODY,
            "integer bytes",
            4096,
            values.body_size,
            "bodies in a failed step's report are cut at this many bytes",
        ),
        ParameterSpec(
            MULTI_SEQUENTIAL, "integer", 3, values.repeats, "auto: [multi] sends this many requests one after another"
        ),
        ParameterSpec(MULTI_CONCURRENT, "integer", 5, values.repeats, "auto: [multi] sends this many requests at once"),
    )
}

_DESCRIPTION_NAME = on_first_use(r"[A-Za-z_][A-Za-z0-9_-]*")


def binding_parts(key: str) -> tuple[str, str, str | None] | None:
    """`binding.auth.location` -> ("auth", "location", None); `binding.alias.x` -> ("default",
    "alias", "x"); `binding.auth.alias.x` -> ("auth", "alias", "x"); None for anything else."""
    if not key.startswith(BINDING):
        return None
    parts = key[len(BINDING) :].split(".")
    if len(parts) >= 2 and parts[0] == "alias" and all(parts[1:]):
        return DEFAULT_DESCRIPTION, "alias", ".".join(parts[1:])
    if len(parts) == 2 and parts[1] in ("location", "baseUrl") and _DESCRIPTION_NAME().fullmatch(parts[0]):
        return parts[0], parts[1], None
    if len(parts) >= 3 and parts[1] == "alias" and _DESCRIPTION_NAME().fullmatch(parts[0]) and all(parts[2:]):
        return parts[0], "alias", ".".join(parts[2:])
    return None


_BINDING_SPECS = {
    "location": ParameterSpec(
        "binding.NAME.location",
        "path",
        None,
        values.path,
        "the OpenAPI description named NAME (relative to the scenario file)",
    ),
    "baseUrl": ParameterSpec(
        "binding.NAME.baseUrl", "URL", None, values.url, "the base URL of the OpenAPI description named NAME"
    ),
    "alias": ParameterSpec(
        "binding.alias.X", "operation", None, values.alias, '^X calls this operation: "^operationId" or "METHOD /path"'
    ),
}


_HEADER_NAME = on_first_use(r"[A-Za-z0-9!#$%&'*+.^_`|~-]+")  # RFC 9110 token
_OPTION_NAME = on_first_use(r"[A-Za-z_][A-Za-z0-9_]*")
_HEADER_SPEC = ParameterSpec(
    "header.NAME",
    "text",
    None,
    values.header_value,
    "header NAME, sent with every request of this scope (a step's own header wins)",
)
_MULTI_SPEC = ParameterSpec("multiTest.X", "integer", None, values.repeats, "an option of auto: [multi]")
# The open-ended families, as `params` and messages name them.
FAMILIES = ("autoAssertions.*", "retry.*", "errorContext.*", "header.NAME", "multiTest.X", "binding.*")


def header_name(key: str) -> str | None:
    """`header.X-Api-Key` -> `X-Api-Key`; None when the key is not a valid header.NAME."""
    if key.startswith(HEADER) and _HEADER_NAME().fullmatch(key[len(HEADER) :]):
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
    if key.startswith(MULTI_TEST) and _OPTION_NAME().fullmatch(key[len(MULTI_TEST) :]):
        return _MULTI_SPEC
    return None


def is_known(key: str) -> bool:
    """A key this tool gives a meaning to (fixed or of a family). Any other key is a user key
    when the file reads it as `{{param.KEY}}`, and an error otherwise."""
    return spec_for(key) is not None


USER_KEY = on_first_use(r"[A-Za-z_][A-Za-z0-9_.-]*")  # what `{{param.KEY}}` can name


# ---------------------------------------------------------------- {{env.NAME}} / {{param.KEY}}


ENV, PARAM = "env", "param"
_ENV_NAME = on_first_use(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True, slots=True)
class ValueTemplate:
    """A parameter value reading `{{env.NAME}}` or `{{param.KEY}}` (docs/spec/parameters.md#references-in-values): fixed
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
    inner = unquote(raw)
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
        if kind == ENV and _ENV_NAME().fullmatch(rest):
            ref = (ENV, rest)
        elif kind == PARAM and USER_KEY().fullmatch(rest):
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


def parse_value(key: str, raw: str) -> ParameterValue:
    """Validate a raw value for a known key: its typed value, or a ValueTemplate when it reads
    `{{env.NAME}}` / `{{param.KEY}}` (typed once resolved). Raises ParameterValueError."""
    spec = spec_for(key)
    if spec is None:
        raise ParameterValueError(unknown_key_message(key))
    if "{{" in raw:
        return parse_template(key, raw)
    return spec.parse(key, raw)


_INTEGER = on_first_use(r"-?[0-9]+")
_DECIMAL = on_first_use(r"-?[0-9]+\.[0-9]+")


def parse_user_value(key: str, raw: str) -> ParameterValue:
    """A user key's value (docs/spec/parameters.md#user-parameters): a ValueTemplate when it reads
    `{{...}}`; else its scalar type as BerryCrush's parser gives it: a bare integer or decimal is a
    number, bare `true` / `false` a boolean, anything else (or anything quoted) text. Raises
    ParameterValueError for an integer of over INT_DIGITS digits."""
    if "{{" in raw:
        return parse_template(key, raw)
    inner = unquote(raw)
    if inner is not None:
        return inner
    if _INTEGER().fullmatch(raw):
        digits = len(raw.lstrip("-"))
        if digits > INT_DIGITS:  # Python refuses to read it; an error, as in a JSON body
            raise ParameterValueError(f"an integer of {digits} digits is too long (the limit is {INT_DIGITS})")
        return int(raw)
    if _DECIMAL().fullmatch(raw):
        return float(raw)
    if raw in ("true", "false"):
        return raw == "true"
    return raw


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
        import difflib  # only for a hint: not imported by every start-up

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
    import difflib  # only for a hint: not imported by every start-up

    matches = difflib.get_close_matches(key, list(SPECS), n=1, cutoff=0.5)
    if matches:
        return matches[0]
    for known in SPECS:  # a prefix such as `shareVariables` or `base`
        if len(key) >= 4 and known.lower().startswith(key.lower()):
            return known
    return None


def is_user_key(key: str) -> bool:
    """An unknown key taken as a user parameter (docs/spec/parameters.md#user-parameters): one `{{param.KEY}}` can
    name, not a near miss of a known key, and not in a family of known keys (binding.*,
    header.*, multiTest.*, whose members are checked by their own rules)."""
    return bool(
        USER_KEY().fullmatch(key) and near_miss(key) is None and not key.startswith((BINDING, HEADER, MULTI_TEST))
    )


def near_miss(key: str) -> str | None:
    """The known key an unknown one is almost surely a typo of (stricter than closest_key, which
    also suggests distant keys): `--param` refuses these rather than take them for user keys."""
    for known in SPECS:
        if known.lower() == key.lower():
            return known
    import difflib  # only for a hint: not imported by every start-up

    matches = difflib.get_close_matches(key, list(SPECS), n=1, cutoff=0.8)
    if matches:
        return matches[0]
    for known in SPECS:  # cut short: `shareVariables`
        if len(key) >= 4 and known.lower().startswith(key.lower()):
            return known
    return _family_fix(key)
