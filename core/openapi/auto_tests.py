"""Generated requests for `auto: [invalid security multi]` (docs/spec/berrycrush.md#auto-tests). Generation only:
the executor sends each `AutoTest.request` and runs the unit's `if`/`assert` with `test.*` set.

Design
------
* Deterministic: the same operation and inputs give the same tests in the same order (schema
  order of properties, then parameters in declaration order, then payload list order).
* `invalid` breaks one constraint at a time, starting from a valid request (the call's own
  children and body; a structured body is first merged over the schema defaults). For each body
  property (top level, and one level into nested objects) and each declared query/header/cookie/
  path parameter with a schema: required missing (not for path parameters: the URL would break),
  wrong type, below `minimum`/above `maximum` (exclusive bounds too), shorter than `minLength`,
  longer than `maxLength`, too few/many items, not matching `pattern`, not in `enum`, bad
  `format` (email, date, date-time, time, uuid, uri, ipv4, ipv6, hostname). `test.testType` names
  the family; `excludes:` may name a family (`enum`, `format`, …) to drop it.
* `security` puts well-known attack payloads into every string-typed (or untyped scalar) body
  property and parameter, as the single item of a string array; header and cookie parameters only
  get payloads without CR/LF (and, for cookies, without `;`): those cannot be sent there at all. Our own list,
  each entry a category usable in `excludes:` (matched case-insensitively, ignoring `_`, `-` and
  spaces, so `SQLInjection` = `SQL_INJECTION`):
  - SQL_INJECTION: `' OR '1'='1`, `1; DROP TABLE users--`
  - NOSQL_INJECTION: `{"$ne": null}`, `'; return true; var x='`
  - XSS: `<script>alert(1)</script>`, `"><img src=x onerror=alert(1)>`
  - PATH_TRAVERSAL: `../../../../etc/passwd`, `..%2f..%2f..%2fetc%2fpasswd`
  - COMMAND_INJECTION: `; cat /etc/passwd`, `$(id)`
  - LDAP_INJECTION: `*)(uid=*))(|(uid=*`, `admin)(&)`
  - XXE: `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>`
  - HEADER_INJECTION: `value\\r\\nX-Injected: 1`, `value%0d%0aSet-Cookie: injected=1`
  - TEMPLATE_INJECTION: `{{7*7}}`, `${7*7}`
  - LARGE_PAYLOAD: 10,000 `A`s
* `multi` describes repeats: `SEQUENTIAL` × `multiTestSequentialCount` (default 3) and
  `CONCURRENT` × `multiTestConcurrentCount` (default 5); `excludes: [CONCURRENT]` drops one mode.
"""

from __future__ import annotations

import copy
import re
from typing import Iterable, Mapping, Sequence

from scenario_core.language.nodes.steps import AUTO_KINDS
from scenario_core.openapi.body_defaults import merge_body, request_defaults
from scenario_core.openapi.operations import Operation, Parameter, Schema
from scenario_core.openapi.request_builder import RequestPlan, build_request
from scenario_core.support.json_types import JsonObject, JsonValue
from scenario_core.support.records import dataclass

INVALID, SECURITY, MULTI = "invalid", "security", "multi"
KINDS = AUTO_KINDS  # (INVALID, SECURITY, MULTI), as the language names them

PAYLOADS: dict[str, tuple[str, ...]] = {
    "SQL_INJECTION": ("' OR '1'='1", "1; DROP TABLE users--"),
    "NOSQL_INJECTION": ('{"$ne": null}', "'; return true; var x='"),
    "XSS": ("<script>alert(1)</script>", '"><img src=x onerror=alert(1)>'),
    "PATH_TRAVERSAL": ("../../../../etc/passwd", "..%2f..%2f..%2fetc%2fpasswd"),
    "COMMAND_INJECTION": ("; cat /etc/passwd", "$(id)"),
    "LDAP_INJECTION": ("*)(uid=*))(|(uid=*", "admin)(&)"),
    "XXE": ('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>',),
    "HEADER_INJECTION": ("value\r\nX-Injected: 1", "value%0d%0aSet-Cookie: injected=1"),
    "TEMPLATE_INJECTION": ("{{7*7}}", "${7*7}"),
    "LARGE_PAYLOAD": ("A" * 10_000,),
}
INVALID_FAMILIES = (
    "required",
    "type",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "pattern",
    "enum",
    "format",
)
MULTI_MODES = ("SEQUENTIAL", "CONCURRENT")

