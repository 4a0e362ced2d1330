"""`p`: paste a curl command as a new step after the highlighted step (tui/widgets/curl_paste.py
does the writing); the app reloads the file once it is written."""

from __future__ import annotations

from typing import Any

from scenario_core.editor.writeback import fragments_for, locate_step
from scenario_core.language.nodes.blocks import ScenarioFileNode
from scenario_tui.widgets.curl_paste import CurlPaste


class CurlPasteKeys:
    """The app's `p` and what it does once the step is written (a mixin of ScenarioApp)."""

    def action_paste_curl(self) -> None:
        app: Any = self
        node = app.file_tree.cursor_node
        item = node.data if node is not None else None
        if item is None or item.kind != "step":
            app.notify("Highlight a step: p pastes a curl command as a new step after it.", severity="warning")
            return
        files = getattr(app, "files", ())
        locator = locate_step(files, item.node)
        if locator is None:
            app.notify("The step is in no file loaded now: R reloads, then p again.", severity="warning")
            return
        tree = next((t for t in files if isinstance(t, ScenarioFileNode) and t.path == locator.file), None)
        app.push_screen(CurlPaste(item.node, locator, tree, fragments_for(files, locator.file)))

    def on_curl_paste_pasted(self, event: CurlPaste.Pasted) -> None:
        app: Any = self
        needs = (
            f" It needs the run variables {', '.join(event.variables)} (--var, or = while paused)."
            if event.variables
            else ""
        )
        app.notify(f"Wrote '{event.text}' at line {event.line}.{needs}")
        app._poll_file()  # reloads now, as the watcher would
