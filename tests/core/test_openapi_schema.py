"""Checking responses against the operation's schema: each keyword family, 3.0 vs 3.1 vs Swagger 2.0
rules, strict mode, media type selection, messages, autoAssertions helpers, compile-once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scenario_core.openapi import schema_compile
from scenario_core.openapi.loader import DescriptionCache
from scenario_core.openapi.schema_check import (
    check_content_type,
    check_response,
    check_status,
    select_media,
    validate_value,
)
from scenario_core.openapi.schema_compile import compile_schema, to_json_schema

FIXTURES = Path(__file__).with_name("openapi_fixtures")


@pytest.fixture(scope="module")
def cache():
    return DescriptionCache()


def op_of(cache, name, op_id):
    return next(o for o in cache.load(FIXTURES / name).operations if o.id == op_id)


BOOK = {"id": 1, "title": "Dune", "author": {"name": "Frank"}}


def problems(op, body, status=201, strict=False, content_type="application/json"):
    result = check_response(op, status, content_type, json.dumps(body).encode(), strict=strict)
    return [str(p) for p in result.problems] if not result.ok else []


@pytest.fixture(scope="module")
def create30(cache):
    return op_of(cache, "library30.yaml", "createBook")


def test_a_valid_book_passes(create30):
    result = check_response(create30, 201, "application/json; charset=utf-8", json.dumps(BOOK))
    assert (result.ok, result.message, result.status_key, result.media_type) == (True, "", "201", "application/json")


@pytest.mark.parametrize(
    "change, expected",
    [
        ({"title": 7}, "$.title: expected string, got 7"),
        ({"title": None}, "$.title: expected string, got null"),
        ({"author": "x"}, '$.author: expected object, got "x"'),
        ({"title": ""}, '$.title: expected at least 1 characters, got "" (0)'),
        (
            {"title": "x" * 101},
            '$.title: expected at most 100 characters, got "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…" (101)',
        ),
        ({"genre": "poetry"}, '$.genre: expected one of ["fiction", "science", "history"], got "poetry"'),
        ({"pages": 0}, "$.pages: expected a number >= 1, got 0"),
        ({"pages": 5001}, "$.pages: expected a number <= 5000, got 5001"),
        ({"price": 0}, "$.price: expected a number > 0, got 0"),  # 3.0 boolean exclusiveMinimum
        ({"isbn": "abc"}, '$.isbn: expected text matching /^[0-9-]{10,17}$/, got "abc"'),
        ({"published": "2024-02-30"}, '$.published: expected format date, got "2024-02-30"'),
        ({"author": {"name": "a", "email": "nope"}}, '$.author.email: expected format email, got "nope"'),
        ({"tags": ["a", "b", 7]}, "$.tags[2]: expected string, got 7"),
        ({"tags": ["a", "b", "c", "d"]}, "$.tags: expected at most 3 items, got 4"),
        ({"author": {}}, "$.author: required property 'name' is missing"),
        (
            {"edition": "third"},
            "$.edition: expected exactly one of 2 alternatives (oneOf) to match, none did: "
            '$.edition: expected one of ["first", "second"], got "third"',
        ),
        ({"id": 0}, "$.id: expected a number >= 1, got 0"),
    ],
)
def test_each_keyword_family_names_path_wanted_and_got(create30, change, expected):
    assert problems(create30, {**BOOK, **change}) == [expected]


def test_required_at_the_root_and_message_shape(create30):
    result = check_response(create30, 201, "application/json", json.dumps({"id": 2, "author": {"name": "x"}}))
    assert not result.ok
    assert result.message == (
        "response 201 (application/json) does not match the schema of createBook "
        "(POST /books): $: required property 'title' is missing"
    )


def test_at_most_five_problems_then_a_count(create30):
    bad = {"id": "1", "title": 1, "author": 2, "pages": "x", "price": "y", "tags": "z", "genre": 3, "isbn": 4}
    result = check_response(create30, 201, "application/json", json.dumps(bad))
    assert len(result.problems) == 9  # genre: wrong type and not in the enum
    assert result.message.endswith("; … and 4 more")
    assert result.message.count("; ") == 5


def test_nullable_3_0_versus_3_1_type_arrays(cache, create30):
    assert problems(create30, {**BOOK, "subtitle": None}) == []
    assert problems(create30, {**BOOK, "subtitle": 3}) == ["$.subtitle: expected string or null, got 3"]
    create31 = op_of(cache, "library31.yaml", "createBook")
    assert problems(create31, {**BOOK, "subtitle": None}) == []
    assert problems(create31, {**BOOK, "subtitle": 3}) == ["$.subtitle: expected string or null, got 3"]
    # `nullable` means nothing in 3.1, a string type is just a string there
    schema31 = to_json_schema(create31.responses["201"].content["application/json"].schema)
    assert schema31["description"] == "a sibling 3.1 keeps"


def test_3_1_keywords(cache):
    op = op_of(cache, "library31.yaml", "createBook")
    assert problems(op, {**BOOK, "price": 0}) == ["$.price: expected a number > 0, got 0"]
    assert problems(op, {**BOOK, "kind": "film"}) == ['$.kind: expected "book", got "film"']
    assert problems(op, {**BOOK, "position": [1, 2]}) == ["$.position[1]: expected string, got 2"]
    assert problems(op, {**BOOK, "genre": "x"}) == ['$.genre: expected one of ["fiction", "science"], got "x"']


def test_swagger_2_schemas(cache):
    op = op_of(cache, "library20.json", "createBook")
    assert problems(op, {"id": 1, "title": "t", "subtitle": None}) == []  # x-nullable
    assert problems(op, {"id": 1, "title": "t", "price": 0}) == ["$.price: expected a number > 0, got 0"]
    assert problems(op, {"id": "1", "title": "t"}) == ['$.id: expected integer, got "1"']
    assert problems(op, {"title": "t"}, status=500) == [
        "$.error: required property 'error' is missing".replace(
            "$.error: required property 'error'", "$: required property 'error'"
        )
    ]


def test_strict_closes_objects_but_not_allof_branches(create30):
    extra = {**BOOK, "shelf": 3, "author": {"name": "a", "nick": "b"}}
    assert problems(create30, extra) == []
    assert problems(create30, extra, strict=True) == [
        "$.author.nick: unexpected property (the schema does not allow it)",
        "$.shelf: unexpected property (the schema does not allow it)",
    ]
    assert problems(create30, BOOK, strict=True) == []
    # a failing property does not make its siblings look unexpected
    assert problems(create30, {**BOOK, "pages": 0}, strict=True) == ["$.pages: expected a number >= 1, got 0"]


def test_strict_leaves_free_form_maps_and_explicit_additional_properties_alone(tmp_path):
    path = tmp_path / "a.yaml"
    path.write_text("""openapi: 3.0.0
