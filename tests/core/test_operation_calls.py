"""Operation calls in the compact dialect (`when: ^op`), against the demo API and its own
descriptions (core/demo/petstore.yaml, auth.yaml): children placed where the operation declares
them, structured bodies over schema defaults, `then: schema`, autoAssertions, base URLs, and
every error `check` finds before anything is sent."""

from __future__ import annotations

from pathlib import Path

import pytest

from scenario_core.language.errors import InvalidFileError
from scenario_core.language.parser import load_file, parse_text
from scenario_core.parameters.diagnostics import parameter_diagnostics
from scenario_core.parameters.resolution import RunOverrides
from scenario_core.run.events import AssertionChecked, RequestSent, ScenarioFinished, StepFinished
from scenario_core.run.executor import run_to_completion

DEMO = Path(__file__).resolve().parents[2] / "core" / "demo"
PETSTORE, AUTH = DEMO / "petstore.yaml", DEMO / "auth.yaml"

HEAD = f"""\
parameters:
  openapi: {PETSTORE}
  binding.auth.location: {AUTH}
  baseUrl: BASE
"""

LOGIN = """\
  when: using auth ^login
    body: {"username": "demo", "password": "demo"}
  extract: token from $.token
"""


def run(demo, write_scenario, text, overrides=None):
    path = write_scenario((HEAD + text).replace("BASE", demo.url))
    return run_to_completion([load_file(path)], RunOverrides(overrides or {}))


def of(events, cls):
    return [e for e in events if isinstance(e, cls)]


def failures(events) -> list[str]:
    return [e.message for e in of(events, StepFinished) if e.status == "failed"]


def check_errors(write_scenario, text: str) -> list[str]:
    path = write_scenario(HEAD.replace("BASE", "http://127.0.0.1:9") + text)
    file = load_file(path)
    return [str(d).split(": error: ", 1)[1] for d in parameter_diagnostics(file)]


def test_operation_call_children_go_where_the_operation_declares_them(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        "scenario: s\n"
        + LOGIN
        + """\
  when: ^createPet
    headers:
      Authorization: Bearer {{token}}
    body: {"name": "Rex", "age": 3}
  extract: id from $.id
  when: ^getPetById
    id: {{id}}
  when: ^listPets
    limit: 2
    query_trace: a b&c
""",
    )
    assert failures(events) == []
    sent = of(events, RequestSent)
    assert [(e.method, e.url.replace(demo.url, ""), e.operation) for e in sent] == [
        ("POST", "/auth/login", "login (POST /auth/login)"),
        ("POST", "/pets", "createPet (POST /pets)"),
        ("GET", "/pets/1", "getPetById (GET /pets/{id})"),
        ("GET", "/pets?limit=2&trace=a%20b%26c", "listPets (GET /pets)"),
    ]
    assert sent[2].placements == (("id", "path", "1"),)
    assert ("Content-Type", "application/json") in sent[1].headers  # from the operation's request body


def test_operation_call_structured_body_merges_over_schema_defaults(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        "scenario: s\n"
        + LOGIN
        + """\
  when: ^createPet
    headers:
      Authorization: Bearer {{token}}
    body:
      name: Max
      tag: "dog"
  then: status 201
  then: $.age == 0
""",
    )
    assert failures(events) == []
    body = of(events, RequestSent)[1].body
    assert '"name":"Max"' in body and '"tag":"dog"' in body and '"age":0' in body


def test_then_schema_checks_the_response_of_the_called_operation(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        """\
parameters:
  strictSchemaValidation: true
scenario: good
  when: ^getHealth
  then: schema
scenario: not found has its own schema
  when: ^getPetById
    id: 999
  then: status 404
  then: schema
scenario: no operation
  when: GET /health
  then: schema
""".replace("parameters:\n  strictSchemaValidation: true\n", ""),
    )
    statuses = {e.scenario.name: e.status for e in of(events, ScenarioFinished)}
    assert statuses == {"good": "passed", "not found has its own schema": "passed", "no operation": "failed"}
    assert failures(events) == [
        "then: schema needs an operation call before it (when: ^operationId): a request written as "
        "METHOD path has no schema to check against"
    ]
    assert of(events, AssertionChecked)[0].expected == "the response schema of getHealth (GET /health)"


def test_then_schema_failure_names_the_path_expected_and_got(demo, write_scenario, tmp_path):
    # A description that disagrees with the demo API: its health status must be an integer.
    wrong = tmp_path / "wrong.yaml"
    wrong.write_text(
        PETSTORE.read_text(encoding="utf-8").replace(
            "status: {type: string, enum: [ok]}", "status: {type: integer}", 1
        ),
        encoding="utf-8",
    )
    events = run(demo, write_scenario, "scenario: s\n  when: ^getHealth\n  then: schema\n", {"openapi": str(wrong)})
    assert failures(events) == [
        "response 200 (application/json) does not match the schema of getHealth "
        '(GET /health): $.status: expected integer, got "ok"'
    ]


def test_auto_assertions_check_every_operation_call(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        """\
scenario: undeclared status
  when: ^getPetById
    id: 999
  then: status 404
""",
        {"autoAssertions.enabled": True},
    )
    assert failures(events) == []  # 404 is declared by getPetById
    events = run(
        demo,
        write_scenario,
        """\
scenario: body against its schema
  when: ^getStatus
    code: 201
""",
        {"autoAssertions.enabled": True, "strictSchemaValidation": True},
    )
    assert failures(events) == []


