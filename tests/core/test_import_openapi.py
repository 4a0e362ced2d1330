"""Importing OpenAPI descriptions (docs/import-har-openapi.md#openapi): a scenario per operation
with an example request, chained operations as a sharing feature in CRUD order, credentials as
run variables, and the description named relative to the written file."""

from __future__ import annotations

from pathlib import Path

import pytest

from scenario_core.editor.render import render_file
from scenario_core.importing.model import Extract, Feature, FormBody, JsonBody, Scenario, TextBody
from scenario_core.importing.openapi_examples import Examples
from scenario_core.importing.openapi_import import OpenApiImportError, read_openapi
from scenario_core.language.parser import parse_text
from scenario_core.openapi.loader import load_description

FIXTURES = Path(__file__).parent.parent / "fixtures" / "openapi-import"
OWNERS = str(FIXTURES / "owners.yaml")


def _feature(imported) -> Feature:
    return next(item for item in imported.items if isinstance(item, Feature))


def test_operations_on_a_created_resource_chain_in_create_read_update_delete_order():
    imported = read_openapi(OWNERS, str(FIXTURES / "out.scenario"))
    assert isinstance(imported.items[0], Scenario) and imported.items[0].name == "health"
    feature = _feature(imported)
    assert feature.share
    assert [s.name for s in feature.scenarios] == [
        "createOwner",
        "addPet",
        "getOwner",
        "getPet",
        "updateOwner",
        "removePet",
        "deleteOwner",
    ]
    requests = {s.name: s.requests[0] for s in feature.scenarios}
    assert requests["createOwner"].extracts == (Extract("ownerId", "json", "$.ownerId"),)
    assert requests["addPet"].extracts == (Extract("petId", "json", "$.id"),)
    assert requests["getPet"].path == "/owners/{{ownerId}}/pets/{{petId}}"
    assert requests["getPet"].parameters == (("ownerId", "{{ownerId}}"), ("petId", "{{petId}}"))
    assert requests["getPet"].operation == "getPet" and requests["getPet"].schema
    assert feature.scenarios[3].tags == ("pets", "read_only")  # the operation's tags, for --tags


def test_an_example_request_uses_the_description_examples_and_required_parameters():
    feature = _feature(read_openapi(OWNERS))
    requests = {s.name: s.requests[0] for s in feature.scenarios}
    # a media type's `examples` entry (through its $ref) wins over values built from the schema
    assert requests["createOwner"].body == JsonBody(
        {"ownerId": "00000000-0000-4000-8000-00000000000a", "name": "Ada Lovelace"}
    )
    # built from the schema: required properties, the format, the enum, the bounds
    assert requests["addPet"].body == JsonBody({"id": 100, "kind": "cat"})
    assert requests["updateOwner"].body == JsonBody(
        {"ownerId": "00000000-0000-4000-8000-000000000000", "name": "string"}
    )
    # a required query parameter with its example; an optional one left out
    assert requests["getOwner"].path == "/owners/{{ownerId}}?fields=name%2Ccontact"
    assert ("fields", "name,contact") in requests["getOwner"].parameters
    assert requests["createOwner"].status == 201 and requests["deleteOwner"].status == 204


def test_security_becomes_a_run_variable_on_each_request_that_needs_it():
    imported = read_openapi(OWNERS)
    assert [v.name for v in imported.run_variables] == ["apiKey"]
    assert imported.items[0].requests[0].headers == ()  # `security: []` on health
    for scenario in _feature(imported).scenarios:
        assert ("X-Api-Key", "{{apiKey}}") in scenario.requests[0].headers


def test_the_description_is_named_relative_to_the_written_file(tmp_path, monkeypatch):
    assert read_openapi(OWNERS, str(FIXTURES / "out.scenario")).openapi == "owners.yaml"
    assert read_openapi(OWNERS, str(tmp_path / "deeper" / "x.scenario")).openapi.endswith(
        "fixtures/openapi-import/owners.yaml"
    )
    monkeypatch.chdir(FIXTURES.parent)
    assert read_openapi(OWNERS).openapi == "openapi-import/owners.yaml"


@pytest.mark.parametrize("dialect", ["ours", "berrycrush"])
def test_the_written_file_parses_in_both_dialects(dialect):
    for spec in (OWNERS, str(FIXTURES / "no-ids.yaml")):
        text = render_file(read_openapi(spec, str(FIXTURES / "out.scenario")), dialect)
        parse_text(text, str(FIXTURES / "out.scenario"))


def test_a_description_without_operation_ids_writes_requests_by_path():
    imported = read_openapi(str(FIXTURES / "no-ids.yaml"))
    first = imported.items[0]
    assert isinstance(first, Scenario) and first.name == "GET /items"
    assert first.requests[0].path == "/items?page=1" and first.requests[0].operation is None
    assert not first.requests[0].schema  # `then: schema` needs an operation call
    assert first.requests[0].headers == (("Authorization", "Basic {{basicAuth}}"),)
    create, read = _feature(imported).scenarios
    assert create.requests[0].body == FormBody((("label", "string"),))
    assert create.requests[0].extracts == (Extract("itemId", "json", "$.id"),)
    assert read.requests[0].path == "/items/{{itemId}}"


