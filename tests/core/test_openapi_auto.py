"""`auto: [invalid security multi]`: generated requests, deterministic, each with test.* metadata."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scenario_core.openapi.auto_tests import PAYLOADS, generate, known_excludes, multi_tests, parse_kinds
from scenario_core.openapi.loader import DescriptionCache
from scenario_core.openapi.schema_check import validate_value

FIXTURES = Path(__file__).with_name("openapi_fixtures")


@pytest.fixture(scope="module")
def description():
    return DescriptionCache().load(FIXTURES / "library30.yaml")


def op_of(description, op_id):
    return next(o for o in description.operations if o.id == op_id)


def summary(tests):
    return [(t.test_type, t.location, t.field, t.value) for t in tests]


def test_invalid_body_breaks_one_constraint_at_a_time(description):
    op = op_of(description, "createBook")
    tests = generate(op, ["invalid"], structured_body=[("title", "Dune"), ("author", [("name", "F")])])
    assert summary(tests) == [
        ("required", "body", "title", None),
        ("type", "body", "title", 12345),
        ("minLength", "body", "title", ""),
        ("maxLength", "body", "title", "a" * 101),
        ("type", "body", "isbn", 12345),
        ("pattern", "body", "isbn", ""),
        ("type", "body", "genre", 12345),
        ("enum", "body", "genre", "INVALID_ENUM_VALUE"),
        ("type", "body", "published", 12345),
        ("format", "body", "published", "2021-13-45"),
        ("type", "body", "pages", "not-a-number"),
        ("minimum", "body", "pages", 0),
        ("maximum", "body", "pages", 5001),
        ("type", "body", "price", "not-a-number"),
        ("minimum", "body", "price", 0),
        ("type", "body", "tags", "not-an-array"),
        ("maxItems", "body", "tags", ["x", "x", "x", "x"]),
        ("type", "body", "subtitle", 12345),
        ("required", "body", "author", None),
        ("type", "body", "author", "not-an-object"),
        ("required", "body", "author.name", None),
        ("type", "body", "author.name", 12345),
        ("type", "body", "author.email", 12345),
        ("format", "body", "author.email", "not-an-email"),
    ]
    schema = op.request_body.content["application/json"].schema
    for test in tests:  # each really is invalid, and only in the field it names
        problems = validate_value(schema, test.body)
        assert problems, test
        assert all(p.path in ("$", f"$.{test.field}", "$.author") for p in problems), (test, problems)
    first = tests[0]
    assert first.variables() == {
        "type": "invalid",
        "testType": "required",
        "field": "title",
        "description": "title is required but missing",
        "value": None,
        "location": "body",
    }
    assert "title" not in json.loads(first.request.body)
    assert json.loads(tests[1].request.body)["title"] == 12345
    assert tests[1].request.headers == (("Content-Type", "application/json"),)


def test_invalid_parameters_and_excludes(description):
    op = op_of(description, "listBooks")
    tests = generate(op, ["invalid"], [("limit", 10)])
    assert summary(tests) == [
        ("type", "query", "tag", "not-an-array"),
        ("type", "query", "limit", "not-a-number"),
        ("minimum", "query", "limit", 0),
        ("maximum", "query", "limit", 101),
        ("type", "header", "X-Trace", 12345),
    ]
    assert [t.request.path for t in tests] == [
        "/books?limit=10&tag=not-an-array",
        "/books?limit=not-a-number",
        "/books?limit=0",
        "/books?limit=101",
        "/books?limit=10",
    ]
    assert tests[-1].request.headers == (("X-Trace", "12345"),)
    assert summary(generate(op, ["invalid"], [("limit", 10)], excludes=["type", "Maximum"])) == [
        ("minimum", "query", "limit", 0)
    ]


def test_path_parameters_are_never_left_out(description):
    tests = generate(op_of(description, "getBook"), ["invalid"], [("bookId", 3)])
    assert summary(tests) == [
        ("type", "path", "bookId", "not-a-number"),
        ("minimum", "path", "bookId", 0),
        ("type", "cookie", "session", 12345),
        ("type", "query", "fields", "not-an-array"),
    ]
    assert tests[0].request.path == "/books/not-a-number"


def test_security_payloads_per_string_field(description):
    op = op_of(description, "getBook")
    tests = generate(op, ["security"], [("bookId", 3)])
    # bookId is an integer: the cookie (no payload with ; or CR/LF) and the string array `fields` are targets
    assert {(t.location, t.field) for t in tests} == {("cookie", "session"), ("query", "fields")}
    cookie = [t for t in tests if t.location == "cookie"]
    assert [t.test_type for t in cookie][:3] == ["SQL_INJECTION", "NOSQL_INJECTION", "XSS"]
    assert not any(";" in t.value for t in cookie)
    in_array = next(t for t in tests if t.location == "query")
    assert (in_array.value, in_array.request.path) == (["' OR '1'='1"], "/books/3?fields=%27%20OR%20%271%27%3D%271")
    listing = generate(op_of(description, "listBooks"), ["security"], excludes=["LARGE_PAYLOAD", "xss"])
    assert {t.test_type for t in listing} == set(PAYLOADS) - {"LARGE_PAYLOAD", "XSS"}
    injected = next(t for t in listing if t.test_type == "PATH_TRAVERSAL" and t.location == "header")
    assert injected.request.headers == (("X-Trace", "../../../../etc/passwd"),)
    sqli = next(t for t in listing if t.test_type == "HEADER_INJECTION" and t.location == "query")
    assert sqli.request.path == "/books?tag=value%0D%0AX-Injected%3A%201"
    assert sqli.value == ["value\r\nX-Injected: 1"]  # encoded, never a raw line break
    assert not any(t.location == "header" and t.test_type == "HEADER_INJECTION" and "\r" in t.value for t in listing)
    assert sqli.variables()["type"] == "security"


def test_security_in_body_strings(description):
    tests = generate(
        op_of(description, "createBook"),
        ["security"],
        structured_body=[("title", "t")],
        excludes=[c for c in PAYLOADS if c != "SQL_INJECTION"],
    )
    assert [(t.field, t.value) for t in tests] == [
        (field, [payload] if field == "tags" else payload)
        for field in (
            "title",
            "isbn",
            "genre",
            "published",
            "tags",
            "subtitle",
            "author.name",
            "author.email",
            "edition",
        )
        for payload in PAYLOADS["SQL_INJECTION"]
    ]
    assert json.loads(tests[0].request.body)["title"] == "' OR '1'='1"


def test_generation_is_deterministic(description):
    op = op_of(description, "createBook")
    first = generate(op, ["invalid", "security"], structured_body=[("title", "x")])
    second = generate(op, ["invalid", "security"], structured_body=[("title", "x")])
    # published is a date: its default is today, the same in both runs
    assert [(t.test_type, t.field, t.value, t.request.body) for t in first] == [
        (t.test_type, t.field, t.value, t.request.body) for t in second
    ]


def test_multi_and_kinds():
    assert [(m.mode, m.count) for m in multi_tests()] == [("SEQUENTIAL", 3), ("CONCURRENT", 5)]
    assert [(m.mode, m.count) for m in multi_tests(2, 4, excludes=["concurrent"])] == [("SEQUENTIAL", 2)]
    assert multi_tests(0, 1)[0].variables() == {"mode": "CONCURRENT", "count": 1}
    assert parse_kinds(["Invalid", "multi"]) == ("invalid", "multi")
    with pytest.raises(ValueError, match=r"unknown auto test kind 'fuzz' \(known: invalid, security, multi\)"):
        parse_kinds(["fuzz"])
    assert "XSS" in known_excludes() and "enum" in known_excludes() and "CONCURRENT" in known_excludes()
