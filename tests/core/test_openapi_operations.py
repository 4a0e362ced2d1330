"""The operation model, finding `^op` over named descriptions, and building requests from children."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from scenario_core.openapi.body_defaults import request_defaults
from scenario_core.openapi.loader import DescriptionCache
from scenario_core.openapi.operation_lookup import Descriptions, OperationLookupError, aliases_from_parameters
from scenario_core.openapi.request_builder import RequestBuildError, build_request

FIXTURES = Path(__file__).with_name("openapi_fixtures")
DEMO = Path(__file__).parents[2] / "core" / "demo"
NOW = datetime(2024, 5, 6, 7, 8, 9, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def cache():
    return DescriptionCache()


@pytest.fixture(scope="module")
def v30(cache):
    return cache.load(FIXTURES / "library30.yaml")


@pytest.fixture(scope="module")
def specs(cache):
    return Descriptions({"auth": cache.load(DEMO / "auth.yaml"), "default": cache.load(DEMO / "petstore.yaml")})


def op_of(description, op_id):
    return next(o for o in description.operations if o.id == op_id)


# ---------------------------------------------------------------------------------------- model


def test_operation_model_of_3_0(v30):
    op = op_of(v30, "getBook")
    assert (op.method, op.path, op.label) == ("GET", "/books/{bookId}", "getBook (GET /books/{bookId})")
    assert [(p.name, p.location, p.required, p.style, p.explode) for p in op.parameters] == [
        ("bookId", "path", True, "simple", False),
        ("session", "cookie", False, "form", True),
        ("fields", "query", False, "form", False),
    ]
    assert list(op.responses) == ["2XX", "404"]
    assert list(op.responses["2XX"].content) == ["application/json", "text/*"]
    assert op.response_for(204).status == "2XX" and op.response_for(404).status == "404"
    assert op.response_for(500) is None
    create = op_of(v30, "createBook")
    assert create.request_body.required and list(create.request_body.content) == ["application/json"]
    assert create.response_for(418).status == "4XX"
    nameless = next(o for o in v30.operations if o.id is None)
    assert nameless.label == "GET /books/{bookId}/cover"
    assert [(p.name, p.location) for p in nameless.parameters] == [("bookId", "path")]  # path-level, inherited


def test_operation_model_of_swagger_2(cache):
    d = cache.load(FIXTURES / "library20.json")
    listing = op_of(d, "listBooks")
    assert [(p.name, p.style, p.explode, p.default) for p in listing.parameters] == [
        ("tag", "form", True, None),
        ("ids", "form", False, None),
        ("limit", "form", False, 10),
    ]
    assert listing.parameters[2].schema.raw == {"type": "integer", "minimum": 1, "maximum": 100, "default": 10}
    create = op_of(d, "createBook")
    media = create.request_body.content["application/json"]
    assert (media.schema.pointer, media.schema.resolved()["required"]) == (
        "/paths/~1books/post/parameters/0/schema",
        ["title"],
    )
    assert list(create.responses) == ["201", "default"]
    assert create.responses["201"].content["application/json"].schema.raw == {"$ref": "#/definitions/Book"}
    upload = op_of(d, "uploadCover")
    form = upload.request_body.content["multipart/form-data"].schema.raw
    assert form == {
        "type": "object",
        "properties": {"file": {"type": "file"}, "caption": {"type": "string"}},
        "required": ["file"],
    }
    assert upload.responses["204"].content == {}


def test_demo_descriptions_name_every_operation(specs):
    assert specs.names == ["default", "auth"]
    assert specs.operation_ids("auth") == ["login", "oauthToken", "whoAmI"]
    assert {"createPet", "getPetById", "listPets", "updatePet", "patchPet", "deletePet", "login"} <= set(
        specs.operation_ids("default")
    )
    assert all(op.id for op in specs.operations("default"))


# --------------------------------------------------------------------------------------- lookup


def test_find_one_match_anywhere(specs):
    op = specs.find("^whoAmI")
    assert (op.label, op.description_name) == ("whoAmI (GET /auth/me)", "auth")
    assert specs.find("getPetById").description_name == "default"


def test_find_ambiguous_lists_the_descriptions(specs):
    with pytest.raises(OperationLookupError) as caught:
        specs.find("^login")
    assert str(caught.value) == (
        "operation 'login' is in several OpenAPI descriptions: default, auth; "
        "say which with 'using NAME ^login' (when: using NAME ^login, or call using NAME ^login)"
    )
    assert (caught.value.kind, caught.value.known) == ("ambiguous", ("default", "auth"))
    assert specs.find("^login", using="auth").path == "/auth/login"
    assert specs.find("^login", using="default").path == "/login"


def test_find_unknown_description(specs):
    with pytest.raises(OperationLookupError) as caught:
        specs.find("^login", using="auht")
    assert (
        str(caught.value) == "no OpenAPI description named 'auht'; did you mean 'auth'? (descriptions: default, auth)"
    )
    assert (caught.value.kind, caught.value.suggestion) == ("unknown-description", "auth")
    with pytest.raises(
        OperationLookupError, match=r"^no OpenAPI description named 'zz' \(descriptions: default, auth\)$"
    ):
        specs.find("^login", using="zz")


def test_find_not_found_with_did_you_mean(specs):
    with pytest.raises(OperationLookupError) as caught:
        specs.find("^getPetByID")
    message = str(caught.value)
    assert message.startswith(
        "operation 'getPetByID' not found in the OpenAPI descriptions default, auth; "
        "did you mean 'getPetById'? (operations: createPet, deletePet, echoDelete, "
    )
    assert (caught.value.kind, caught.value.suggestion) == ("not-found", "getPetById")
    assert "whoAmI" in caught.value.known
    with pytest.raises(OperationLookupError) as caught:
        specs.find("^getPetById", using="auth")
    assert str(caught.value) == (
        "operation 'getPetById' not found in OpenAPI description 'auth' (operations there: login, oauthToken, whoAmI)"
    )


def test_find_with_no_descriptions():
    with pytest.raises(OperationLookupError) as caught:
        Descriptions({}).find("^listPets")
    assert str(caught.value) == (
        "no OpenAPI description is loaded: set the 'openapi' parameter (or --openapi) to call ^listPets"
    )


def test_aliases_by_id_and_by_shape(specs):
    aliases = aliases_from_parameters(
        {
            "binding.alias.fetchPet": "^getPetById",
            "binding.default.alias.removePet": "delete /pets/{petId}/",
            "binding.auth.alias.signIn": "POST /auth/login",
            "timeout": 30,
        }
    )
    assert aliases == {
        "default": {"fetchPet": "^getPetById", "removePet": "delete /pets/{petId}/"},
        "auth": {"signIn": "POST /auth/login"},
    }
    assert specs.find("^fetchPet", aliases=aliases).id == "getPetById"
    assert specs.find("^removePet", aliases=aliases).id == "deletePet"
    assert specs.find("^signIn", using="auth", aliases=aliases).path == "/auth/login"
    with pytest.raises(OperationLookupError, match="not found in OpenAPI description 'default'"):
        specs.find("^signIn", using="default", aliases=aliases)


def test_alias_errors(specs):
    def fails(target):
        with pytest.raises(OperationLookupError) as caught:
            specs.find("^x", aliases={"default": {"x": target}})
        return str(caught.value)

    assert fails("getPetById") == (
        "alias 'x' (binding.default.alias.x) has target 'getPetById'; expected '^operationId' or 'METHOD /path'"
    )
    assert fails("GET /pets/{a}/{b}") == (
        "alias 'x' (binding.default.alias.x) points to 'GET /pets/{a}/{b}', "
        "which matches no operation; did you mean 'GET /pets/{id}'?"
    )
    assert fails("^login") == (
        "alias 'x' (binding.default.alias.x) names '^login', which is in several OpenAPI descriptions: default, auth"
    )
    assert fails("^nope").startswith(
        "alias 'x' (binding.default.alias.x) names '^nope', which is not an operation (operations: createPet, "
    )


# -------------------------------------------------------------------------------- placement


def test_children_go_where_the_operation_declares_them(v30):
    plan = build_request(op_of(v30, "listBooks"), [("limit", 5), ("tag", ["a b", "c&d"]), ("X-Trace", "t-1")])
    assert plan.method == "GET"
    assert plan.path == "/books?limit=5&tag=a%20b&tag=c%26d"
    assert plan.headers == (("X-Trace", "t-1"),)
    assert [(p.child, p.location, p.sent) for p in plan.placements] == [
        ("limit", "query", "limit=5"),
        ("tag", "query", "tag=a%20b&tag=c%26d"),
        ("X-Trace", "header", "X-Trace: t-1"),
    ]
    assert plan.url("https://h/api/") == "https://h/api/books?limit=5&tag=a%20b&tag=c%26d"
    assert plan.body is None and plan.content_type is None


def test_header_names_match_case_insensitively_and_prefixes_force_a_place(v30):
    plan = build_request(
        op_of(v30, "listBooks"),
        [("x-trace", "1"), ("query_extra", True), ("header_X-Other", 2), ("Header_Accept", "text/plain")],
    )
    assert plan.path == "/books?extra=true"
    assert plan.headers == (("X-Trace", "1"), ("X-Other", "2"), ("Accept", "text/plain"))
    assert [p.declared for p in plan.placements] == [True, False, False, False]


def test_path_values_are_encoded_as_one_segment_and_arrays_are_simple(v30):
    op = op_of(v30, "getBook")
    assert build_request(op, [("bookId", "a/b c?#")]).path == "/books/a%2Fb%20c%3F%23"
    assert build_request(op, [("bookId", [1, 2])]).path == "/books/1,2"
    assert build_request(op, [("bookId", 7), ("fields", ["title", "isbn"])]).path == "/books/7?fields=title,isbn"
    assert build_request(op, [("bookId", True)]).path == "/books/true"
    assert build_request(op, [("bookId", 1.5)]).path == "/books/1.5"


def test_cookie_parameters_make_one_cookie_header(v30):
    plan = build_request(op_of(v30, "getBook"), [("bookId", 1), ("session", "a b;c")])
    assert plan.headers == (("Cookie", "session=a%20b%3Bc"),)


def test_header_values_may_not_break_lines(v30):
    with pytest.raises(RequestBuildError, match=r"^header X-Trace \(child 'X-Trace'\) contains a line break or NUL$"):
        build_request(op_of(v30, "listBooks"), [("X-Trace", "a\r\nInjected: 1")])


def test_undeclared_child_is_an_error_naming_the_declared_ones(v30):
    with pytest.raises(RequestBuildError) as caught:
        build_request(op_of(v30, "listBooks"), [("limt", 5)])
    assert str(caught.value) == (
        "'limt' is not a parameter of listBooks (GET /books); did you mean 'limit'? "
        "(it declares: tag (query), limit (query), X-Trace (header); "
        "use query_limt or header_limt to send it anyway)"
    )
    assert caught.value.child == "limt"
    with pytest.raises(RequestBuildError, match=r"\(it declares: none; use query_q"):
        build_request(
            op_of(v30, "deleteBook").__class__(**{**op_of(v30, "deleteBook").__dict__, "parameters": ()}), [("q", 1)]
        )


def test_missing_required_path_parameter_is_an_error(v30):
    with pytest.raises(RequestBuildError) as caught:
        build_request(op_of(v30, "getBook"), [])
    assert str(caught.value) == (
        "getBook (GET /books/{bookId}) needs path parameter 'bookId': add a child 'bookId: VALUE' under the call"
    )
    plan = build_request(op_of(v30, "getBook"), [], check_required=False)
    assert plan.path == "/books/{bookId}"


def test_missing_required_query_is_a_warning(tmp_path):
    path = tmp_path / "a.yaml"
    path.write_text(
        "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n  /s:\n    get:\n      operationId: s\n"
        "      parameters: [{name: q, in: query, required: true, schema: {type: string}}]\n"
        "      responses: {'200': {description: ok}}\n"
    )
    plan = build_request(DescriptionCache().load(path).operations[0], [])
    assert plan.warnings == ("required query parameter 'q' is not given",)


STYLES = """openapi: 3.0.0
info: {title: t, version: '1'}
paths:
  /s/{simple}/{label}/{matrix}/{obj}:
    get:
      operationId: styles
      parameters:
        - {name: simple, in: path, required: true, schema: {type: array}}
        - {name: label, in: path, required: true, style: label, schema: {type: array}}
        - {name: matrix, in: path, required: true, style: matrix, explode: true, schema: {type: array}}
        - {name: obj, in: path, required: true, explode: true, schema: {type: object}}
        - {name: csv, in: query, explode: false, schema: {type: array}}
        - {name: sp, in: query, style: spaceDelimited, explode: false, schema: {type: array}}
        - {name: pipe, in: query, style: pipeDelimited, explode: false, schema: {type: array}}
        - {name: deep, in: query, style: deepObject, explode: true, schema: {type: object}}
        - {name: form, in: query, schema: {type: object}}
        - {name: raw, in: query, allowReserved: true, schema: {type: string}}
        - {name: X-List, in: header, schema: {type: array}}
      responses: {'200': {description: ok}}