def test_examples_stop_where_a_schema_recurs_and_keep_within_bounds(tmp_path):
    spec = tmp_path / "r.yaml"
    spec.write_text(
        "openapi: 3.0.3\ninfo: {title: r, version: '1'}\npaths: {}\ncomponents:\n  schemas:\n"
        "    Node:\n      type: object\n      required: [name, child, tags, size, ratio]\n      properties:\n"
        "        name: {type: string, maxLength: 3}\n        child: {$ref: '#/components/schemas/Node'}\n"
        "        tags: {type: array, minItems: 2, items: {type: string, format: date}}\n"
        "        size: {type: integer, exclusiveMinimum: true, minimum: 10, maximum: 20}\n"
        "        ratio: {type: number, maximum: 0.5}\n"
    )
    description = load_description(str(spec))
    from scenario_core.openapi.operations import Schema

    node = Schema({"$ref": "#/components/schemas/Node"}, description.path, "", "3.0", description)
    assert Examples(description).of_schema(node) == {
        "name": "str",
        "child": None,
        "tags": ["2026-01-01", "2026-01-01"],
        "size": 11,
        "ratio": 0.5,
    }


def test_bad_descriptions_are_one_line(tmp_path):
    missing = str(tmp_path / "nope.yaml")
    with pytest.raises(OpenApiImportError) as caught:
        read_openapi(missing)
    assert str(caught.value).startswith(missing) and "\n" not in str(caught.value)
    broken = tmp_path / "broken.yaml"
    broken.write_text("openapi: 3.0.3\npaths: [\n")
    with pytest.raises(OpenApiImportError) as caught:
        read_openapi(str(broken))
    assert str(caught.value).startswith(str(broken)) and "\n" not in str(caught.value)
    empty = tmp_path / "empty.yaml"
    empty.write_text("openapi: 3.0.3\ninfo: {title: e, version: '1'}\npaths: {}\n")
    with pytest.raises(OpenApiImportError, match="no operations to import"):
        read_openapi(str(empty))


def test_a_declared_credential_header_is_the_security_variable_never_its_example(tmp_path):
    # The demo's auth description declares `Authorization` as a header parameter of an operation
    # that also has bearer security: one header, the run variable.
    auth = Path(__file__).parents[2] / "core" / "demo" / "auth.yaml"
    imported = read_openapi(str(auth))
    who = next(s for s in imported.items if isinstance(s, Scenario) and s.name == "whoAmI")
    assert who.requests[0].headers == (("Authorization", "Bearer {{token}}"),)
    for dialect in ("ours", "berrycrush"):
        render_file(imported, dialect)
    spec = tmp_path / "keyed.yaml"
    spec.write_text(
        "openapi: 3.0.3\ninfo: {title: k, version: '1'}\npaths:\n  /things:\n    get:\n      operationId: things\n"
        "      parameters:\n        - {name: X-Api-Key, in: header, required: true, schema: {type: string}, example: k-123}\n"
        "        - {name: access_token, in: query, required: true, schema: {type: string}, example: t-456}\n"
        "      responses: {'200': {description: ok}}\n"
    )
    request = read_openapi(str(spec)).items[0].requests[0]  # type: ignore[union-attr]
    assert request.headers == (("X-Api-Key", "{{apiKey}}"),)
    assert request.path == "/things?access_token={{access_token}}"
    assert "k-123" not in render_file(read_openapi(str(spec))) and "t-456" not in render_file(read_openapi(str(spec)))


def test_names_and_values_a_line_cannot_hold_are_written_another_way(tmp_path):
    # Found by the fuzz: each made the writer refuse the whole file.
    spec = tmp_path / "odd.yaml"
    spec.write_text(
        "openapi: 3.0.3\ninfo: {title: o, version: '1'}\npaths:\n  /a b/{x}:\n    post:\n      operationId: '#'\n"
        "      parameters:\n        - {name: x, in: path, required: true, schema: {type: string}, example: 'p #q'}\n"
        "        - {name: '#', in: header, required: true, schema: {type: string}}\n"
        "      requestBody:\n        content:\n          application/x-www-form-urlencoded:\n"
        "            schema: {type: object, properties: {'': {type: string}, ok: {type: string, example: 'v #w'}}}\n"
        "      responses: {'200': {description: ok}}\n"
    )
    imported = read_openapi(str(spec))
    (scenario,) = imported.items
    request = scenario.requests[0]  # type: ignore[union-attr]
    assert scenario.name == "POST /a b/{x}" and request.operation is None
    assert request.path == "/a%20b/p%20%23q" and request.headers == (
        ("Content-Type", "application/x-www-form-urlencoded"),
    )
    assert request.body == TextBody("=string&ok=v+%23w")
    assert "# (POST /a b/{x}): its header parameter '#' is left out: not a valid name" in imported.notes
    for dialect in ("ours", "berrycrush"):
        render_file(imported, dialect)
