"""Edit and continue (docs/spec/scopes.md#editing-while-paused) through the stepper, against the demo API: while paused, a variable
is set, changed or deleted in the layer the user picks (run/edits.py has the rules), the change is a
`VariableEdited` scope event, and `resend()` runs the step paused on with the edited variables."""

from __future__ import annotations

import asyncio

import pytest

from scenario_core.language.parser import load_file
from scenario_core.parameters.resolution import RunOverrides
from scenario_core.report.masking import Masker
from scenario_core.run import events as ev
from scenario_core.run.edits import CHANGED, REMOVED, SET, EditError, EditOrigin, VariableEdited
from scenario_core.run.stepper import PAUSED, Stepper

# Line numbers matter: tests name them.
ECHO = """\
parameters:
  shareVariablesAcrossScenarios: true
scenario: first
  when: GET /counter
  extract: petId from $.value
  when: GET /echo?id={{petId}}
  then: status 200
scenario: second
  when: GET /echo?id={{petId}}
  then: status 200
"""
FIRST_ECHO, SECOND_ECHO = 6, 9


class Driven:
    """A stepper on a file, with every event it reports."""

    def __init__(self, demo, write_scenario, text: str, run_variables=None) -> None:
        file = load_file(write_scenario(text))
        self.events: list[tuple[ev.Event, object]] = []
        self.stepper = Stepper(
            lambda: [file],
            RunOverrides.from_cli([], demo.url),
            run_variables or {},
            lambda event, run: self.events.append((event, run)),
        )

    async def step_to_line(self, line: int) -> None:
        """Step until the run is paused before the step at `line`."""
        for _ in range(50):
            await self.stepper.step()
            current = self.stepper.current
            if self.stepper.state == PAUSED and current is not None and current.step.location.line == line:
                return
        raise AssertionError(f"never paused before line {line}")

    def of(self, kind):
        return [event for event, _ in self.events if isinstance(event, kind)]

    async def finish(self) -> ev.RunFinished:
        await self.stepper.resume()
        assert self.stepper.finished is not None
        return self.stepper.finished


async def test_edit_in_the_scenario_layer_is_what_the_step_about_to_run_sends(demo, write_scenario):
    driven = Driven(demo, write_scenario, ECHO)
    await driven.step_to_line(FIRST_ECHO)
    driven.stepper.edit_variable("scenario", "petId", "42")
    await driven.stepper.resend()
    stepper = driven.stepper
    assert stepper.state == PAUSED and stepper.pause_reason == "resent"
    assert stepper.paused_after is not None and stepper.paused_after.status == "passed"
    assert stepper.paused_after.request is not None and stepper.paused_after.request.url.endswith("/echo?id=42")


async def test_edit_is_a_scope_event_of_its_own_kind_edited_by_you(demo, write_scenario):
    driven = Driven(demo, write_scenario, ECHO)
    await driven.step_to_line(FIRST_ECHO)
    old = driven.stepper.current.before.lookup("petId")[1]
    event = driven.stepper.edit_variable("scenario", "petId", "42")
    assert driven.of(VariableEdited) == [event]
    assert not isinstance(event, (ev.VariableExtracted, ev.VariableOverwritten))
    assert (event.name, event.layer, event.action, event.old, event.new, event.by) == (
        "petId",
        "scenario",
        CHANGED,
        old,
        42,
        "you",
    )
    assert event.snapshot.lookup("petId") == (True, 42)
    origin = event.snapshot.origin("petId")
    assert isinstance(origin, EditOrigin) and "edited by you" in origin.describe()
    assert driven.stepper.current.before.lookup("petId") == (True, 42)  # the step about to run sees it


async def test_edit_value_is_read_as_var_reads_it_json_else_text(demo, write_scenario):
    driven = Driven(demo, write_scenario, ECHO)
    await driven.step_to_line(FIRST_ECHO)
    stepper = driven.stepper
    assert stepper.edit_variable("scenario", "a", "7").new == 7
    assert stepper.edit_variable("scenario", "b", '"7"').new == "7"
    assert stepper.edit_variable("scenario", "c", "[1, true]").new == [1, True]
    assert stepper.edit_variable("scenario", "d", "Rex the dog").new == "Rex the dog"
    assert stepper.edit_variable("scenario", "a", "8").action == CHANGED
    assert stepper.edit_variable("scenario", "e", "1").action == SET