"""


def test_every_style(tmp_path):
    path = tmp_path / "styles.yaml"
    path.write_text(STYLES)
    op = DescriptionCache().load(path).operations[0]
    plan = build_request(
        op,
        [
            ("simple", [1, 2]),
            ("label", ["a", "b"]),
            ("matrix", [3, 4]),
            ("obj", {"k": "v w", "n": 1}),
            ("csv", ["x", "y"]),
            ("sp", [1, 2]),
            ("pipe", [1, 2]),
            ("deep", {"a": 1, "b": "c"}),
            ("form", {"p": 1}),
            ("raw", "a/b?c"),
            ("X-List", [1, 2]),
            ("query_empty", []),
            ("query_nothing", None),
        ],
    )
    assert plan.path == (
        "/s/1,2/.a,b/;matrix=3;matrix=4/k=v%20w,n=1?csv=x,y&sp=1%202&pipe=1|2"
        "&deep%5Ba%5D=1&deep%5Bb%5D=c&p=1&raw=a/b?c&nothing="
    )
    assert plan.headers == (("X-List", "1,2"),)


# ------------------------------------------------------------------------------------ bodies


def test_structured_body_merges_over_schema_defaults(v30):
    plan = build_request(
        op_of(v30, "createBook"),
        [],
        structured_body=[("title", "Dune"), ("author", [("email", "f@h.org")]), ("tags", ["sf"]), ("extra", {"k": 1})],
        now=NOW,
    )
    assert plan.content_type == "application/json"
    assert plan.headers == (("Content-Type", "application/json"),)
    body = json.loads(plan.body)
    assert body == {
        "title": "Dune",
        "isbn": "978-3-16-148410-0",
        "genre": "science",
        "published": "2024-05-06",
        "pages": 1,
        "price": 0.5,
        "tags": ["sf"],
        "subtitle": "",
        "author": {"name": "", "email": "f@h.org"},
        "edition": 1,
        "extra": {"k": 1},
    }  # numbers inside their bounds, oneOf: its first alternative
    assert plan.json_body == body


def test_defaults_by_type_and_format(tmp_path):
    path = tmp_path / "a.yaml"
    path.write_text("""openapi: 3.1.0
