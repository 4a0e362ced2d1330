"""A broken OpenAPI description is found by `check`, located in the description, not at
run time as `internal error: …`: patterns that do not compile (or compile only in ECMA), `$ref`
cycles, `$ref`s to nothing and refused `$ref`s, and response schemas that are text. A run fails
the one assertion that needs such a schema, with the same located message. Recursive schemas
(a cycle through `properties`) stay legal and still validate."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from scenario_core.language.parser import load_file
from scenario_core.parameters.diagnostics import parameter_diagnostics
from scenario_core.parameters.resolution import RunOverrides
from scenario_core.run.events import ScenarioFinished, StepFinished
from scenario_core.run.executor import run_to_completion

SCRIPT = Path(sys.executable).with_name("scenario-tui")
ENV = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE", "NO_COLOR", "PYTEST_ADDOPTS")}

HEAD = """\
openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /health:
    get:
      operationId: getHealth
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                SCHEMA
components:
  schemas:
COMPONENTS
"""


def description(tmp_path: Path, schema: str, components: str = "    Unused: {type: string}") -> Path:
    path = tmp_path / "api.yaml"
    path.write_text(HEAD.replace("SCHEMA", schema).replace("COMPONENTS", components), encoding="utf-8")
    return path


def check_messages(tmp_path: Path) -> list[str]:
    path = tmp_path / "t.scenario"
    path.write_text(
        "parameters:\n  openapi: api.yaml\nscenario: s\n  when: ^getHealth\n  then: schema\n", encoding="utf-8"
    )
    return [f"{d.location.line}: {d.message}" for d in parameter_diagnostics(load_file(str(path)))]


def run_against_demo(tmp_path: Path, demo) -> tuple[str, str | None]:
    path = tmp_path / "t.scenario"
    path.write_text(
        "parameters:\n  openapi: api.yaml\nscenario: s\n  when: ^getHealth\n  then: schema\n", encoding="utf-8"
    )
    events = run_to_completion([load_file(str(path))], RunOverrides({"baseUrl": demo.url}))
    finished = [e for e in events if isinstance(e, ScenarioFinished)][0]
    failed = [e.message for e in events if isinstance(e, StepFinished) and e.status == "failed"]
    return finished.status, (failed or [None])[0]


@pytest.mark.parametrize(
    "pattern, why",
    [
        ("[a-", "does not compile: unterminated character set"),
        ("[^]", "does not compile"),  # ECMA: any character; Python/regex: unterminated
        ("(?<n>a)\\\\k<n>", "does not compile: bad escape \\k"),  # ECMA's named backreference
        ("(?:(?:(?:a{1000}){1000}){1000})", "repeats too much to compile"),
    ],
)
def test_check_reports_a_pattern_that_cannot_compile_located_in_the_description(tmp_path, pattern, why):
    api = description(tmp_path, '{type: object, properties: {s: {type: string, pattern: "' + pattern + '"}}}')
    messages = check_messages(tmp_path)
    assert len(messages) == 1, messages
    assert messages[0].startswith(f"4: ^getHealth: {api}:13:72: pattern /"), messages
    assert why in messages[0]


def test_check_reports_a_pattern_properties_key_that_cannot_compile(tmp_path):
    description(tmp_path, '{type: object, patternProperties: {"(unclosed": {type: string}}}')
    (message,) = check_messages(tmp_path)
    assert "pattern /(unclosed/ does not compile: missing )" in message and "api.yaml:13:" in message


def test_a_pattern_that_cannot_compile_fails_its_assertion_at_run_time_located(tmp_path, demo):
    api = description(tmp_path, '{type: object, properties: {status: {type: string, pattern: "[a-"}}}')
    status, message = run_against_demo(tmp_path, demo)
    assert status == "failed"
    assert message.startswith("response 200 (application/json): cannot check against the schema of getHealth")
    assert f"{api}:13:" in message and "does not compile" in message and "internal error" not in message


def test_check_reports_a_ref_alias_cycle(tmp_path):
    api = description(
        tmp_path,
        "$ref: '#/components/schemas/A'",
        "    A: {$ref: '#/components/schemas/B'}\n    B: {$ref: '#/components/schemas/A'}",
    )
    messages = check_messages(tmp_path)
    assert messages and all("a $ref cycle" in m for m in messages), messages
    assert f"{api}:" in messages[0]


def test_check_reports_a_cycle_through_all_of(tmp_path):
    description(tmp_path, "$ref: '#/components/schemas/A'", "    A: {allOf: [{$ref: '#/components/schemas/A'}]}")
    (message,) = check_messages(tmp_path)
    assert "a $ref cycle" in message


def test_a_recursive_schema_through_properties_is_legal_and_validates(tmp_path, demo):
    description(
        tmp_path,
        "$ref: '#/components/schemas/Node'",
        "    Node: {type: object, properties: {status: {type: string}, child: {$ref: '#/components/schemas/Node'}}}",
    )
    assert check_messages(tmp_path) == []
    assert run_against_demo(tmp_path, demo) == ("passed", None)


def test_a_ref_alias_cycle_fails_its_assertion_at_run_time_not_the_run(tmp_path, demo):
    description(
        tmp_path,
        "$ref: '#/components/schemas/A'",
        "    A: {$ref: '#/components/schemas/B'}\n    B: {$ref: '#/components/schemas/A'}",
    )
    status, message = run_against_demo(tmp_path, demo)
    assert status == "failed" and "a $ref cycle" in message and "internal error" not in message


def test_check_reports_a_ref_that_points_to_nothing(tmp_path):
    api = description(tmp_path, "$ref: '#/components/schemas/Missing'")
    (message,) = check_messages(tmp_path)
    assert f"{api}:13:" in message and "$ref '#/components/schemas/Missing' points to nothing" in message


@pytest.mark.parametrize(
    "ref, why",
    [
        ("http://example.com/schema.yaml", "is remote"),
        ("/dev/zero", "not a regular file"),
        ("missing.yaml", "points to nothing"),
    ],
)
def test_check_reports_a_refused_ref(tmp_path, ref, why):
    description(tmp_path, "{type: object, properties: {s: {$ref: '" + ref + "'}}}")
    (message,) = check_messages(tmp_path)
    assert "api.yaml:13:" in message and f"$ref '{ref}'" in message, message
    if why != "points to nothing":
        assert why in message, message


@pytest.mark.parametrize("schema", ['"Pet"', "$ref: '#/components/schemas/Text'"])
def test_check_reports_a_response_schema_that_is_text(tmp_path, schema):
    description(tmp_path, schema, "    Text: just words")
    (message,) = check_messages(tmp_path)
    assert "a schema must be a mapping (or true/false), got a str" in message and "api.yaml:" in message


@pytest.mark.parametrize("schema", ['"Pet"', "$ref: '#/components/schemas/Text'"])
def test_a_response_schema_that_is_text_does_not_make_then_schema_pass(tmp_path, demo, schema):
    description(tmp_path, schema, "    Text: just words")
    status, message = run_against_demo(tmp_path, demo)
    assert status == "failed" and "a schema must be a mapping" in message and "api.yaml:" in message


def test_check_reports_a_keyword_of_the_wrong_shape(tmp_path):
    description(tmp_path, "{type: object, required: true, properties: {status: {type: string}}}")
    (message,) = check_messages(tmp_path)
    assert "the schema is not valid JSON Schema" in message and "api.yaml:13:" in message


def test_check_command_exits_2_with_every_description_error_on_one_line_each(tmp_path):
    description(
        tmp_path,
        "{type: object, properties: {a: {type: string, pattern: '[a-'}, b: {$ref: '#/components/schemas/Nope'}}}",
    )
    path = tmp_path / "t.scenario"
    path.write_text(
        "parameters:\n  openapi: api.yaml\nscenario: s\n  when: ^getHealth\n  then: schema\n", encoding="utf-8"
    )
    result = subprocess.run([str(SCRIPT), "check", str(path)], capture_output=True, text=True, env=ENV, timeout=60)
    assert result.returncode == 2, result.stdout + result.stderr
    output = result.stdout + result.stderr
    assert "Traceback" not in output and "internal error" not in output
    assert "does not compile" in output and "points to nothing" in output, output


def test_a_json_description_problem_is_located_too(tmp_path):
    document = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {
            "/health": {
                "get": {
                    "operationId": "getHealth",
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {"application/json": {"schema": {"type": "string", "pattern": "(x"}}},
                        }
                    },
                }
            }
        },
    }
    (tmp_path / "api.json").write_text(json.dumps(document, indent=2), encoding="utf-8")
    path = tmp_path / "t.scenario"
    path.write_text("parameters:\n  openapi: api.json\nscenario: s\n  when: ^getHealth\n", encoding="utf-8")
    (message,) = [d.message for d in parameter_diagnostics(load_file(str(path)))]
    assert f"{tmp_path / 'api.json'}:" in message and "does not compile" in message
