"""The one writer: an imported file or request rendered in either dialect reads back as the model
said — the parser finds the same method, path, headers, body, checks and extracts."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from scenario_core.editor.render import RenderError, render_file, render_steps
from scenario_core.importing.model import (
    Extract,
    Feature,
    FileBody,
    FilePart,
    FormBody,
    ImportedFile,
    JsonBody,
    MultipartBody,
    Request,
    RunVariable,
    Scenario,
    TextBody,
)
from scenario_core.language.nodes.steps import DescribedStep, ExtractStep, RequestStep
from scenario_core.language.parser import parse_text

CREATE = Request(
    "POST",
    "/pets?notify=false",
    (("Authorization", "Bearer {{token}}"), ("Accept", "*/*")),
    JsonBody({"name": "Rex", "tags": ["dog"], "age": 3}),
    status=201,
    schema=True,
    extracts=(Extract("petId", "json", "$.id"), Extract("where", "header", "Location")),
    operation="createPet",
    comment="creates the pet the next steps read",
)


def _file(*requests: Request) -> ImportedFile:
    return ImportedFile(
        items=(Scenario("imported", requests),),
        base_url="http://127.0.0.1:8000",
        run_variables=(RunVariable("token", "the Authorization credential of POST /pets"),),
        source="curl",
    )


def _requests(steps) -> list[RequestStep]:
    found = []
    for step in steps:
        if isinstance(step, RequestStep):
            found.append(step)
        elif isinstance(step, DescribedStep):
            found += _requests(step.steps)
    return found


def _extracts(steps) -> list[tuple[str, str]]:
    found = []
    for step in steps:
        if isinstance(step, ExtractStep):
            found.append((step.name, step.text))
        elif isinstance(step, DescribedStep):
            found += _extracts(step.steps)
    return found


@pytest.mark.parametrize("dialect", ["ours", "berrycrush"])
def test_a_rendered_file_reads_back_with_its_header_comment_and_parameters(dialect):
    text = render_file(_file(CREATE), dialect)
    lines = text.splitlines()
    assert lines[0] == "# Imported from curl by scenario-tui import."
    assert "#   token: the Authorization credential of POST /pets" in lines
    assert "  baseUrl: http://127.0.0.1:8000" in lines
    assert "  # creates the pet the next steps read" in lines
    tree = parse_text(text, "x.scenario")
    scenario = tree.items[0]
    assert scenario.name == "imported"
    assert tree.parameters is not None or "parameters:" in text


def test_ours_writes_a_request_by_path_with_its_checks_and_extracts():
    text = render_file(_file(replace(CREATE, operation=None)), "ours")
    assert "  when: POST /pets?notify=false\n    headers:\n      Authorization: Bearer {{token}}\n" in text
    assert (
        "  then: status 201\n  then: schema\n  extract: petId from $.id\n  extract: where from header Location\n"
        in text
    )
    (step,) = _requests(parse_text(text, "x.scenario").items[0].steps)
    assert (step.method, step.url.text) == ("POST", "/pets?notify=false")
    assert [(h.name, h.value.text) for h in step.headers] == [("Authorization", "Bearer {{token}}"), ("Accept", "*/*")]
    assert json.loads(step.body.text) == {"name": "Rex", "tags": ["dog"], "age": 3}


def test_ours_calls_a_known_operation_with_its_parameters_as_children():
    # `then: schema` checks against the operation a call names: a request by path has none.
    read = Request(
        "GET", "/pets/{{petId}}", status=200, schema=True, operation="getPetById", parameters=(("id", "{{petId}}"),)
    )
    text = render_file(_file(read), "ours")
    assert "  when: ^getPetById\n    id: {{petId}}\n  then: status 200\n  then: schema\n" in text


def test_berrycrush_calls_the_operation_and_writes_our_line_for_a_header_extract():
    text = render_file(_file(CREATE), "berrycrush")
    assert "  when I call createPet\n    call ^createPet\n" in text
    assert '      header_Authorization: "Bearer {{token}}"\n' in text
    assert "    assert status 201\n    assert schema\n    extract $.id => petId\n" in text
    assert "\n  extract: where from header Location\n" in text
    steps = parse_text(text, "x.scenario").items[0].steps
    (call,) = _requests(steps)
    assert call.operation is not None and call.keyword == "call"
    assert [name for name, _ in _extracts(steps)] == ["petId", "where"]


def test_berrycrush_writes_our_lines_for_a_request_without_an_operation():
    plain = Request("GET", "/health", status=200)
    text = render_file(_file(plain), "berrycrush")
    assert "  when: GET /health\n  then: status 200\n" in text


@pytest.mark.parametrize("dialect", ["ours", "berrycrush"])
@pytest.mark.parametrize(
    "body, check",
    [
        (
            FormBody((("user", "demo"), ("user", "x y"), ("q", "a=b&c"))),
            lambda s: [(f.name, f.value.text) for f in s.form] == [("user", "demo"), ("user", "x y"), ("q", "a=b&c")],
        ),
        (
            MultipartBody(
                (
                    ("note", "file me"),
                    ("plain", "hello"),
                    ("photo", FilePart("my pet.png", "image/png")),
                    ("card", FilePart("card.txt")),
                )
            ),
            lambda s: (
                [(f.name, f.value.text, f.file, f.media_type) for f in s.multipart]
                == [
                    ("note", "file me", False, None),
                    ("plain", "hello", False, None),
                    ("photo", "my pet.png", True, "image/png"),
                    ("card", "card.txt", True, None),
                ]
            ),
        ),
        (
            TextBody("<pet>\n  <name>Rex</name>\n</pet>"),
            lambda s: s.body_raw.text == "<pet>\n  <name>Rex</name>\n</pet>",
        ),
        (FileBody("bodies/pet one.json"), lambda s: s.body_file.text == "bodies/pet one.json"),
        (
            JsonBody([{"name": "x" * 100, "n": None}]),
            lambda s: json.loads(s.body.text) == [{"name": "x" * 100, "n": None}],
        ),
        (JsonBody({"note": "a # not a comment"}), lambda s: json.loads(s.body.text) == {"note": "a # not a comment"}),
    ],
)
def test_every_body_form_reads_back_as_the_model_gave_it(body, check, dialect):
    request = Request("POST", "/things", body=body, operation="addThing" if dialect == "berrycrush" else None)
    text = render_file(_file(request), dialect)
    (step,) = _requests(parse_text(text, "x.scenario").items[0].steps)
    assert check(step), text


def test_a_feature_shares_its_variables_and_keeps_the_scenario_order():
    feature = Feature(
        "Pets", (Scenario("create", (CREATE,)), Scenario("read", (Request("GET", "/pets/{{petId}}", status=200),)))
    )
    text = render_file(ImportedFile(items=(feature,), base_url="http://h", source="OpenAPI petstore.yaml"), "ours")
    assert "feature: Pets\n  parameters:\n    shareVariablesAcrossScenarios: true\n  scenario: create\n" in text
    tree = parse_text(text, "x.scenario")
    assert [s.name for s in tree.items[0].scenarios] == ["create", "read"]


@pytest.mark.parametrize(
    "request_, why",
    [
        (Request("GET", "/a b"), "space"),
        (Request("GET", "/a", (("X-Note", "a #b"),)), "value"),
        (Request("GET", "/a", (("Bad:Name", "x"),)), "name"),
        (Request("POST", "/a", body=TextBody('say """')), '"""'),
        (Request("GE T", "/a"), "method"),
    ],
)
def test_what_cannot_be_written_faithfully_is_refused_in_one_line(request_, why):
    with pytest.raises(RenderError) as raised:
        render_file(_file(request_), "ours")
    assert why in str(raised.value) and "\n" not in str(raised.value)


def test_a_name_cannot_start_a_comment_and_tags_are_written_above_the_scenario():
    imported = ImportedFile(items=(Scenario("GET /a #1\nsecond", (Request("GET", "/a"),), tags=("smoke", "@api")),))
    text = render_file(imported)
    assert "@smoke @api\nscenario: GET /a 1 second\n" in text


@pytest.mark.parametrize("dialect", ["ours", "berrycrush"])
def test_render_steps_gives_indented_lines_that_read_in_a_scenario(dialect):
    lines = render_steps(CREATE, dialect, indent="    ")
    assert lines[0] == "    # creates the pet the next steps read"
    assert all(line.startswith("    ") for line in lines)
    text = "feature: F\n  scenario: s\n" + "".join(line + "\n" for line in lines)
    assert _requests(parse_text(text, "x.scenario").items[0].scenarios[0].steps)


def test_a_long_json_body_is_written_on_one_line():
    items = [{"n": number} for number in range(100)]  # indented, 400 lines: one line instead
    text = render_file(_file(Request("POST", "/bulk", body=JsonBody({"items": items}))))
    assert '    body: {"items": [{"n": 0}, {"n": 1}, ' in text
    (step,) = _requests(parse_text(text, "x.scenario").items[0].steps)
    assert json.loads(step.body.text) == {"items": items}