_BAD_FORMATS = {
    "email": "not-an-email",
    "date": "2021-13-45",
    "date-time": "not-a-date-time",
    "time": "25:61:61",
    "uuid": "not-a-uuid",
    "uri": "not a uri",
    "url": "not a uri",
    "ipv4": "999.999.999.999",
    "ipv6": "not:an:ipv6::address::",
    "hostname": "-not_a_host-",
}
_WRONG_TYPE: dict[str, JsonValue] = {
    "string": 12345,
    "integer": "not-a-number",
    "number": "not-a-number",
    "boolean": "not-a-boolean",
    "array": "not-an-array",
    "object": "not-an-object",
}


def _norm(name: str) -> str:
    return re.sub(r"[\s_\-]", "", name).lower()


@dataclass(frozen=True)
class AutoTest:
    """One generated request and the `test.*` variables the unit's assertions see."""

    type: str  # invalid, security
    test_type: str  # family (required, enum, …) or payload category (SQL_INJECTION, …)
    field: str  # `name`, `owner.email`, or the parameter's name
    location: str  # body, path, query, header, cookie
    description: str
    value: JsonValue  # the value sent (None for a missing one)
    children: tuple[tuple[str, object], ...]
    body: object = None  # the JSON body sent, if the request has one
    request: RequestPlan | None = None

    def variables(self) -> dict[str, JsonValue]:
        """`test.type`, `test.testType`, `test.field`, `test.description`, `test.value`, `test.location`."""
        return {
            "type": self.type,
            "testType": self.test_type,
            "field": self.field,
            "description": self.description,
            "value": self.value,
            "location": self.location,
        }


@dataclass(frozen=True)
class MultiTest:
    mode: str  # SEQUENTIAL or CONCURRENT
    count: int

    def variables(self) -> dict[str, str | int]:
        return {"mode": self.mode, "count": self.count}


def parse_kinds(kinds: Iterable[str]) -> tuple[str, ...]:
    """Validate `auto: [...]` words; raises ValueError naming the known ones."""
    result = []
    for kind in kinds:
        if kind.lower() not in KINDS:
            raise ValueError(f"unknown auto test kind '{kind}' (known: {', '.join(KINDS)})")
        result.append(kind.lower())
    return tuple(result)


def excluded(name: str, excludes: Iterable[str]) -> bool:
    return _norm(name) in {_norm(e) for e in excludes}


def known_excludes() -> list[str]:
    return list(PAYLOADS) + list(INVALID_FAMILIES) + list(MULTI_MODES)


def generate(
    operation: Operation,
    kinds: Iterable[str],
    children: Sequence[tuple[str, object]] = (),
    *,
    structured_body: object = None,
    json_body: object = None,
    excludes: Iterable[str] = (),
    headers: Sequence[tuple[str, str]] = (),
) -> list[AutoTest]:
    """The `invalid` and `security` tests of a call, in a fixed order (multi: see `multi_tests`)."""
    kinds = parse_kinds(kinds)
    excludes = list(excludes)
    base_body: object = json_body
    if structured_body is not None:
        base_body = merge_body(request_defaults(operation), structured_body)
    elif base_body is None and operation.request_body is not None and operation.request_body.content:
        base_body = request_defaults(operation)
    gen = _Generator(operation, list(children), base_body, excludes, headers)
    tests: list[AutoTest] = []
    if INVALID in kinds:
        tests += gen.invalid()
    if SECURITY in kinds:
        tests += gen.security()
    return tests


