"""`j`: the JSON-path playground on the response of the step on view in the inspector (live, or a
step run in the history): the response it sent for, or the one it read. `p`: the dialog that
pastes a curl command as a new step after the highlighted step. Both write into the file on disk
and tell the app (JsonPlayground.ExtractWritten), which reloads."""

from __future__ import annotations

from typing import Sequence

from textual.app import App
from textual.widgets.tree import TreeNode

from scenario_core.editor.writeback import fragments_for, locate_step
from scenario_core.language.nodes.blocks import ScenarioFileNode
from scenario_core.language.nodes.steps import Step
from scenario_core.run.stepper import StepRun
from scenario_tui.widgets.curl_paste import CurlPaste
from scenario_tui.widgets.display import Display
from scenario_tui.widgets.json_playground import JsonPlayground
from scenario_tui.widgets.tree_items import BrokenFile, TreeItem


def _files(app: App[int]) -> Sequence[ScenarioFileNode | BrokenFile]:
    """The syntax trees the app has loaded (ScenarioApp.files)."""
    files: Sequence[ScenarioFileNode | BrokenFile] = getattr(app, "files", ())
    return files


def open_playground(app: App[int], shown: tuple[Step, StepRun | None] | None, display: Display) -> None:
    """Open the playground on `shown` (the inspector's step and its run), or say why not."""
    step, run = shown if shown is not None else (None, None)
    response = (run.response or run.read_response) if run is not None else None
    if response is None or run is None or step is None:
        app.notify("No response on view: highlight a step that ran (j works on its response).", severity="warning")
    elif not response.is_json:  # XPath mode on XML or HTML, regex mode on other text
        if not response.body:
            app.notify(f"The response is not JSON: {response.json_error}", severity="warning")
            return
        from scenario_tui.widgets.source_playground import SourcePlayground

        media = (response.header("Content-Type") or "").lower()
        kind = "xpath" if "xml" in media or "html" in media else "regex"
        files = _files(app)
        locator = locate_step(files, step)
        app.push_screen(
            SourcePlayground(kind, response, step, display, locator, fragments_for(files, step.location.file))
        )
    else:
        files = _files(app)  # the syntax trees loaded
        locator = locate_step(files, step)  # the step's place in them, for ctrl+s
        fragments = fragments_for(files, step.location.file)
        app.push_screen(JsonPlayground(response.json, step, run.parent, display, locator, fragments))


def open_curl_paste(app: App[int], cursor: TreeNode[TreeItem] | None) -> None:
    """Open the curl paste dialog on the highlighted tree node's step, or say why not."""
    item = cursor.data if cursor is not None else None
    if item is None or item.kind != "step":
        app.notify("Highlight a step: p pastes a curl command as a new step after it.", severity="warning")
        return
    files = _files(app)
    locator = locate_step(files, item.node)
    if locator is None:
        app.notify("The step is in no file loaded now: R reloads, then p again.", severity="warning")
        return
    tree = next((t for t in files if isinstance(t, ScenarioFileNode) and t.path == locator.file), None)
    app.push_screen(CurlPaste(item.node, locator, tree, fragments_for(files, locator.file)))