async def test_edit_in_the_shared_store_is_seen_by_the_next_scenario_sharing_it(demo, write_scenario):
    driven = Driven(demo, write_scenario, ECHO)
    await driven.step_to_line(FIRST_ECHO)
    layers = [layer.label for layer in driven.stepper.editable_layers()]
    assert layers == ["scenario", "file store", "run"]
    event = driven.stepper.edit_variable("file store", "petId", "99")
    assert event.shadowed_by == "scenario"  # the scenario's own value still wins in this scenario
    assert event.snapshot.lookup("petId")[1] != 99
    await driven.step_to_line(SECOND_ECHO)
    await driven.stepper.resend()
    assert driven.stepper.paused_after.request.url.endswith("/echo?id=99")


async def test_run_variables_are_read_only_set_in_the_scenario_layer_to_override(demo, write_scenario):
    driven = Driven(demo, write_scenario, ECHO, run_variables={"user": "ann"})
    await driven.step_to_line(FIRST_ECHO)
    with pytest.raises(EditError, match="read-only"):
        driven.stepper.edit_variable("run", "user", "bob")
    assert driven.stepper.edit_variable("scenario", "user", "bob").snapshot.lookup("user") == (True, "bob")


async def test_parameters_are_not_variables_and_cannot_be_edited(demo, write_scenario):
    driven = Driven(demo, write_scenario, ECHO)
    await driven.step_to_line(FIRST_ECHO)
    with pytest.raises(EditError, match="is a parameter, not a variable"):
        driven.stepper.edit_variable("scenario", "param.timeout", "5")
    with pytest.raises(EditError, match="not a variable name"):
        driven.stepper.edit_variable("scenario", "9lives", "5")
    with pytest.raises(EditError, match="no layer 'feature 'X''"):
        driven.stepper.edit_variable("feature 'X'", "a", "5")


async def test_delete_then_resend_reports_the_missing_variable(demo, write_scenario):
    driven = Driven(demo, write_scenario, ECHO.replace("  shareVariablesAcrossScenarios: true\n", "  timeout: 5\n"))
    await driven.step_to_line(FIRST_ECHO)
    event = driven.stepper.delete_variable("scenario", "petId")
    assert event.action == REMOVED and event.new is None and event.snapshot.lookup("petId") == (False, None)
    with pytest.raises(EditError, match="'petId' is not in the scenario layer; no layer holds it"):
        driven.stepper.delete_variable("scenario", "petId")
    await driven.stepper.resend()
    failed = driven.stepper.paused_after
    assert failed.status == "failed" and failed.request is None
    assert "undefined variable 'petId'" in failed.message


async def test_resend_after_failure_replaces_the_run_and_a_pass_does_not_fail_the_scenario(demo, write_scenario):
    text = """\
    scenario: wrong guess
      when: GET /status/{{code}}
      then: status 200
    """
    driven = Driven(demo, write_scenario, text, run_variables={})
    driven.stepper.break_on_failure = True
    await driven.stepper.resume()  # fails: code is undefined
    stepper = driven.stepper
    assert stepper.pause_reason == "failure"
    first = stepper.paused_after
    assert "undefined variable 'code'" in first.message
    stepper.edit_variable("scenario", "code", "418")
    await stepper.resend()
    second = stepper.paused_after
    assert second is not first and second.replaces is first and second.step is first.step
    assert second.status == "passed" and second.request.url.endswith("/status/418")
    assert second.response.status == 418
    stepper.edit_variable("scenario", "code", "200")
    await stepper.resend()  # again: the step just re-sent
    third = stepper.paused_after
    assert third.replaces is second and third.response.status == 200
    done = await driven.finish()
    assert (done.passed, done.failed) == (1, 0)  # the step passed in the end: the scenario did
    starts = [e for e in driven.of(ev.StepStarted) if e.step is first.step]
    assert len(starts) == 3 and len(driven.of(ev.RequestSent)) == 2


