"""A `{{NAME}}` that is a slip of a name the file extracts or sets gets a "did you mean", from
one core function (run.explain.did_you_mean): in `check`'s warning, in `run`'s failure and so in
the TUI, which shows the engine's message (docs/spec/steps.md#undefined-variables)."""

from __future__ import annotations

from textwrap import dedent

from scenario_core.analysis.scope_analysis import analyze
from scenario_core.language.parser import load_file, parse_text
from scenario_core.parameters.resolution import RunOverrides
from scenario_core.run.events import StepFinished
from scenario_core.run.executor import run_to_completion
from scenario_core.run.explain import did_you_mean
from tests.core.echo_server import EchoServer

CATS = """\
scenario: cats
  when: GET URL/cats
  extract: catId from $.id
  when: GET URL/cats/{{catid}}
"""


def warnings(text: str, run_variables=()) -> list[str]:
    found = analyze(parse_text(dedent(text).replace("URL", "http://127.0.0.1:9"), "t.scenario"), None, run_variables)
    return [d.message for d in found.diagnostics if "never visible" in d.message]


def test_the_names_a_slip_resembles():
    assert did_you_mean("catid", ["catId", "dogId"]) == "catId"  # case first
    assert did_you_mean("tokn", ["token", "tone"]) == "token"
    assert did_you_mean("petId", ["petIds", "petid"]) == "petid"
    assert did_you_mean("x", ["y", "xx"]) is None  # too short to guess
    assert did_you_mean("order", ["customer", "basket"]) is None
    assert did_you_mean("same", ["same"]) is None


def test_check_suggests_the_extracted_name():
    assert warnings(CATS) == [
        "'catid' is never visible here: did you mean 'catId'? no step in this file extracts 'catid';"
        " pass it with --var catid=..."
    ]


def test_check_suggests_a_run_variable_and_an_outline_column():
    assert warnings("scenario: s\n  when: GET URL/{{apiToken}}\n", run_variables=["apitoken"])[0].startswith(
        "'apiToken' is never visible here: did you mean 'apitoken'?"
    )
    outline = "outline: o\n  when: GET URL/{{kind}}/{{knid}}\n  examples:\n    | kind |\n    | cat |\n"
    assert warnings(outline)[0].startswith("'knid' is never visible here: did you mean 'kind'?")


def test_no_suggestion_when_nothing_resembles():
    assert warnings(CATS.replace("{{catid}}", "{{owner}}")) == [
        "'owner' is never visible here: no step in this file extracts 'owner'; pass it with --var owner=..."
    ]


def test_run_suggests_it_in_the_failure(tmp_path):
    with EchoServer() as server:
        server.answer("/cats", '{"id": 7}', ("Content-Type", "application/json"))
        path = tmp_path / "cats.scenario"
        path.write_text(CATS.replace("URL", server.url))
        events = run_to_completion([load_file(path)], RunOverrides({}), None)
    (message,) = [e.message for e in events if isinstance(e, StepFinished) and e.status == "failed"]
    assert message == (
        f"undefined variable 'catid' in GET {server.url}/cats/{{{{catid}}}}; visible here: catId."
        " Did you mean 'catId'? No step in this file extracts 'catid'; pass it with --var catid=..."
    )
