"""BerryCrush's files as written, round 3: outline columns named with dots
(docs/spec/parameters.md#references-in-values), the binding named `default`
(docs/spec/berrycrush.md#the-default-binding) and named parameter blocks taken in with `<< NAME`
(docs/spec/berrycrush.md#named-parameter-blocks). Each in both dialects where it applies; runs go
against the demo API on loopback, never a mocked client."""

from __future__ import annotations

import json
import socket
import textwrap
from pathlib import Path

from scenario_core.language.parser import load_file
from scenario_core.parameters.resolution import RunOverrides
from scenario_core.run.events import AutoTestRan, RequestSent, ScenarioFinished, StepFinished
from scenario_core.run.executor import run_to_completion
from scenario_tui.cli.main import main

PETSTORE = Path(__file__).resolve().parents[2] / "core" / "demo" / "petstore.yaml"


def run_file(path: Path, overrides: RunOverrides | None = None):
    return run_to_completion([load_file(path)], overrides or RunOverrides({}))


def statuses(events) -> list[tuple[str, str]]:
    return [(e.scenario.name, e.status) for e in events if isinstance(e, ScenarioFinished)]


def messages(events) -> list[str]:
    return [e.message for e in events if isinstance(e, StepFinished) and e.message]


def check(path: Path, capsys) -> tuple[int, str]:
    code = main(["check", str(path)])
    out = capsys.readouterr()
    return code, out.out + out.err


# ---------------------------------------------------------------- outline columns named with dots


def test_outline_column_with_a_dot_is_readable_in_the_outlines_own_parameters(write_scenario, demo):
    path = write_scenario(
        f"""
        parameters:
          openapi: {PETSTORE}
          baseUrl: {demo.url}
          custom:
            value: file

        outline: a dotted column
          parameters:
            custom:
              value: "{{{{custom.value}}}}"
          when I echo the parameter
            call raw GET /echo
              seen: "{{{{param.custom.value}}}}"
              cell: "{{{{custom.value}}}}"
          then the server saw the row's value as the parameter and as the cell
            assert status 200
            assert $.query.seen equals "{{{{custom.value}}}}"
            assert $.query.cell equals "{{{{custom.value}}}}"
          examples:
            | custom.value |
            | first        |
            | second       |
        """
    )
    events = run_file(path)
    assert [s for _, s in statuses(events)] == ["passed", "passed"], messages(events)


def test_outline_column_with_a_dot_in_compact_steps(write_scenario, demo):
    path = write_scenario(
        f"""
        parameters:
          baseUrl: {demo.url}

        outline: compact steps reading a dotted column
          parameters:
            header.X-Tier: "{{{{plan.tier}}}}"
          when: GET /echo
          then: status 200
          then: $.headers.x-tier == "{{{{plan.tier}}}}"
          examples:
            | plan.tier |
            | gold      |
            | silver    |
        """
    )
    events = run_file(path)
    assert [s for _, s in statuses(events)] == ["passed", "passed"], messages(events)


def test_a_dotted_name_that_is_no_column_keeps_the_static_parameters_error(write_scenario, capsys):
    path = write_scenario(
        """
        outline: o
          parameters:
            custom.value: "{{other.value}}"
          when: GET /echo
          examples:
            | custom.value |
            | a            |
        """
    )
    code, out = check(path, capsys)
    assert code == 2
    assert "test.scenario:3:19: error: custom.value cannot use {{other.value}}: parameters are static" in out


# ---------------------------------------------------------------- the binding named default


def test_binding_default_base_url_reads_the_runs_base_url(write_scenario, demo):
    path = write_scenario(
        f"""
        parameters:
          openapi: {PETSTORE}
          baseUrl: {demo.url}

        outline: a binding built from the default one
          parameters:
            binding.pets:
              baseUrl: "{{{{param.binding.default.baseUrl}}}}"
              location: "{{{{file}}}}"
          when I list pets through it
            call using pets ^listPets
            assert status 200
          then a step reads it too
            call using pets raw GET /echo
              base: "{{{{param.binding.default.baseUrl}}}}"
            assert $.query.base equals "{demo.url}"
          examples:
            | file       |
            | {PETSTORE} |
        """
    )
    events = run_file(path)
    assert statuses(events) == [(statuses(events)[0][0], "passed")], messages(events)


