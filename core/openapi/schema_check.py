"""Checking a response against the called operation's schema (`assert schema`, `then: schema`,
autoAssertions): which schema (by status and Content-Type), and the problems found, as messages.
The schema conversion and the compiled validators are in `schema_compile`.

* **Messages**: `$.tags[2]: expected string, got 7` — the JSON path of the offending value, what
  the schema wanted and what came; at most 5 problems, then `… and N more`.
* **Which schema**: the response for the status (exact, `2XX`, `default`), then the media type
  matching the response's actual Content-Type (exact, `type/*`, `*/*`; parameters ignored).
"""

from __future__ import annotations

import ast
import json
import re
from typing import TYPE_CHECKING, Iterable, Mapping

from jsonschema.exceptions import ValidationError

from scenario_core.openapi.documents import OpenApiError
from scenario_core.openapi.operations import MediaType, Operation, Response, Schema
from scenario_core.openapi.pattern_clock import DEFAULT_SECONDS, Interrupted, clock_running
from scenario_core.openapi.pattern_clock import search as bounded_search
from scenario_core.openapi.schema_compile import compile_schema
from scenario_core.openapi.schema_patterns import PatternError
from scenario_core.support.json_types import JsonObject, JsonValue
from scenario_core.support.records import dataclass

if TYPE_CHECKING:
    from scenario_core.openapi.pattern_clock import SchemaValidator

MAX_SHOWN = 5

# ---------------------------------------------------------------------------------- problems


@dataclass(frozen=True)
class SchemaProblem:
    path: str  # JSON path of the offending value: `$`, `$.tags[2]`
    message: str  # `expected string, got 7`

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def _shown(value: object) -> str:
    if isinstance(value, dict):
        return "an object" if value else "{}"
    if isinstance(value, list):
        return f"an array of {len(value)}" if value else "[]"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:39] + '…"'


def _child_path(path: str, key: str) -> str:
    return f"{path}.{key}" if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key) else f"{path}[{json.dumps(key)}]"


def _json_path(error: ValidationError) -> str:
    path = "$"
    for part in error.absolute_path:
        path = f"{path}[{part}]" if isinstance(part, int) else _child_path(path, str(part))
    return path


def _extras(error: ValidationError) -> list[str]:
    match = re.search(r"\((.*) (?:was|were) unexpected\)", error.message, re.S)
    if match:
        try:
            names = ast.literal_eval(f"[{match.group(1)}]")
            return [str(n) for n in names]
        except (ValueError, SyntaxError):
            pass
    return []


def _declared_keys(schema: object, root: JsonObject, instance: dict[str, object], seen: set[int]) -> set[str]:
    """Property names a schema declares through its applicators, valid or not (for strict mode:
    jsonschema drops the annotations of a failing allOf branch, which would make every property
    of an object with one bad value look unexpected)."""
    keys: set[str] = set()
    if not isinstance(schema, dict) or id(schema) in seen:
        return keys
    seen.add(id(schema))
    keys.update(schema.get("properties") or {})
    for pattern in schema.get("patternProperties") or {}:
        keys.update(k for k in instance if _found(pattern, k))
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        defs = root.get("$defs")
        keys |= _declared_keys(defs.get(ref[8:]) if isinstance(defs, dict) else None, root, instance, seen)
    for key in ("allOf", "anyOf", "oneOf"):
        for sub in schema.get(key) or ():
            keys |= _declared_keys(sub, root, instance, seen)
    for key in ("if", "then", "else"):
        keys |= _declared_keys(schema.get(key), root, instance, seen)
    for sub in (schema.get("dependentSchemas") or {}).values():
        keys |= _declared_keys(sub, root, instance, seen)
    return keys


def _found(pattern: str, key: str) -> bool:
    try:
        return bounded_search(pattern, key)
    except PatternError:
        return False


