"""A multi-line JSON body is sent as written: each line keeps its indentation relative to the
block's least indented line (the demo API's /echo returns the exact bytes it received)."""

from __future__ import annotations

from scenario_core.language.parser import load_file
from scenario_core.parameters.resolution import RunOverrides
from scenario_core.run.events import ResponseReceived
from scenario_core.run.executor import run_to_completion


def _received(demo, write_scenario, text: str) -> str:
    path = write_scenario(text.replace("BASE", demo.url))
    events = run_to_completion([load_file(path)], RunOverrides({}), None, None)
    (response,) = [e for e in events if isinstance(e, ResponseReceived)]
    return response.json["body"]


def test_multi_line_body_keeps_its_inner_indentation(demo, write_scenario):
    received = _received(
        demo,
        write_scenario,
        """
        parameters:
          baseUrl: BASE
        scenario: s
          when: POST /echo
            body:
              {
                "name": "Rex",
                "tags": [
                  "dog"
                ]
              }
        """,
    )
    assert received == '{\n  "name": "Rex",\n  "tags": [\n    "dog"\n  ]\n}'


def test_multi_line_body_indentation_is_relative_to_its_first_line(demo, write_scenario):
    received = _received(
        demo,
        write_scenario,
        """
        parameters:
          baseUrl: BASE
        scenario: s
          when: POST /echo
            body:
              {"a": 1,
                "b": [1,
                    2]}
        """,
    )
    assert received == '{"a": 1,\n  "b": [1,\n      2]}'


def test_multi_line_body_error_keeps_its_column(write_scenario):
    from scenario_core.language.errors import InvalidFileError

    path = write_scenario(
        """
        scenario: s
          when: POST /echo
            body:
              {
                "name": "Rex",
                  "tags": [x
              }
        """
    )
    try:
        load_file(path)
    except InvalidFileError as error:
        assert ":6:20: error: body: invalid JSON" in str(error)
    else:
        raise AssertionError("the body is not JSON")
