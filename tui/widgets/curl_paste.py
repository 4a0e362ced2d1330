"""`p`: paste a curl command (as a browser's "Copy as cURL" gives it) as a new step after the
highlighted one. The command is read by `import curl` (scenario_core.importing.curl), written by the
one writer (scenario_core.editor.render) and put into the file on disk after the step found by its
place in the syntax tree (writeback.insert_steps), keeping every other byte; the file is replaced
atomically. Credentials become `{{NAME}}` run variables (named in a notification), never written
in clear. A command that cannot be read, or a file that changed under the step, is refused in one
line and nothing is written. The app, told as the playground tells it, reloads."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static, TextArea

from scenario_core.editor.render import RenderError, request_lines
from scenario_core.editor.writeback import StepLocator, WriteBackError, decode, encode, insert_steps
from scenario_core.importing.curl import CurlError, read_curl
from scenario_core.language.nodes.blocks import FeatureNode, FragmentNode, ParametersNode, ScenarioFileNode
from scenario_core.language.nodes.steps import Step
from scenario_tui.widgets.json_playground import JsonPlayground

if TYPE_CHECKING:
    from scenario_core.importing.model import Request


def _base_urls(tree: ScenarioFileNode | None) -> set[str]:
    """Every `baseUrl` the file sets (the file's, its features', its scenarios')."""
    found: set[str] = set()
    if not isinstance(tree, ScenarioFileNode):
        return found
    blocks: list[ParametersNode | None] = [tree.parameters]
    for item in tree.items:
        blocks.append(getattr(item, "parameters", None))
        for scenario in item.scenarios if isinstance(item, FeatureNode) else (item,):
            blocks.append(getattr(scenario, "parameters", None))
    for block in blocks:
        entry = block.get("baseUrl") if block is not None else None
        if entry is not None and isinstance(entry.value, str):
            found.add(entry.value.rstrip("/"))
    return found


class CurlPaste(ModalScreen[None]):
    DEFAULT_CSS = """
    CurlPaste {
        align: center middle;
        & > Vertical {
            width: 90%;
            height: 70%;
            border: round $primary;
            border-title-color: $text;
            border-subtitle-color: $text-muted;
            background: $surface;
            padding: 0 1;
            & > TextArea { height: 1fr; }
            & > Static { color: $text-muted; }
        }
    }
    """
    BINDINGS = [Binding("escape", "close", "Close"), Binding("ctrl+s", "insert", "Insert step")]

    def __init__(
        self, step: Step, locator: StepLocator, tree: ScenarioFileNode | None, fragments: tuple[FragmentNode, ...]
    ) -> None:
        super().__init__()
        self.step, self.locator, self.file_tree, self.fragments = step, locator, tree, fragments

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Paste a curl command"
            box.border_subtitle = "ctrl+s inserts it after the step · escape closes"
            yield Static(f"After: {self.locator.label} (line {self.locator.line})")
            yield TextArea(id="curl-command", soft_wrap=True, show_line_numbers=False)

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_close(self) -> None:
        self.dismiss(None)

    def action_insert(self) -> None:
        command = self.query_one(TextArea).text
        if not command.strip():
            self.notify("Paste a curl command first (as Copy as cURL gives it).", severity="warning")
            return
        file = self.locator.file
        try:
            imported = read_curl(command)
            request = next(iter(getattr(imported.items[0], "requests", ())))
            if imported.base_url and imported.base_url.rstrip("/") not in _base_urls(self.file_tree):
                request = _absolute(request, imported.base_url)
            lines = request_lines(request)
            source, bom = decode(Path(file).read_bytes(), file)
            edit = insert_steps(source, self.locator, lines, self.fragments)
            from scenario_core.report.writing import atomic_write

            atomic_write(file, encode(edit.text, bom))
        except (CurlError, RenderError, WriteBackError) as error:
            self.notify(str(error), severity="warning")
            return
        except OSError as error:
            self.notify(f"cannot write {Path(file).name}: {error.strerror or error}", severity="error")
            return
        for note in imported.notes:
            self.notify(note, severity="information")
        if imported.run_variables:
            names = ", ".join(v.name for v in imported.run_variables)
            self.notify(f"The step needs the run variables {names}: --var NAME=VALUE, or = while paused.")
        self.post_message(JsonPlayground.ExtractWritten(file, edit.line, edit.written.strip()))
        self.dismiss(None)


def _absolute(request: Request, base_url: str) -> Request:
    """The request with its whole URL as its path: the file sets no `baseUrl` of that host."""
    from dataclasses import replace

    return replace(request, path=base_url.rstrip("/") + request.path)