def multi_tests(sequential: int = 3, concurrent: int = 5, excludes: Iterable[str] = ()) -> list[MultiTest]:
    """`auto: [multi]`: the repeat plan (multiTestSequentialCount / multiTestConcurrentCount)."""
    plan = [MultiTest("SEQUENTIAL", sequential), MultiTest("CONCURRENT", concurrent)]
    return [m for m in plan if m.count > 0 and not excluded(m.mode, excludes)]


# A property of the body: (dotted name, resolved property schema, required, key path).
_BodyField = tuple[str, JsonObject, bool, tuple[str, ...]]


class _Generator:
    def __init__(
        self,
        operation: Operation,
        children: list[tuple[str, object]],
        body: object,
        excludes: list[str],
        headers: Sequence[tuple[str, str]],
    ):
        self.op, self.children, self.body, self.excludes, self.headers = operation, children, body, excludes, headers

    # ---- helpers

    def _make(
        self,
        kind: str,
        family: str,
        field_name: str,
        location: str,
        description: str,
        value: JsonValue,
        children: list[tuple[str, object]],
        body: object,
    ) -> AutoTest:
        plan = (
            build_request(self.op, children, json_body=body, headers=self.headers, check_required=False)
            if body is not None
            else build_request(self.op, children, headers=self.headers, check_required=False)
        )
        return AutoTest(kind, family, field_name, location, description, value, tuple(children), body, plan)

    def _children_with(self, parameter: Parameter, value: object, drop: bool = False) -> list[tuple[str, object]]:
        result = [(n, v) for n, v in self.children if not self._is(parameter, n)]
        if not drop:
            result.append((self._child_name(parameter), value))
        return result

    @staticmethod
    def _is(parameter: Parameter, child: str) -> bool:
        forced = {"query": ("query_",), "header": ("header_", "Header_")}.get(parameter.location, ())
        for prefix in forced:
            if child.startswith(prefix) and child[len(prefix) :].lower() == parameter.name.lower():
                return True
        if parameter.location == "header":
            return child.lower() == parameter.name.lower()
        return child == parameter.name

    def _child_name(self, parameter: Parameter) -> str:
        # Use a forced prefix when a same-named parameter elsewhere would take the plain name.
        first = next(
            p
            for loc in ("path", "query", "header", "cookie")
            for p in self.op.parameters
            if p.location == loc and p.name == parameter.name
        )
        if first is parameter or parameter.location not in ("query", "header"):
            return parameter.name
        return f"{parameter.location}_{parameter.name}"

    def _current(self, parameter: Parameter) -> object:
        for name, value in self.children:
            if self._is(parameter, name):
                return value
        return parameter.default if parameter.default is not None else parameter.example

    def _body_fields(self) -> list[_BodyField]:
        """(dotted name, resolved property schema, required, key path) of body properties."""
        body = self.op.request_body
        media = body.preferred() if body else None
        if media is None or media.schema is None or not isinstance(self.body, dict):
            return []
        fields: list[_BodyField] = []
        self._collect(media.schema, media.schema.raw, media.schema.file, media.schema.pointer or "", (), fields, 0)
        return fields

    def _collect(
        self,
        schema: Schema,
        raw: JsonValue,
        file: str,
        pointer: str,
        prefix: tuple[str, ...],
        out: list[_BodyField],
        depth: int,
    ) -> None:
        node, file, pointer = schema.description.resolve(raw, file, pointer)
        if not isinstance(node, dict) or depth > 1:
            return
        for i, part in enumerate(_listed(node.get("allOf"))):
            self._collect(schema, part, file, f"{pointer}/allOf/{i}", prefix, out, depth)
        required = set(_listed(node.get("required")))
        properties = node.get("properties")
        for name, sub in (properties if isinstance(properties, dict) else {}).items():
            subnode, sfile, spointer = schema.description.resolve(sub, file, f"{pointer}/properties/{name}")
            if not isinstance(subnode, dict):
                continue
            out.append((".".join(prefix + (name,)), subnode, name in required, prefix + (name,)))
            if _type_of(subnode) == "object" or "properties" in subnode:
                self._collect(schema, sub, file, f"{pointer}/properties/{name}", prefix + (name,), out, depth + 1)

    def _body_with(self, keys: tuple[str, ...], value: JsonValue, drop: bool = False) -> object:
        body = copy.deepcopy(self.body)
        if not isinstance(body, dict):  # only a dict body has fields (_body_fields)
            return body
        target = body
        for key in keys[:-1]:
            if not isinstance(target.get(key), dict):
                target[key] = {}
            target = target[key]
        if drop:
            target.pop(keys[-1], None)
        else:
            target[keys[-1]] = value
        return body

    # ---- invalid

    def invalid(self) -> list[AutoTest]:
        tests: list[AutoTest] = []
        for name, node, required, keys in self._body_fields():
            for family, description, value, drop in _violations(name, node, required):
                if excluded(family, self.excludes):
                    continue
                tests.append(
                    self._make(
                        INVALID,
                        family,
                        name,
                        "body",
                        description,
                        value,
                        list(self.children),
                        self._body_with(keys, value, drop),
                    )
                )
        for parameter in self.op.parameters:
            node = _mapping(parameter.schema.resolved() if parameter.schema is not None else {})
            required = parameter.required and parameter.location != "path"
            for family, description, value, drop in _violations(parameter.name, node, required):
                if excluded(family, self.excludes):
                    continue
                if parameter.location == "header" and family == "type" and isinstance(value, (dict, list)):
                    continue
                tests.append(
                    self._make(
                        INVALID,
                        family,
                        parameter.name,
                        parameter.location,
                        description,
                        value,
                        self._children_with(parameter, value, drop),
                        self.body,
                    )
                )
        return tests

    # ---- security

    def security(self) -> list[AutoTest]:
        tests: list[AutoTest] = []
        categories = [c for c in PAYLOADS if not excluded(c, self.excludes)]
        # (field, location, key path of a body field or the parameter, in an array)
        targets: list[tuple[str, str, tuple[str, ...] | Parameter, bool]] = []
        for name, node, _, keys in self._body_fields():
            if _is_text(node, self.op):
                targets.append((name, "body", keys, _type_of(node) == "array"))
        for parameter in self.op.parameters:
            node = _mapping(parameter.schema.resolved() if parameter.schema is not None else {})
            if _is_text(node, self.op):
                targets.append((parameter.name, parameter.location, parameter, _type_of(node) == "array"))
        for field_name, location, where, in_array in targets:
            for category in categories:
                for payload in PAYLOADS[category]:
                    if location in ("header", "cookie") and any(c in payload for c in "\r\n\0"):
                        continue  # a raw line break cannot be sent in a header (query and body encode it)
                    if location == "cookie" and ";" in payload:
                        continue
                    value: JsonValue = [payload] if in_array else payload
                    description = f"{category} payload in {location} {field_name}"
                    if isinstance(where, tuple):  # a body field (location "body")
                        tests.append(
                            self._make(
                                SECURITY,
                                category,
                                field_name,
                                location,
                                description,
                                value,
                                list(self.children),
                                self._body_with(where, value),
                            )
                        )
                    else:
                        tests.append(
                            self._make(
                                SECURITY,
                                category,
                                field_name,
                                location,
                                description,
                                value,
                                self._children_with(where, value),
                                self.body,
                            )
                        )
        return tests


