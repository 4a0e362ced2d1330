"""Edit and continue while the run is paused: `=` opens the variable editor on the layers the
paused scenario sees, prefilled with the variable under the Variables panel's cursor when it has
focus, else with the variable the paused step reads (for a `then:` or `extract:`, the variable
its request read) and its current value; `a` re-sends the step paused on. The rules are the core's (scenario_core.run.edits); the
stepper applies an edit and reports it as a scope event, which the panels show at once."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import App

from scenario_core.run.edits import EditError
from scenario_core.run.plan import step_refs
from scenario_core.run.stepper import Stepper
from scenario_tui.widgets.display import json_form
from scenario_tui.widgets.variable_editor import VariableEditor

if TYPE_CHECKING:
    from scenario_tui.app.panels import Panels
    from scenario_tui.app.run_controller import RunController
    from scenario_tui.widgets.display import Display

NOT_PAUSED = "Variables can be edited while the run is paused (n, b, g or f pause it)."


class EditAndContinue:
    """What the app's `=` opens and what the editor's message does (the app routes both here)."""

    def __init__(self, app: App[int], controller: RunController, panels: Panels, display: Display) -> None:
        self.app = app
        self.run_controller = controller
        self.panels = panels
        self.display_options = display

    def open_editor(self) -> None:
        """`=`: the variable editor, or why not now."""
        controller = self.run_controller
        layers = [] if controller.advancing else controller.stepper.editable_layers()
        if not layers:
            self.app.notify(NOT_PAUSED, severity="warning")
            return
        name, layer, value = self._under_cursor() or self._read_by_step(controller.stepper)
        self.app.push_screen(VariableEditor(layers, _where(controller), name, layer, value))

    def _under_cursor(self) -> tuple[str, str, str] | None:
        """(name, layer, value as typed) of the variable under the panel's cursor, when it has focus."""
        row = self.panels.variables_panel.selected
        if row is None:
            return None
        return row.name, row.layer, self._typed(row.name, row.value)

    def _read_by_step(self, stepper: Stepper) -> tuple[str, str, str]:
        """The first variable the paused step reads -- for a step that reads the last response,
        the request that answered it -- with the layer its value comes from and that value; no
        name when it reads none."""
        run = stepper.paused_after or stepper.current
        if run is None:
            return "", "", ""
        steps = [run.step]
        planned = stepper.scenario.steps if stepper.scenario is not None else ()
        if run.read_from is not None and run.read_from < len(planned):
            steps.append(planned[run.read_from].step)
        snapshot = stepper.paused_snapshot()
        for step in steps:
            for reference, _ in step_refs(step):
                name = reference.split(".", 1)[0]
                if name in ("param", "env"):
                    continue  # a parameter, not a variable: fixed before the scenario started
                if snapshot is None:
                    return name, "", ""
                found, value = snapshot.lookup(name)
                return name, snapshot.layer_of(name) or "", self._typed(name, value) if found else ""
        return "", "", ""

    def _typed(self, name: str, value: object) -> str:
        """The value as it would be typed; "" for a masked secret (never prefilled)."""
        shown = self.display_options.variable(name, value)
        return json_form(value) if shown == json_form(value) else ""

    def apply(self, event: VariableEditor.Applied) -> None:
        """The editor's Enter or ctrl+d: the stepper applies it, or the editor says why not."""
        stepper = self.run_controller.stepper
        try:
            if event.value is None:
                stepper.delete_variable(event.layer, event.name)
            else:
                stepper.edit_variable(event.layer, event.name, event.value)
        except EditError as error:
            event.editor.show_error(str(error))
            return
        event.editor.dismiss(None)
        self.run_controller.flush_panels(force=True)


def _where(controller: RunController) -> str:
    """`paused before line 6 of 'first'` / `paused after line 6 of 'first'`."""
    stepper = controller.stepper
    after = stepper.paused_after
    run = after or stepper.current
    if run is None:
        return "paused"
    return f"paused {'after' if after is not None else 'before'} line {run.step.location.line} of '{run.scenario.name}'"