def test_auto_assertions_fail_an_undeclared_status_or_content_type(demo, write_scenario, tmp_path):
    wrong = tmp_path / "wrong.yaml"
    text = PETSTORE.read_text(encoding="utf-8")
    wrong.write_text(
        text.replace('"200":\n          description: Always ok', '"201":\n          description: Always ok', 1).replace(
            '        "200":\n          description: Always ok', "", 1
        ),
        encoding="utf-8",
    )
    assert wrong.read_text(encoding="utf-8") != text
    events = run(
        demo,
        write_scenario,
        "scenario: s\n  when: ^getHealth\n  then: status 200\n",
        {"openapi": str(wrong), "autoAssertions.enabled": True},
    )
    (message,) = failures(events)
    assert message.startswith("autoAssertions: ") and "200" in message
    events = run(
        demo,
        write_scenario,
        "scenario: s\n  when: ^getHealth\n  then: status 200\n",
        {
            "openapi": str(wrong),
            "autoAssertions.enabled": True,
            "autoAssertions.statusCode": False,
            "autoAssertions.schema": False,
            "autoAssertions.contentType": False,
        },
    )
    assert failures(events) == []


def test_operation_base_url_binding_wins_then_written_base_url_then_servers(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        """\
scenario: s
  when: using auth ^login
    body: {"username": "demo", "password": "demo"}
""",
        {"binding.auth.baseUrl": "http://127.0.0.1:9"},
    )
    assert of(events, RequestSent)[0].url == "http://127.0.0.1:9/auth/login"
    assert "refused" in failures(events)[0] or "connect" in failures(events)[0]


@pytest.mark.parametrize(
    "call, message",
    [
        (
            "  when: ^getPetByID\n",
            "operation 'getPetByID' not found in the OpenAPI descriptions default, auth; did you mean 'getPetById'?",
        ),
        (
            "  when: ^login\n",
            "operation 'login' is in several OpenAPI descriptions: default, auth; say which with 'using NAME ^login'",
        ),
        ("  when: using nope ^login\n", "no OpenAPI description named 'nope'"),
        (
            "  when: ^getPetById\n    petId: 1\n",
            "^getPetById: 'petId' is not a parameter of getPetById (GET /pets/{id}) (it declares: id (path)",
        ),
        (
            "  when: ^getPetById\n",
            "^getPetById: getPetById (GET /pets/{id}) needs path parameter 'id': add a child 'id: VALUE' under the call",
        ),
    ],
    ids=["unknown", "ambiguous", "unknown-using", "undeclared-child", "missing-path-parameter"],
)
def test_check_resolves_every_operation_call(write_scenario, call, message):
    found = check_errors(write_scenario, "scenario: s\n" + call)
    assert len(found) == 1 and found[0].startswith(message), found


def test_check_locates_operation_errors_at_the_operation_and_the_child(write_scenario):
    path = write_scenario(
        HEAD.replace("BASE", "http://127.0.0.1:9") + "scenario: s\n  when: ^nope\n  when: ^getPetById\n    petId: 1\n"
    )
    found = [str(d) for d in parameter_diagnostics(load_file(path))]
    assert found[0].startswith(f"{path}:6:9: error: operation 'nope' not found")
    assert found[1].startswith(f"{path}:8:5: error: ^getPetById: 'petId' is not a parameter")


def test_children_belong_to_operation_calls_only():
    with pytest.raises(InvalidFileError) as caught:
        parse_text("scenario: s\n  when: GET /pets\n    limit: 2\n", "t.scenario")
    assert str(caught.value) == (
        "t.scenario:3:5: error: 'limit:' places a value in an operation's request; 'GET /pets' is not an "
        "operation call (when: ^operationId). Use headers: or query: here"
    )


def test_operation_call_without_a_description_is_a_check_error(write_scenario):
    path = write_scenario("scenario: s\n  when: ^getPetById\n    id: 1\n")
    found = [str(d) for d in parameter_diagnostics(load_file(path))]
    assert found == [
        f"{path}:2:9: error: no OpenAPI description is loaded: set the 'openapi' parameter "
        "(or --openapi) to call ^getPetById"
    ]


def test_openapi_option_names_descriptions(write_scenario):
    overrides = RunOverrides.from_cli([], None, [str(PETSTORE), f"auth={AUTH}"])
    assert overrides.values["openapi"] == str(PETSTORE)
    assert overrides.values["binding.auth.location"] == str(AUTH)
    path = write_scenario("scenario: s\n  when: using auth ^login\n")
    assert parameter_diagnostics(load_file(path), overrides) == []


def test_a_description_is_read_once_per_run_however_many_calls_and_checks(demo, write_scenario, tmp_path, monkeypatch):
    from scenario_core.openapi import loader as openapi

    copy = tmp_path / "once.yaml"  # a path no earlier test has loaded
    copy.write_text(PETSTORE.read_text(encoding="utf-8"), encoding="utf-8")
    reads: list[str] = []
    real = openapi.parse_document
    monkeypatch.setattr(openapi, "parse_document", lambda data, path: reads.append(path) or real(data, path))
    path = write_scenario(
        f"parameters:\n  openapi: {copy}\n  baseUrl: {demo.url}\n"
        "scenario: s\n"
        + "  when: ^getHealth\n  then: schema\n" * 50
        + "feature: F\n  scenario: t\n    when: ^getHealth\n"
    )
    file = load_file(path)
    assert parameter_diagnostics(file) == []  # check: the description's servers and every call
    events = run_to_completion([file])
    assert failures(events) == [] and len(of(events, RequestSent)) == 51
    assert reads == [str(copy.resolve())]