def _listed(value: JsonValue) -> list[JsonValue]:
    """A list as the schema writes it; anything else there lists nothing."""
    return value if isinstance(value, list) else []


def _mapping(node: JsonValue) -> JsonObject:
    """A schema that is a mapping; a missing one (or `true`) constrains nothing."""
    return node if isinstance(node, dict) else {}


def _is_text(node: Mapping[str, JsonValue], operation: Operation) -> bool:
    """A string (or untyped scalar) value, or an array of strings: where a payload can go."""
    kind = _type_of(node)
    if kind == "array":
        items = node.get("items")
        return isinstance(items, dict) and "$ref" not in items and _type_of(items) in ("string", None)
    return kind in ("string", None) and "properties" not in node


def _type_of(node: Mapping[str, JsonValue]) -> JsonValue:
    kind = node.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if kind is None and "properties" in node:
        return "object"
    return kind


def _violations(name: str, node: Mapping[str, JsonValue], required: bool) -> list[tuple[str, str, JsonValue, bool]]:
    """(family, description, value, drop) — one per constraint the schema declares."""
    out: list[tuple[str, str, JsonValue, bool]] = []
    if required:
        out.append(("required", f"{name} is required but missing", None, True))
    kind = _type_of(node)
    if isinstance(kind, str) and kind in _WRONG_TYPE:
        out.append(("type", f"{name} must be {kind}, sent {_WRONG_TYPE[kind]!r}", _WRONG_TYPE[kind], False))
    if kind in ("integer", "number"):
        for key, exclusive, delta, family in (
            ("minimum", "exclusiveMinimum", -1, "minimum"),
            ("maximum", "exclusiveMaximum", 1, "maximum"),
        ):
            bound, strict = node.get(key), node.get(exclusive)
            if isinstance(strict, (int, float)) and not isinstance(strict, bool):  # 3.1 numeric form
                out.append((family, f"{name} must be {'>' if delta < 0 else '<'} {strict}", strict, False))
            elif isinstance(bound, (int, float)) and not isinstance(bound, bool):
                value = bound if strict is True else bound + delta
                sign = ("> " if delta < 0 else "< ") if strict is True else (">= " if delta < 0 else "<= ")
                out.append((family, f"{name} must be {sign}{bound}", value, False))
    if kind == "string":
        least, most, pattern = node.get("minLength"), node.get("maxLength"), node.get("pattern")
        if isinstance(least, int) and least > 0:
            out.append(("minLength", f"{name} must have at least {least} characters", "a" * (least - 1), False))
        if isinstance(most, int):
            out.append(("maxLength", f"{name} must have at most {most} characters", "a" * (most + 1), False))
        if isinstance(pattern, str):
            bad = _not_matching(pattern)
            if bad is not None:
                out.append(("pattern", f"{name} must match /{pattern}/", bad, False))
        fmt = node.get("format")
        if isinstance(fmt, str) and fmt in _BAD_FORMATS:
            out.append(("format", f"{name} must be a valid {fmt}", _BAD_FORMATS[fmt], False))
    if kind == "array":
        fewest, most_items, items = node.get("minItems"), node.get("maxItems"), node.get("items")
        if isinstance(fewest, int) and fewest > 0:
            out.append(("minItems", f"{name} must have at least {fewest} items", [], False))
        if isinstance(most_items, int):
            item = items.get("example", "x") if isinstance(items, dict) else "x"
            out.append(("maxItems", f"{name} must have at most {most_items} items", [item] * (most_items + 1), False))
    enum = node.get("enum")
    if isinstance(enum, list) and enum:
        bad = "INVALID_ENUM_VALUE"
        while bad in enum:
            bad += "_"
        out.append(("enum", f"{name} must be one of {enum}", bad, False))
    return out


def _not_matching(pattern: str) -> str | None:
    try:
        regex = re.compile(pattern)
    except re.error:
        return None
    for candidate in ("", "!@#$%^&*()", "0", "a", "A" * 300, " ", "invalid pattern value"):
        if not regex.search(candidate):
            return candidate
    return None