def _describe(error: ValidationError, root: JsonValue = None) -> list[SchemaProblem]:
    path, kind, want, got = _json_path(error), error.validator, error.validator_value, error.instance
    if kind == "unevaluatedProperties" and want is False and isinstance(got, dict) and isinstance(root, dict):
        declared = _declared_keys(error.schema, root, got, set())
        return [
            SchemaProblem(_child_path(path, name), "unexpected property (the schema does not allow it)")
            for name in got
            if name not in declared
        ]
    if kind == "type":
        types = want if isinstance(want, list) else [want]
        return [SchemaProblem(path, f"expected {' or '.join(map(str, types))}, got {_shown(got)}")]
    if kind == "required":
        missing = [name for name in want if isinstance(got, dict) and name not in got]
        return [SchemaProblem(path, f"required property '{name}' is missing") for name in missing[:1] or ["?"]]
    if kind in ("additionalProperties", "unevaluatedProperties") and want is False:
        extras = _extras(error) or ["?"]
        return [
            SchemaProblem(_child_path(path, name), "unexpected property (the schema does not allow it)")
            for name in extras
        ]
    if kind == "enum":
        return [SchemaProblem(path, f"expected one of {json.dumps(want, ensure_ascii=False)}, got {_shown(got)}")]
    if kind == "const":
        return [SchemaProblem(path, f"expected {_shown(want)}, got {_shown(got)}")]
    words = {"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}
    if kind in words:
        return [SchemaProblem(path, f"expected a number {words[kind]} {want}, got {_shown(got)}")]
    if kind in ("minLength", "maxLength"):
        bound = "at least" if kind == "minLength" else "at most"
        return [SchemaProblem(path, f"expected {bound} {want} characters, got {_shown(got)} ({len(got)})")]
    if kind in ("minItems", "maxItems"):
        bound = "at least" if kind == "minItems" else "at most"
        return [SchemaProblem(path, f"expected {bound} {want} items, got {len(got)}")]
    if kind in ("minProperties", "maxProperties"):
        bound = "at least" if kind == "minProperties" else "at most"
        return [SchemaProblem(path, f"expected {bound} {want} properties, got {len(got)}")]
    if kind == "pattern":
        return [SchemaProblem(path, f"expected text matching /{want}/, got {_shown(got)}")]
    if kind == "format":
        return [SchemaProblem(path, f"expected format {want}, got {_shown(got)}")]
    if kind == "multipleOf":
        return [SchemaProblem(path, f"expected a multiple of {want}, got {_shown(got)}")]
    if kind == "uniqueItems":
        return [SchemaProblem(path, "expected unique items, got duplicates")]
    if kind == "oneOf":
        count = len(want)
        if error.context:
            return [
                SchemaProblem(
                    path, f"expected exactly one of {count} alternatives (oneOf) to match, none did: {_closest(error)}"
                )
            ]
        return [SchemaProblem(path, f"expected exactly one of {count} alternatives (oneOf) to match, several did")]
    if kind == "anyOf":
        return [
            SchemaProblem(
                path, f"expected at least one of {len(want)} alternatives (anyOf) to match, none did: {_closest(error)}"
            )
        ]
    if kind == "not":
        return [SchemaProblem(path, f"expected a value that does not match the 'not' schema, got {_shown(got)}")]
    if kind == "dependentRequired":
        return [SchemaProblem(path, error.message)]
    return [SchemaProblem(path, error.message)]


def _closest(error: ValidationError) -> str:
    from jsonschema.exceptions import best_match

    # A branch of the right type is the closer one: prefer its errors over "expected integer".
    candidates = [e for e in error.context if e.validator != "type"] or list(error.context)
    best = best_match(candidates)
    if best is None:
        return "?"
    return "; ".join(str(p) for p in _describe(best)[:1])


def problems_of(validator: SchemaValidator, instance: object, seconds: float = DEFAULT_SECONDS) -> list[SchemaProblem]:
    """Every problem of `instance`. Its regular expressions share `seconds` (pattern_clock); past
    them the check stops with a problem saying which pattern overran. SIGINT / SIGTERM end it:
    Interrupted (the signal also reaches its usual handler)."""
    problems: list[SchemaProblem] = []
    overrun_at = "$"
    with clock_running(seconds) as clock:
        try:
            for error in validator.iter_errors(instance):
                if clock.overrun is not None:
                    overrun_at = _json_path(error)
                    break
                problems.extend(_describe(error, validator.schema))
        except RecursionError:
            return problems + [SchemaProblem("$", "the value is nested too deeply to check against the schema")]
        except (TypeError, ValueError, AttributeError, LookupError) as error:  # a schema the shape check let by
            detail = " ".join(f"{type(error).__name__}: {error}".split())[:200]
            return problems + [SchemaProblem("$", f"the schema could not be applied ({detail})")]
    if clock.overrun is not None:
        problems.append(SchemaProblem(overrun_at, clock.message()))
    return problems


def validate_value(schema: Schema, instance: object, strict: bool = False) -> list[SchemaProblem]:
    """Every problem of a JSON value against a schema ([] when it matches)."""
    return problems_of(compile_schema(schema, strict), instance)


def summarize(problems: list[SchemaProblem], limit: int = MAX_SHOWN) -> str:
    """`$.a: …; $.b: …` for the first `limit` problems, then `… and N more`."""
    shown = "; ".join(str(p) for p in problems[:limit])
    if len(problems) > limit:
        shown += f"; … and {len(problems) - limit} more"
    return shown


# ------------------------------------------------------------------------------ media types


def media_type_of(content_type: str | None) -> str | None:
    """`application/json; charset=utf-8` → `application/json` (lower case); None if absent."""
    if not content_type:
        return None
    return content_type.split(";", 1)[0].strip().lower() or None


def media_matches(declared: str, actual: str) -> bool:
    declared = media_type_of(declared) or ""
    if declared in ("*/*", "*"):
        return True
    if declared == actual:
        return True
    major, _, minor = declared.partition("/")
    return minor == "*" and actual.partition("/")[0] == major


def select_media(content: Mapping[str, MediaType], content_type: str | None) -> MediaType | None:
    """The declared media type for an actual Content-Type: exact, then `type/*`, then `*/*`."""
    actual = media_type_of(content_type)
    if actual is None:
        return None
    for rank in (0, 1, 2):
        for declared, media in content.items():
            name = media_type_of(declared) or ""
            if rank == 0 and name == actual:
                return media
            if rank == 1 and name.endswith("/*") and name != "*/*" and media_matches(name, actual):
                return media
            if rank == 2 and name in ("*/*", "*"):
                return media
    return None


def is_json_media(media_type: str | None) -> bool:
    media_type = media_type_of(media_type) or ""
    return media_type.endswith("/json") or media_type.endswith("+json")


# --------------------------------------------------------------------------------- responses


@dataclass(frozen=True)
class SchemaCheck:
    """The outcome of checking one response. `message` is one line; '' when ok."""

    ok: bool
    message: str
    problems: tuple[SchemaProblem, ...] = ()
    status_key: str | None = None  # "200", "2XX", "default" — which response was used
    media_type: str | None = None  # which declared media type was used

    def __bool__(self) -> bool:
        return self.ok


_UNSET = object()
_NO_BODY = (204, 205, 304)  # HTTP says these have no body, whatever a `default` response declares


def check_response(
    operation: Operation,
    status: int,
    content_type: str | None,
    body: str | bytes | None,
    *,
    parsed: object = _UNSET,
    strict: bool = False,
    seconds: float = DEFAULT_SECONDS,
) -> SchemaCheck:
    """Check a response against the operation's schema for its status and its actual Content-Type.
    `body` is the raw body; `parsed` may give its already-parsed JSON to save a second parse.
    `seconds`: how long the schema's regular expressions may take, all together (the time left
    of the request's deadline). A schema that cannot be used (a `$ref` to nothing, a pattern that
    does not compile) fails the check with its located error, as `check` reports it."""
    response = operation.response_for(status)
    if response is None:
        return SchemaCheck(
            False,
            f"{operation.label} declares no response for status {status} "
            f"(declared: {', '.join(operation.responses) or 'none'})",
        )
    where = f"response {status}"
    empty = body is None or len(body) == 0
    if empty and status in _NO_BODY:
        return SchemaCheck(True, "", status_key=response.status)
    if not response.content:
        if empty:
            return SchemaCheck(True, "", status_key=response.status)
        return SchemaCheck(
            False,
            f"{where}: {operation.label} declares no body for {response.status}, but the response has one",
            status_key=response.status,
        )
    media = select_media(response.content, content_type)
    if media is None:
        actual = media_type_of(content_type) or "no Content-Type"
        return SchemaCheck(
            False,
            f"{where}: Content-Type {actual} is not one {operation.label} declares for "
            f"{response.status} ({', '.join(response.content)})",
            status_key=response.status,
        )
    prefix = f"{where} ({media_type_of(content_type)})"
    if media.schema is None:
        return SchemaCheck(True, "", status_key=response.status, media_type=media.media_type)
    if not body:  # None or empty
        return SchemaCheck(
            False,
            f"{prefix}: empty body, the schema expects a value",
            status_key=response.status,
            media_type=media.media_type,
        )
    if is_json_media(content_type):
        if parsed is _UNSET:
            try:
                parsed = json.loads(body)
            except ValueError as error:
                return SchemaCheck(
                    False,
                    f"{prefix}: the body is not valid JSON: {error}",
                    status_key=response.status,
                    media_type=media.media_type,
                )
        instance: object = parsed
    else:
        instance = body.decode("utf-8", "replace") if isinstance(body, (bytes, bytearray)) else body
    try:
        problems = problems_of(compile_schema(media.schema, strict), instance, seconds)
    except OpenApiError as error:
        message = f"{prefix}: cannot check against the schema of {operation.label}: {' '.join(str(error).split())}"
        return SchemaCheck(False, message, status_key=response.status, media_type=media.media_type)
    except Interrupted:
        return SchemaCheck(False, "interrupted", status_key=response.status, media_type=media.media_type)
    if not problems:
        return SchemaCheck(True, "", status_key=response.status, media_type=media.media_type)
    message = f"{prefix} does not match the schema of {operation.label}: {summarize(problems)}"
    return SchemaCheck(False, message, tuple(problems), response.status, media.media_type)


def check_status(operation: Operation, status: int) -> str | None:
    """autoAssertions.statusCode: None when the operation declares the status (or a `default`)."""
    if operation.response_for(status) is not None:
        return None
    return f"status {status} is not one {operation.label} declares ({', '.join(operation.responses) or 'none'})"


def check_content_type(
    operation: Operation, status: int, content_type: str | None, has_body: bool = True
) -> str | None:
    """autoAssertions.contentType: None when the response's Content-Type is one the operation
    declares for that status (any, when it declares no content and there is no body)."""
    response: Response | None = operation.response_for(status)
    if response is None:
        return None  # check_status reports it
    if not response.content:
        return (
            None
            if not has_body
            else (
                f"{operation.label} declares no body for {response.status}, got {media_type_of(content_type) or 'one'}"
            )
        )
    if not has_body and (content_type is None or status in _NO_BODY):
        return None
    if select_media(response.content, content_type) is not None:
        return None
    return (
        f"Content-Type {media_type_of(content_type) or '(none)'} is not one {operation.label} declares for "
        f"{response.status} ({', '.join(response.content)})"
    )


def declared_statuses(operation: Operation) -> Iterable[str]:
    return list(operation.responses)