info: {title: t, version: '1'}
paths:
  /a:
    get:
      operationId: a
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  free: {type: object}
                  labels: {type: object, additionalProperties: {type: string}}
                  one: {oneOf: [{type: object, properties: {a: {type: integer}}, required: [a]},
                                {type: object, properties: {b: {type: integer}}, required: [b]}]}
""")
    op = DescriptionCache().load(path).operations[0]
    ok = {"free": {"anything": 1}, "labels": {"x": "y"}, "one": {"a": 1}}
    assert problems(op, ok, status=200, strict=True) == []
    assert problems(op, {**ok, "labels": {"x": 1}}, status=200, strict=True) == ["$.labels.x: expected string, got 1"]
    assert problems(op, {**ok, "one": {"a": 1, "c": 2}}, status=200, strict=True) == [
        "$.one.c: unexpected property (the schema does not allow it)"
    ]
    assert problems(op, {**ok, "one": {"a": 1, "b": 2}}, status=200) == [
        "$.one: expected exactly one of 2 alternatives (oneOf) to match, several did"
    ]


def test_recursive_and_cross_file_schemas(cache, tmp_path):
    op = op_of(cache, "library30.yaml", "listBooks")
    assert problems(op, {"error": "x", "code": 99}, status=500) == ["$.code: expected a number >= 100, got 99"]
    path = tmp_path / "tree.yaml"
    path.write_text("""openapi: 3.1.0
info: {title: t, version: '1'}
paths:
  /t:
    get:
      operationId: tree
      responses:
        '200':
          description: ok
          content: {application/json: {schema: {$ref: '#/components/schemas/Node'}}}
components:
  schemas:
    Node: {type: object, properties: {v: {type: integer}, kids: {type: array, items: {$ref: '#/components/schemas/Node'}}}}
