"""`=`: edit a variable while the run is paused (edit and continue). Lists the layers the paused
scenario sees (run variables shown read-only, as docs/spec/scopes.md#run-variables has them); pick the layer, type
the name and the value (read as `--var` reads one: JSON when it parses, else text). Opened on a
variable (the app gives its name, layer and value), the focus is on its value, selected, so what
is typed replaces it; the layer chosen is said in words under the list, not by colour alone. Enter applies,
ctrl+d deletes the name from the layer, Escape closes. The dialog computes no rule: it tells the
app what was asked (`Applied`), the app asks the stepper, and a refusal comes back as one line
(`show_error`) while the dialog stays open."""

from __future__ import annotations

from typing import Sequence

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, Label, RadioButton, RadioSet, Static

from scenario_core.run.edits import EditableLayer
from scenario_core.run.events import RUN_LAYER, SCENARIO_LAYER
from scenario_core.support.printable import visible


def layer_title(layer: EditableLayer) -> str:
    """How a layer reads in the list: what it is, then what an edit there does."""
    if layer.label == SCENARIO_LAYER:
        what = "this scenario — wins over the layers below"
    elif layer.label == RUN_LAYER:
        what = "run variables (--var) — read-only"
    elif layer.label == "file store":
        what = "file store — shared file-wide"
    else:
        what = f"{layer.label} — shared within the feature"
    count = len(layer.names)
    return visible(f"{what}  ({count} name{'s' if count != 1 else ''})")


class VariableEditor(ModalScreen[None]):
    DEFAULT_CSS = """
    VariableEditor {
        align: center middle;
        & > Vertical {
            width: 90%;
            max-width: 76;
            height: auto;
            max-height: 100%;
            border: round $primary;
            border-title-color: $text;
            border-subtitle-color: $text-muted;
            background: $surface;
            padding: 0 1;
        }
        & RadioSet { width: 1fr; height: auto; border: none; padding: 0; background: $surface; }
        /* the layer chosen is the one marked on; the cursor shows only while the list has focus */
        & RadioSet:blur > RadioButton.-selected > .toggle--label { background: transparent; }
        & RadioSet > RadioButton.-on > .toggle--label { text-style: bold; }
        & Horizontal { height: auto; }
        & Horizontal > Label { width: 7; padding: 1 0 0 0; }
        & Horizontal > Input { width: 1fr; }
        & #variable-editor-hint { color: $text-muted; }
        & #variable-editor-chosen { padding: 0 0 0 1; }
        & #variable-editor-error { color: $text-error; display: none; }
    }
    """
    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("ctrl+d", "delete", "Delete from the layer", priority=True),  # over the Input's own ctrl+d
    ]

    class Applied(Message):
        """Set `name` to `value` in `layer` (`value` None: delete it there). The app answers with
        `editor.show_error` or by closing the dialog."""

        def __init__(self, editor: VariableEditor, layer: str, name: str, value: str | None) -> None:
            super().__init__()
            self.editor, self.layer, self.name, self.value = editor, layer, name, value

    def __init__(self, layers: Sequence[EditableLayer], where: str, name: str = "", layer: str = "", value: str = ""):
        super().__init__()
        self.scope_layers = list(layers)
        self.paused_at = where  # `paused at line 6 of 'first'`
        self.initial = (name, value)
        self.initial_layer = layer if any(e.label == layer and e.editable for e in layers) else SCENARIO_LAYER
        self.refusal = ""

    def compose(self) -> ComposeResult:
        with Vertical(id="variable-editor") as box:
            box.border_title = f"Edit a variable · {self.paused_at}"
            box.border_subtitle = "Enter applies · ctrl+d deletes · Esc closes"
            with RadioSet(id="variable-editor-layers"):
                for layer in self.scope_layers:
                    yield RadioButton(
                        layer_title(layer), value=layer.label == self.initial_layer, disabled=not layer.editable
                    )
            yield Static(self._chosen_words(self.initial_layer), id="variable-editor-chosen")
            with Horizontal():
                yield Label("Name")
                yield Input(self.initial[0], id="variable-editor-name")
            with Horizontal():
                yield Label("Value")
                yield Input(self.initial[1], id="variable-editor-value")
            yield Static(
                'JSON when it parses (7, true, [1, 2], "7"), else the text as typed.', id="variable-editor-hint"
            )
            yield Static("", id="variable-editor-error")

    def on_mount(self) -> None:
        self.query_one("#variable-editor-value" if self.initial[0] else "#variable-editor-name", Input).focus()

    def _chosen_words(self, label: str) -> Text:
        layer = next((entry for entry in self.scope_layers if entry.label == label), None)
        text = Text("sets it in: ")
        text.append(layer_title(layer).split("  (")[0] if layer is not None else visible(label), "bold")
        return text

    @on(RadioSet.Changed)
    def _layer_changed(self, event: RadioSet.Changed) -> None:
        self.query_one("#variable-editor-chosen", Static).update(self._chosen_words(self.chosen_layer))

    @property
    def chosen_layer(self) -> str:
        index = self.query_one(RadioSet).pressed_index
        return self.scope_layers[index].label if 0 <= index < len(self.scope_layers) else SCENARIO_LAYER

    @property
    def variable_name(self) -> str:
        return self.query_one("#variable-editor-name", Input).value.strip()

    @property
    def variable_value(self) -> str:
        return self.query_one("#variable-editor-value", Input).value

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "variable-editor-name":  # a name typed: now its value
            value = self.query_one("#variable-editor-value", Input)
            if self.variable_name != self.initial[0] and value.value == self.initial[1]:
                value.value = ""  # the value shown was another variable's
            value.focus()
            return
        self.post_message(self.Applied(self, self.chosen_layer, self.variable_name, self.variable_value))

    def action_delete(self) -> None:
        self.post_message(self.Applied(self, self.chosen_layer, self.variable_name, None))

    def show_error(self, message: str) -> None:
        self.refusal = message
        shown = self.query_one("#variable-editor-error", Static)
        shown.update(Text(visible(message)))
        shown.display = bool(message)

    def action_close(self) -> None:
        self.dismiss(None)