async def test_edits_and_resend_are_refused_when_not_paused(demo, write_scenario):
    driven = Driven(demo, write_scenario, ECHO)
    with pytest.raises(EditError, match="only while the run is paused"):
        driven.stepper.edit_variable("scenario", "petId", "1")
    with pytest.raises(EditError, match="only while the run is paused"):
        await driven.stepper.resend()
    assert driven.stepper.editable_layers() == []
    await driven.finish()
    with pytest.raises(EditError):
        driven.stepper.edit_variable("scenario", "petId", "1")


async def test_a_secret_edited_stays_masked(demo, write_scenario):
    driven = Driven(demo, write_scenario, ECHO)
    await driven.step_to_line(FIRST_ECHO)
    event = driven.stepper.edit_variable("scenario", "apiToken", "s3cr3t-value-long-enough")
    masker = Masker()
    masker.feed(event)
    assert "s3cr3t-value-long-enough" not in masker.text("sent s3cr3t-value-long-enough")
    assert masker.value(event.new, "apiToken") != "s3cr3t-value-long-enough"


async def test_edit_in_a_feature_store_is_cleared_when_the_feature_ends(demo, write_scenario):
    text = """\
    feature: Pets
      parameters:
        shareVariablesAcrossScenarios: true
      scenario: one
        when: GET /echo
      scenario: two
        when: GET /echo?note={{note}}
    feature: Audit
      scenario: three
        when: GET /echo?note={{note}}
    """
    driven = Driven(demo, write_scenario, text)
    await driven.step_to_line(5)
    assert [layer.label for layer in driven.stepper.editable_layers()] == ["scenario", "feature 'Pets'", "run"]
    assert driven.stepper.edit_variable("feature 'Pets'", "note", "kept").shadowed_by is None
    done = await driven.finish()
    (pets_end,) = [e for e in driven.of(ev.FeatureFinished) if e.feature.name == "Pets"]
    assert pets_end.cleared == ("note",)
    sent = driven.of(ev.RequestSent)
    assert len(sent) == 2 and sent[1].url.endswith("?note=kept")  # scenario two, sharing the store, saw it
    assert (done.passed, done.failed) == (2, 1)  # feature Audit does not share: 'note' is undefined there
    failed = [e for e in driven.of(ev.StepFinished) if e.status == "failed"]
    assert "undefined variable 'note'" in failed[0].message


async def test_stop_while_a_step_is_re_sent_cancels_it_and_the_run_winds_down(demo, write_scenario):
    text = """\
    scenario: slow guess
      when: GET /slow?ms={{ms}}
      then: status 200
    """
    driven = Driven(demo, write_scenario, text)
    stepper = driven.stepper
    stepper.break_on_failure = True
    await stepper.resume()  # fails: ms is undefined
    stepper.edit_variable("scenario", "ms", "5000")
    resending = asyncio.create_task(stepper.resend())
    for _ in range(500):
        if driven.of(ev.RequestSent):
            break
        await asyncio.sleep(0.01)
    assert stepper.stop()
    await asyncio.wait_for(resending, 5)
    assert stepper.finished is not None and stepper.finished.interrupted
    assert [e.message for e in driven.of(ev.StepFinished)][-1] == "interrupted"


async def test_a_step_that_ends_a_fragment_included_with_arguments_cannot_be_re_sent(demo, write_scenario):
    text = """\
    fragment: broken
      then it breaks
        fail "broken with {{who}}"
    scenario: s
      when I include it
        include broken
          who: "Rex"
    """
    driven = Driven(demo, write_scenario, text)
    driven.stepper.break_on_failure = True
    await driven.stepper.resume()
    assert driven.stepper.pause_reason == "failure" and driven.stepper.paused_after.message == "broken with Rex"
    with pytest.raises(EditError, match="ends an included fragment, whose arguments are gone now"):
        await driven.stepper.resend()
    assert driven.stepper.state == PAUSED  # refused: the run is still paused there