info: {title: t, version: '1'}
paths:
  /a:
    post:
      operationId: a
      requestBody:
        content:
          application/xml: {schema: {type: object, properties: {x: {type: string}}}}
          application/json:
            schema:
              type: object
              properties:
                at: {type: string, format: date-time}
                time: {type: string, format: time}
                mail: {type: string, format: email}
                id: {type: string, format: uuid}
                link: {type: string, format: uri}
                flag: {type: boolean}
                list: {type: array}
                maybe: {type: [integer, "null"]}
                colour: {enum: [red, blue]}
                fixed: {const: 3}
                examples: {type: string, examples: [first]}
                node: {$ref: '#/components/schemas/Node'}
      responses: {'200': {description: ok}}
components:
  schemas:
    Node: {type: object, properties: {name: {type: string}, child: {$ref: '#/components/schemas/Node'}}}
""")
    op = DescriptionCache().load(path).operations[0]
    defaults = request_defaults(op, now=NOW)
    assert len(defaults.pop("id")) == 36
    assert defaults == {
        "at": "2024-05-06T07:08:09Z",
        "time": "07:08:09",
        "mail": "no-reply@berrycrush.org",
        "link": "http://localhost",
        "flag": False,
        "list": [],
        "maybe": 0,
        "colour": "red",
        "fixed": 3,
        "examples": "first",
        "node": {"name": "", "child": None},
    }
    assert request_defaults(op, "application/xml") == {"x": ""}


def test_raw_body_wins_and_content_type_is_kept(v30):
    op = op_of(v30, "createBook")
    plan = build_request(op, [("header_content-type", "text/plain")], body="hi", structured_body=[("title", "x")])
    assert (plan.body, plan.content_type) == (b"hi", "text/plain")
    assert plan.headers == (("content-type", "text/plain"),)
    assert plan.warnings == ("both a raw body and a structured body: the raw body is sent",)
    assert build_request(op, [], json_body={"a": 1}).body == b'{"a":1}'


def test_swagger_query_arrays_follow_collection_format(cache):
    op = op_of(cache.load(FIXTURES / "library20.json"), "listBooks")
    assert build_request(op, [("tag", ["a", "b"]), ("ids", [1, 2])]).path == "/books?tag=a&tag=b&ids=1,2"


def test_load_descriptions_by_name(cache):
    from scenario_core.openapi.loader import load_descriptions

    specs = load_descriptions({"auth": DEMO / "auth.yaml", "default": DEMO / "petstore.yaml"}, cache)
    assert specs.names == ["default", "auth"] and "auth" in specs and len(specs) == 2
    assert specs["auth"] is cache.load(DEMO / "auth.yaml")