""")
    tree = DescriptionCache().load(path).operations[0]
    assert problems(tree, {"v": 1, "kids": [{"v": 2, "kids": [{"v": "x"}]}]}, status=200) == [
        '$.kids[0].kids[0].v: expected integer, got "x"'
    ]


def test_response_selection_by_status_and_content_type(cache):
    op = op_of(cache, "library30.yaml", "getBook")
    assert check_response(op, 203, "text/plain", b"abc").ok  # 2XX, text/*
    short = check_response(op, 200, "text/html; charset=utf-8", b"ab")
    assert short.message == (
        "response 200 (text/html) does not match the schema of getBook (GET /books/{bookId}): "
        '$: expected at least 3 characters, got "ab" (2)'
    )
    assert (short.status_key, short.media_type) == ("2XX", "text/*")
    assert check_response(op, 404, "application/problem+json", b'{"error": "gone"}').ok  # application/*
    wrong = check_response(op, 404, "text/plain", b"gone")
    assert wrong.message == (
        "response 404: Content-Type text/plain is not one getBook (GET /books/{bookId}) "
        "declares for 404 (application/*)"
    )
    undeclared = check_response(op, 500, "application/json", b"{}")
    assert (
        undeclared.message == "getBook (GET /books/{bookId}) declares no response for status 500 (declared: 2XX, 404)"
    )
    assert check_response(op, 200, "application/json", b"{").message.startswith(
        "response 200 (application/json): the body is not valid JSON: "
    )
    assert (
        check_response(op, 200, "application/json", b"").message
        == "response 200 (application/json): empty body, the schema expects a value"
    )
    assert check_response(op, 200, None, b"{}").message.startswith("response 200: Content-Type no Content-Type is")


def test_no_content_and_any_content(cache):
    delete = op_of(cache, "library30.yaml", "deleteBook")
    assert check_response(delete, 204, None, b"").ok
    assert check_response(delete, 204, "application/json", b"{}").message == (
        "response 204: deleteBook (DELETE /books/{bookId}) declares no body for 204, but the response has one"
    )
    cover = next(o for o in cache.load(FIXTURES / "library30.yaml").operations if o.id is None)
    assert check_response(cover, 200, "image/png", b"\x89PNG").ok  # */* without a schema


def test_parsed_body_is_used_when_given(create30):
    assert not check_response(create30, 201, "application/json", b"not json", parsed={**BOOK, "title": 1}).ok
    assert check_response(create30, 201, "application/json", b"not json", parsed=BOOK).ok


def test_select_media_prefers_exact_then_range_then_any(cache):
    content = {"*/*": "any", "application/*": "app", "application/json": "json"}
    assert select_media(content, "application/json; charset=utf-8") == "json"
    assert select_media(content, "Application/XML") == "app"
    assert select_media(content, "text/plain") == "any"
    assert select_media({"application/json": 1}, "text/plain") is None
    assert select_media({"application/json": 1}, None) is None


def test_auto_assertion_helpers(cache):
    op = op_of(cache, "library30.yaml", "getBook")
    assert check_status(op, 206) is None and check_status(op, 404) is None
    assert check_status(op, 500) == "status 500 is not one getBook (GET /books/{bookId}) declares (2XX, 404)"
    assert check_status(op_of(cache, "library30.yaml", "listBooks"), 599) is None  # default
    assert check_content_type(op, 200, "application/json; charset=utf-8") is None
    assert check_content_type(op, 200, "image/png") == (
        "Content-Type image/png is not one getBook (GET /books/{bookId}) declares for 2XX (application/json, text/*)"
    )
    delete = op_of(cache, "library30.yaml", "deleteBook")
    assert check_content_type(delete, 204, None, has_body=False) is None
    assert check_content_type(delete, 204, "text/plain", has_body=True) == (
        "deleteBook (DELETE /books/{bookId}) declares no body for 204, got text/plain"
    )


def test_validate_value_against_a_request_schema(create30):
    schema = create30.request_body.content["application/json"].schema
    assert [str(p) for p in validate_value(schema, {"title": "t"})] == ["$: required property 'author' is missing"]


def test_formats(tmp_path):
    path = tmp_path / "f.yaml"
    path.write_text("""openapi: 3.0.0
info: {title: t, version: '1'}
paths:
  /f:
    get:
      operationId: f
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  at: {type: string, format: date-time}
                  id: {type: string, format: uuid}
                  link: {type: string, format: uri}
                  small: {type: integer, format: int32}
                  ip: {type: string, format: ipv4}
""")
    op = DescriptionCache().load(path).operations[0]
    good = {
        "at": "2024-02-29T23:59:60.5+01:00",
        "id": "123e4567-e89b-12d3-a456-426614174000",
        "link": "https://x.org/a?b",
        "small": 2**31 - 1,
        "ip": "10.0.0.1",
    }
    assert problems(op, good, status=200) == []
    bad = {"at": "2023-02-29T10:00:00Z", "id": "nope", "link": "no scheme", "small": 2**31, "ip": "1.2.3"}
    assert problems(op, bad, status=200) == [
        '$.at: expected format date-time, got "2023-02-29T10:00:00Z"',
        '$.id: expected format uuid, got "nope"',
        '$.link: expected format uri, got "no scheme"',
        "$.small: expected format int32, got 2147483648",
        '$.ip: expected format ipv4, got "1.2.3"',
    ]


def test_validators_are_compiled_once_and_checks_are_cheap(cache, monkeypatch):
    op = op_of(cache, "library30.yaml", "createBook")
    schema = op.responses["201"].content["application/json"].schema
    assert compile_schema(schema) is compile_schema(schema)
    assert compile_schema(schema, strict=True) is not compile_schema(schema)
    body = json.dumps(BOOK).encode()
    check_response(op, 201, "application/json", body)
    # Cheap means no conversion or compiling per check, counted rather than timed (a check costs
    # ~0.04 ms, python bench/schema_check_cost.py; a round trip to the demo server ~0.5 ms).
    converted = []
    real = schema_compile.to_json_schema
    monkeypatch.setattr(schema_compile, "to_json_schema", lambda *a, **k: converted.append(a) or real(*a, **k))
    for _ in range(600):
        assert check_response(op, 201, "application/json", body).ok
    assert converted == []
    fresh = op_of(DescriptionCache(), "library30.yaml", "createBook")  # its own validators
    assert check_response(fresh, 201, "application/json", body).ok
    assert check_response(fresh, 201, "application/json", body).ok
    assert len(converted) == 1  # the counter counts: a new description compiles once