def test_binding_default_base_url_reads_the_command_lines_base_url(write_scenario, demo, capsys):
    path = write_scenario(
        """
        scenario: compact
          when: GET /echo?base={{param.binding.default.baseUrl}}
          then: status 200
          then: $.query.base matches "^http://127"
        """
    )
    code = main(["run", str(path), "--base-url", demo.url])
    assert code == 0, capsys.readouterr().out


def test_binding_default_written_as_keys_sets_base_url_and_openapi(write_scenario, demo, capsys):
    path = write_scenario(
        f"""
        parameters:
          binding.default:
            baseUrl: {demo.url}
            location: {PETSTORE}

        scenario: the default binding written out
          when I list pets
            call ^listPets
            assert status 200
        """
    )
    events = run_file(path)
    assert [s for _, s in statuses(events)] == ["passed"], messages(events)
    assert main(["params", str(path), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    text = json.dumps(shown)
    assert demo.url in text and "binding.default.baseUrl" not in text


def test_binding_default_and_base_url_in_one_block_are_a_duplicate_key(write_scenario, capsys):
    path = write_scenario(
        """
        parameters:
          baseUrl: http://127.0.0.1:1
          binding.default.baseUrl: http://127.0.0.1:2
        scenario: s
          when: GET /health
        """
    )
    code, out = check(path, capsys)
    assert code == 2
    assert "test.scenario:3:3: error: duplicate parameter 'baseUrl'; it is already set on line 2" in out


# ---------------------------------------------------------------- named parameter blocks


def _fragment_file(tmp_path: Path, text: str) -> None:
    folder = tmp_path / "fragments"
    folder.mkdir(exist_ok=True)
    (folder / "shared.fragment").write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


def test_named_parameters_block_of_a_fragment_file_is_taken_in_with_merge_line(write_scenario, tmp_path, demo):
    _fragment_file(
        tmp_path,
        f"""
        fragment: health
          when I ask for health
            call raw GET /health
            assert status 200

        parameters: server
          baseUrl: {demo.url}
          openapi: {PETSTORE}
          header.X-From: fragment
        """,
    )
    path = write_scenario(
        """
        parameters:
          << server
          header.X-From: scenario

        scenario: uses the named block
          parameters:
            fragment-name: health
          when I call it
            include {{param.fragment-name}}
          then the scenario's own key won
            call raw GET /echo
            assert $.headers.x-from equals "scenario"
        """
    )
    events = run_file(path)
    assert [s for _, s in statuses(events)] == ["passed"], messages(events)


def test_named_parameters_block_in_compact_steps_and_at_each_level(write_scenario, tmp_path, demo):
    _fragment_file(tmp_path, f"parameters: server\n  baseUrl: {demo.url}\n  retry:\n    maxAttempts: 2\n")
    path = write_scenario(
        """
        parameters: local
          header.X-Level: named

        feature: f
          parameters:
            << server
          scenario: compact
            parameters:
              << local
            when: GET /echo
            then: status 200
            then: $.headers.x-level == "named"
        """
    )
    events = run_file(path)
    assert [s for _, s in statuses(events)] == ["passed"], messages(events)


def test_merge_of_an_unknown_block_is_a_located_error(write_scenario, capsys):
    path = write_scenario(
        """
        parameters:
          << nowhere
        scenario: s
          when: GET /health
        """
    )
    code, out = check(path, capsys)
    assert code == 2
    assert "test.scenario:2:6: error: no parameters block named 'nowhere' (named blocks: none)" in out
    assert out.count("no parameters block named") == 1


def test_two_named_blocks_with_one_name_are_an_error_naming_both(write_scenario, tmp_path, capsys):
    _fragment_file(tmp_path, "parameters: server\n  timeout: 5\n")
    path = write_scenario(
        """
        parameters: server
          timeout: 6
        scenario: s
          when: GET /health
        """
    )
    code, out = check(path, capsys)
    assert code == 2
    assert "parameters block 'server' is defined twice:" in out
    assert "shared.fragment:1 and " in out and "test.scenario:1" in out


def test_named_block_inside_another_block_is_a_located_error(write_scenario, capsys):
    path = write_scenario(
        """
        scenario: s
          parameters: inner
            timeout: 5
          when: GET /health
        """
    )
    code, out = check(path, capsys)
    assert code == 2
    assert "test.scenario:2:15: error: 'parameters: NAME' (a named block) goes at the top level" in out


def test_a_taken_in_value_is_checked_where_the_named_block_wrote_it(write_scenario, tmp_path, capsys):
    _fragment_file(tmp_path, "parameters: server\n  timeout: soon\n")
    path = write_scenario("parameters:\n  << server\nscenario: s\n  when: GET /health\n")
    code, out = check(path, capsys)
    assert code == 2
    assert "test.scenario:2:6: error: parameters block 'server' cannot be used: " in out
    assert 'shared.fragment:2:12: timeout must be a positive integer number of seconds, got "soon"' in out


# ---------------------------------------------------------------- a call child the operation does not declare


def test_call_child_no_parameter_declares_is_an_error_local_to_its_scenario(write_scenario, demo, capsys):
    path = write_scenario(
        f"""
        parameters:
          openapi: {PETSTORE}
          baseUrl: {demo.url}

        scenario: a child nothing declares
          when I create a pet
            call ^createPet
              nickname: "Fluffy"
            assert status 201

        scenario: the file's other scenarios run
          when I list pets
            call ^listPets
            assert status 200
        """
    )
    code, out = check(path, capsys)
    assert code == 2
    assert "test.scenario:8:7: error: ^createPet: 'nickname' is not a parameter of createPet" in out
    events = run_to_completion([_load_valid(path)], RunOverrides({}))
    assert [s for _, s in statuses(events)] == ["failed", "passed"], messages(events)
    assert "^createPet: 'nickname' is not a parameter of createPet" in messages(events)[0]
    assert [e.method for e in events if isinstance(e, RequestSent)] == ["GET"]  # it ended before sending


def test_call_child_no_parameter_declares_in_compact_steps_is_local_too(write_scenario, demo):
    path = write_scenario(
        f"""
        parameters:
          openapi: {PETSTORE}
          baseUrl: {demo.url}

        scenario: compact call with a stray child
          when: ^listPets
            colour: red
          then: status 200

        scenario: compact call as declared
          when: ^listPets
          then: status 200
        """
    )
    events = run_to_completion([_load_valid(path)], RunOverrides({}))
    assert [s for _, s in statuses(events)] == ["failed", "passed"], messages(events)
    assert len([e for e in events if isinstance(e, RequestSent)]) == 1


def test_call_child_no_parameter_declares_in_a_background_refuses_the_file(write_scenario, capsys):
    path = write_scenario(
        f"""
        parameters:
          openapi: {PETSTORE}
        background:
          when: ^listPets
            colour: red
        scenario: s
          when: GET /health
        """
    )
    code = main(["run", str(path)])
    out = capsys.readouterr()
    assert code == 2
    assert "test.scenario:5:5: error: ^listPets: 'colour' is not a parameter of listPets" in out.out + out.err


def _load_valid(path: Path):
    from scenario_core.parameters.diagnostics import load_valid

    (node,) = load_valid([str(path)])
    return node


# ---------------------------------------------------------------- auto: [multi] repeats (docs/spec/berrycrush.md#auto-tests)


def _nowhere() -> str:
    """A loopback URL where nothing listens (the port was free a moment ago)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def test_status_minus_one_is_checked_in_each_multi_repeat(write_scenario):
    path = write_scenario(
        f"""
        parameters:
          openapi: {PETSTORE}
          baseUrl: {_nowhere()}

        scenario: repeats to a server that is not there
          given the repeats expect no response
            call ^getHealth
              auto: [multi]
              multiTestSequentialCount: 2
              multiTestConcurrentCount: 2
            assert status -1
        """
    )
    events = run_file(path)
    assert [s for _, s in statuses(events)] == ["passed"], messages(events)
    ran = [e for e in events if isinstance(e, AutoTestRan)]
    assert [(e.test_type, e.passed) for e in ran] == [("SEQUENTIAL", True), ("SEQUENTIAL", True), ("CONCURRENT", True)]


def test_status_minus_one_in_multi_repeats_fails_when_a_response_comes(write_scenario, demo):
    path = write_scenario(
        f"""
        parameters:
          openapi: {PETSTORE}
          baseUrl: {demo.url}

        scenario: repeats that get answers
          given the repeats expect no response
            call ^getHealth
              auto: [multi]
              excludes: [concurrent]
            assert status -1
        """
    )
    events = run_file(path)
    assert [s for _, s in statuses(events)] == ["failed"]
    assert "expected no response (status -1), got status 200" in messages(events)[0]


def test_unit_checks_run_for_each_response_of_a_concurrent_repeat(write_scenario, demo):
    path = write_scenario(
        f"""
        parameters:
          openapi: {PETSTORE}
          baseUrl: {demo.url}

        scenario: every concurrent response is checked
          given three at once
            call ^incrementCounter
              auto: [multi]
              excludes: [sequential]
              multiTestConcurrentCount: 3
            assert status 200
            if $.value equals 2
              fail "the response holding 2 was checked"
        """
    )
    events = run_file(path)  # the counter starts at 0: the three responses hold 1, 2 and 3, in any order
    assert [s for _, s in statuses(events)] == ["failed"]
    ran = [e for e in events if isinstance(e, AutoTestRan)]
    assert [(e.test_type, e.passed) for e in ran] == [("CONCURRENT", False)]
    assert "the response holding 2 was checked" in messages(events)[0]


def test_multi_test_variables_stay_set_after_the_multi_test(write_scenario, demo):
    path = write_scenario(
        f"""
        parameters:
          openapi: {PETSTORE}
          baseUrl: {demo.url}

        scenario: kept after the repeats
          given the repeats run
            call ^getHealth
              auto: [multi]
              multiTestSequentialCount: 2
              multiTestConcurrentCount: 3
            assert status 200
          then what they set is still there
            call raw GET /echo
              mode: "{{{{multiTest.mode}}}}"
              count: "{{{{multiTest.count}}}}"
              result: "{{{{multiTest.result}}}}"
            assert $.query.mode equals "CONCURRENT"
            assert $.query.count equals "3"
            assert $.query.result equals "true"
            if multiTest.mode equals CONCURRENT
              assert status 200
        """
    )
    events = run_file(path)
    assert [s for _, s in statuses(events)] == ["passed"], messages(events)


def test_multi_test_variables_stay_set_in_compact_steps(write_scenario, demo, capsys):
    path = write_scenario(
        f"""
        parameters:
          openapi: {PETSTORE}
          baseUrl: {demo.url}

        scenario: compact
          when: ^getHealth
            auto: [multi]
            excludes: [concurrent]
          when: GET /echo?mode={{{{multiTest.mode}}}}&count={{{{multiTest.count}}}}
          then: $.query.mode == "SEQUENTIAL"
          then: $.query.count == "3"
        """
    )
    events = run_file(path)
    assert [s for _, s in statuses(events)] == ["passed"], messages(events)
    assert main(["check", str(path)]) == 0
    assert "warning" not in capsys.readouterr().err


# ---------------------------------------------------------------- webhooks (docs/spec/berrycrush.md#webhooks)


def test_webhook_hooks_written_as_a_dash_list_each_receive_calls(write_scenario, demo):
    path = write_scenario(
        """
        scenario: hooks as a list
          given a webhook with two hooks
            webhook: events
              port: 0
              hooks:
                - started
                - "finished"
          when: POST {{events.finished}}
            body: {"done": true}
          then: status 200
          when: POST {base}/echo
            body: {"finished": {{events.finished.length}}, "started": {{events.started.length}}}
          then: $.json.finished == 1
          then: $.json.started == 0
        """.replace("{base}", demo.url)
    )
    events = run_file(path)
    assert [s for _, s in statuses(events)] == ["passed"], messages(events)


def test_webhook_hooks_dash_list_with_a_bad_line_is_a_located_error(write_scenario, capsys):
    path = write_scenario(
        """
        scenario: s
          given a webhook
            webhook: events
              hooks:
                - ok
                - two words
        """
    )
    code, out = check(path, capsys)
    assert code == 2
    assert "test.scenario:6:9: error: hooks: takes '- name' lines (letters, digits, _ and -), got - two words" in out


# ---------------------------------------------------------------- user parameter values keep their type (docs/spec/parameters.md#user-parameters)


def test_user_parameter_value_keeps_its_scalar_type_in_params_json(write_scenario, capsys):
    path = write_scenario(
        """
        parameters:
          custom:
            port: 9090
            ratio: 1.5
            on: true
            label: "9090"
            host: localhost
        scenario: s
          when: GET /health?p={{param.custom.port}}&r={{param.custom.ratio}}&o={{param.custom.on}}
        """
    )
    assert main(["params", str(path), "--json", "--param", "custom.extra=7"]) == 0
    shown = json.loads(capsys.readouterr().out)
    values = {k: v["value"] for k, v in _flat_params(shown).items() if k.startswith("custom.")}
    assert values == {
        "custom.port": 9090,
        "custom.ratio": 1.5,
        "custom.on": True,
        "custom.label": "9090",
        "custom.host": "localhost",
        "custom.extra": 7,
    }


def _flat_params(shown) -> dict:
    """`params --json`'s entries by key, wherever the output nests them."""
    found: dict = {}

    def walk(node) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if isinstance(value, dict) and "value" in value and "source" in value:
                    found.setdefault(key, value)
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(shown)
    return found


def test_user_parameter_number_and_boolean_are_sent_typed_and_read_as_text(write_scenario, demo):
    path = write_scenario(
        f"""
        parameters:
          baseUrl: {demo.url}
          custom:
            port: 9090
            on: true
            label: "9090"

        scenario: typed in a body, text in a path
          when I send them
            call raw POST /echo?port={{{{param.custom.port}}}}&on={{{{param.custom.on}}}}
              body: {{"port": {{{{param.custom.port}}}}, "on": {{{{param.custom.on}}}}, "label": {{{{param.custom.label}}}}}}
            assert $.json.port equals 9090
            assert $.json.on equals true
            assert $.json.label equals "9090"
            assert $.query.port equals "9090"
            assert $.query.on equals "true"
        """
    )
    events = run_file(path)
    assert [s for _, s in statuses(events)] == ["passed"], messages(events)


# ---------------------------------------------------------------- asked by BerryCrush's users: verified here
# Swagger 2.0 descriptions and external $ref schema files (docs/openapi.md), whole-line custom step
# patterns (docs/spec/steps.md#custom-steps), references resolved per examples row
# (docs/spec/parameters.md#references-in-values).

SWAGGER = """\
swagger: "2.0"
info: {title: demo in Swagger 2.0, version: "1"}
host: HOST
basePath: /
schemes: [http]
paths:
  /echo:
    post:
      operationId: echoBody
      consumes: [application/json]
      parameters:
        - {name: payload, in: body, required: true, schema: {$ref: "#/definitions/Payload"}}
      responses:
        "200": {description: what it got, schema: {$ref: "#/definitions/Echo"}}
  /status/{code}:
    get:
      operationId: statusOf
      parameters:
        - {name: code, in: path, required: true, type: integer}
      responses:
        "418": {description: a teapot, schema: {$ref: "#/definitions/Status"}}
definitions:
  Payload: {type: object, required: [name], properties: {name: {type: string}}}
  Echo:
    type: object
    required: [method, json]
    properties: {method: {type: string}, json: {$ref: "#/definitions/Payload"}}
  Status: {type: object, required: [status], properties: {status: {type: integer, minimum: 400}}}
"""


def test_swagger_2_description_calls_run_against_its_host_and_base_path(write_scenario, tmp_path, demo):
    (tmp_path / "swagger.yaml").write_text(SWAGGER.replace("HOST", demo.url.split("//", 1)[1]), encoding="utf-8")
    path = write_scenario(
        """
        parameters:
          openapi: swagger.yaml

        scenario: BerryCrush steps on a Swagger 2.0 description
          when I send a body parameter
            call ^echoBody
              body:
                name: Rex
            assert status 200
            assert schema
            assert $.json.name equals "Rex"

        scenario: compact steps on a Swagger 2.0 description
          when: ^statusOf
            code: 418
          then: status 418
          then: schema
        """
    )
    events = run_file(path)
    assert [s for _, s in statuses(events)] == ["passed", "passed"], messages(events)
    sent = [e.url for e in events if isinstance(e, RequestSent)]
    assert sent == [f"{demo.url}/echo", f"{demo.url}/status/418"]


def _external_ref_description(tmp_path: Path, required: str) -> None:
    (tmp_path / "schemas").mkdir(exist_ok=True)
    (tmp_path / "schemas" / "echo.yaml").write_text(
        f"type: object\nrequired: [{required}]\nproperties:\n  method: {{type: string}}\n  path: {{type: string}}\n",
        encoding="utf-8",
    )
    (tmp_path / "api.yaml").write_text(
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /echo:\n    get:\n      operationId: echoGet\n"
        "      responses:\n        '200':\n          description: ok\n          content:\n"
        "            application/json:\n              schema: {$ref: 'schemas/echo.yaml'}\n",
        encoding="utf-8",
    )


def test_external_ref_schema_file_checks_the_response(write_scenario, tmp_path, demo):
    _external_ref_description(tmp_path, "method, path")
    path = write_scenario(
        f"""
        parameters:
          openapi: api.yaml
          baseUrl: {demo.url}
        scenario: BerryCrush steps
          when I echo
            call ^echoGet
            assert schema
        scenario: compact steps
          when: ^echoGet
          then: schema
        """
    )
    events = run_file(path)
    assert [s for _, s in statuses(events)] == ["passed", "passed"], messages(events)


def test_external_ref_schema_file_failing_names_what_is_missing(write_scenario, tmp_path, demo):
    _external_ref_description(tmp_path, "method, colour")
    path = write_scenario(
        f"""
        parameters:
          openapi: api.yaml
          baseUrl: {demo.url}
        scenario: s
          when I echo
            call ^echoGet
            assert schema
        """
    )
    events = run_file(path)
    assert [s for _, s in statuses(events)] == ["failed"]
    assert "colour" in messages(events)[0]


def test_custom_step_pattern_matches_the_whole_line_only(tmp_path, demo):
    (tmp_path / "steps.py").write_text(
        textwrap.dedent(
            """
            from scenario_core.custom_steps import step

            @step("I have {int} pets")
            def have(ctx, count):
                ctx.set("count", count)
            """
        ),
        encoding="utf-8",
    )
    (tmp_path / "f.scenario").write_text(
        "scenario: whole line\n  given I have 3 pets\n"
        "scenario: more text after the pattern\n  given I have 3 pets today\n"
        "scenario: more text before it\n  given now I have 3 pets\n",
        encoding="utf-8",
    )
    result = _cli("run", "--plugins", "steps.py", "f.scenario", "--report-json", "r.json", cwd=tmp_path)
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    outcome = {s["name"]: s["status"] for s in report["files"][0]["scenarios"]}
    assert outcome["whole line"] == "passed", result.stdout
    assert outcome["more text after the pattern"] != "passed"
    assert outcome["more text before it"] != "passed"
    assert 'no step matches "I have 3 pets today"' in result.stdout


def _cli(*args: str, cwd: Path):
    import os
    import subprocess
    import sys

    command = [sys.executable, "-c", "import sys; from scenario_tui.cli.main import main; sys.exit(main())", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=120, env=dict(os.environ))


def test_description_and_parameters_read_from_example_rows_resolve_per_row(write_scenario, tmp_path, demo):
    (tmp_path / "pets.yaml").write_text(PETSTORE.read_text(encoding="utf-8"), encoding="utf-8")
    _external_ref_description(tmp_path, "method")
    path = write_scenario(
        f"""
        parameters:
          baseUrl: {demo.url}

        outline: each row its own description, alias and fragment
          parameters:
            binding.rowSpec:
              baseUrl: "{{{{param.binding.default.baseUrl}}}}"
              location: "{{{{location}}}}"
              alias:
                probe: "{{{{endpoint}}}}"
            fragment-name: "{{{{fragment}}}}"
          when I call through the row's description
            call using rowSpec ^probe
            assert status 200
          then the row's fragment runs
            include {{{{param.fragment-name}}}}
          examples:
            | location  | endpoint  | fragment |
            | pets.yaml | GET /pets | first    |
            | api.yaml  | GET /echo | second   |

        fragment: first
          when I count
            call raw GET /echo?row=first
            assert $.query.row equals "first"

        fragment: second
          when I count
            call raw GET /echo?row=second
            assert $.query.row equals "second"
        """
    )
    events = run_file(path)
    assert [s for _, s in statuses(events)] == ["passed", "passed"], messages(events)
    sent = [e.url for e in events if isinstance(e, RequestSent)]
    assert sent == [
        f"{demo.url}/pets",
        f"{demo.url}/echo?row=first",
        f"{demo.url}/echo",
        f"{demo.url}/echo?row=second",
    ]


def test_named_block_description_path_is_relative_to_the_file_that_wrote_it(write_scenario, tmp_path, demo):
    (tmp_path / "fragments" / "specs").mkdir(parents=True)
    (tmp_path / "fragments" / "specs" / "pets.yaml").write_text(PETSTORE.read_text(encoding="utf-8"), encoding="utf-8")
    _fragment_file(tmp_path, f"parameters: server\n  openapi: specs/pets.yaml\n  baseUrl: {demo.url}\n")
    path = write_scenario(
        """
        parameters:
          << server
        scenario: the description beside the fragment file
          when I list pets
            call ^listPets
            assert status 200
        """
    )
    events = run_file(path)
    assert [s for _, s in statuses(events)] == ["passed"], messages(events)


def test_a_taken_in_value_shows_the_merge_line_and_where_the_block_wrote_it(write_scenario, tmp_path, capsys):
    _fragment_file(tmp_path, "# shared\nparameters: server\n  timeout: 7\n")
    path = write_scenario("parameters:\n  << server\nscenario: s\n  when: GET /health\n")
    assert main(["params", str(path), "--json"]) == 0
    timeout = _flat_params(json.loads(capsys.readouterr().out))["timeout"]
    assert (timeout["value"], timeout["source"], timeout["line"]) == (7, "file", 2)
    assert timeout["from"] == "shared.fragment line 3"


def test_python_step_reads_param_names_whatever_its_text_references(tmp_path):
    """BerryCrush's junit parameters.scenario checks `param.custom.port` from a Kotlin step whose
    text reads only `{{parameterName}}`; ours read param.* only when the text held a dotted name."""
    (tmp_path / "steps.py").write_text(
        textwrap.dedent(
            """
            from scenario_core.custom_steps import step

            @step("the value named {string} is {any}")
            def named(ctx, name, expected):
                assert str(ctx.variables[name]) == expected, f"{name} is {ctx.variables[name]!r}"
            """
        ),
        encoding="utf-8",
    )
    (tmp_path / "f.scenario").write_text(
        "parameters:\n  custom:\n    port: 8080\n"
        "outline: o\n"
        '  then the value named "{{name}}" is {{value}}\n'
        "  examples:\n    | name              | value |\n    | param.custom.port | 8080  |\n",
        encoding="utf-8",
    )
    result = _cli("run", "--plugins", "steps.py", "f.scenario", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_named_block_of_the_same_file_may_be_used_above_where_it_is_written(write_scenario, demo):
    path = write_scenario(
        f"""
        parameters:
          << server

        scenario: the block comes later in the file
          when: GET /echo
          then: $.headers.x-from == "below"

        parameters: server
          baseUrl: {demo.url}
          header.X-From: below
        """
    )
    events = run_file(path)
    assert [s for _, s in statuses(events)] == ["passed"], messages(events)


def test_a_call_repeat_count_read_from_the_environment_is_read_at_run_time(write_scenario, monkeypatch):
    """`multiTestSequentialCount: {{env.N}}` under a call (docs/spec/parameters.md): read when
    the call runs, as a parameter's value is; unset or not a count is the step's one-line failure
    (it was an internal error)."""
    path = write_scenario(
        f"""
        parameters:
          openapi: {PETSTORE}
          baseUrl: {_nowhere()}

        scenario: repeats counted from the environment
          given the repeats expect no response
            call ^getHealth
              auto: [multi]
              multiTestSequentialCount: {{{{env.REPEATS}}}}
              excludes: [concurrent]
            assert status -1
        """
    )
    monkeypatch.setenv("REPEATS", "3")
    events = run_file(path)
    assert [s for _, s in statuses(events)] == ["passed"], messages(events)
    assert [e.test_type for e in events if isinstance(e, AutoTestRan)] == ["SEQUENTIAL"] * 3
    monkeypatch.delenv("REPEATS")
    assert messages(run_file(path))[0] == (
        "multiTestSequentialCount reads {{env.REPEATS}}, but environment variable REPEATS is not set"
    )
    monkeypatch.setenv("REPEATS", "many")
    message = messages(run_file(path))[0]
    assert message.startswith("multiTestSequentialCount must be a whole number") and message.endswith(
        "(read from $REPEATS)"
    )
