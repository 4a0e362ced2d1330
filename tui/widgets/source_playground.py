"""`j` on a response that is not JSON: the playground in XPath mode (an XML or HTML body) or in
regex mode (any other text). An expression typed is evaluated as the executor reads the source
(run/response_sources.py: the same safe XML parser, the same time bound), and shows what
`extract` would store; ctrl+s writes `extract: NAME from xpath "…"` (or `regex "…"`) right after
the step through scenario_core.editor.writeback, the one writer, as the JSON-path playground does."""

from __future__ import annotations

import json
import re
from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from scenario_core.editor.writeback import StepLocator, WriteBackError, decode, encode, write_extract
from scenario_core.language.nodes.blocks import FragmentNode
from scenario_core.language.nodes.steps import Step
from scenario_core.language.response_sources import SourceError, read_source
from scenario_core.run.comparison import MISSING
from scenario_core.run.events import ResponseReceived
from scenario_core.run.response_sources import SourceFailure, read
from scenario_tui.widgets.display import Display
from scenario_tui.widgets.json_playground import JsonPlayground
from scenario_tui.widgets.theme_styles import ERROR, WARNING

MAX_BODY_SHOWN = 20_000
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def default_name(kind: str, expression: str) -> str:
    """The variable an extract stores by default: the last name an XPath selects (`//pet/@id` →
    `id`), `match` for a pattern."""
    if kind == "regex":
        return "match"
    words = [  # names, not functions (`count(…)`) or node tests (`text()`)
        m.group() for m in _NAME.finditer(expression) if not expression[m.end() :].lstrip().startswith("(")
    ]
    return words[-1] if words else "value"


class SourcePlayground(ModalScreen[None]):
    DEFAULT_CSS = JsonPlayground.DEFAULT_CSS.replace("JsonPlayground", "SourcePlayground")
    BINDINGS = [Binding("escape", "close", "Close"), Binding("ctrl+s", "write_extract", "Write extract")]

    def __init__(
        self,
        kind: str,
        response: ResponseReceived,
        step: Step,
        display: Display,
        locator: StepLocator | None = None,
        fragments: tuple[FragmentNode, ...] = (),
    ) -> None:
        super().__init__()
        self.kind = kind  # "xpath" or "regex"
        self.response = response
        self.step = step
        self.locator = locator
        self.fragments = fragments
        self.display_options = display
        self.source = ""  # the last source that compiled and matched: `xpath "…"`
        self.text = ""

    def compose(self) -> ComposeResult:
        with Vertical(id="playground") as box:
            box.border_title = (
                f"{'XPath' if self.kind == 'xpath' else 'regex'} · response of line {self.step.location.line}"
            )
            box.border_subtitle = "ctrl+s writes the extract after the step · Escape closes"
            hint = "//pet/name  ·  count(//pet)  ·  string(//pet/@id)" if self.kind == "xpath" else "id=([0-9]+)"
            yield Input(placeholder=hint, id="playground-path")
            with VerticalScroll(id="playground-scroll"):
                yield Static("", id="playground-result")

    def on_mount(self) -> None:
        self.evaluate("")
        self.query_one(Input).focus()

    @on(Input.Changed, "#playground-path")
    def _changed(self, event: Input.Changed) -> None:
        self.evaluate(event.value)

    def evaluate(self, typed: str) -> None:
        self.source = ""
        result = Text()
        expression = typed.strip()
        if not expression:
            result.append(
                f"Type {'an XPath 1.0 expression' if self.kind == 'xpath' else 'a regular expression'}.", "dim"
            )
            return self._show(result)
        written = f"{self.kind} {json.dumps(expression, ensure_ascii=False)}"
        try:
            read_source(written)
            value, nothing = read(self.kind, expression, self.response)
        except (SourceError, SourceFailure) as error:
            result.append(self.display_options.text(str(error)), ERROR)
            return self._show(result)
        if value is MISSING:
            result.append(self.display_options.text(nothing), WARNING)
            return self._show(result)
        self.source = written
        name = default_name(self.kind, expression)
        result.append(f"extract stores {name} = ", "bold")
        result.append(self.display_options.variable(name, value))
        result.append(f"\nctrl+s writes: extract: {name} from {self.display_options.plain(written)}", "dim")
        self._show(result)

    def _show(self, result: Text) -> None:
        from scenario_tui.widgets.body_views import xml_view

        result.append("\n\n── response body ──\n", "dim")
        shown = xml_view(self.response, self.display_options) if self.kind == "xpath" else None
        body = shown[0] if shown else Text(self.display_options.text(self.response.body[:MAX_BODY_SHOWN]))
        result.append_text(body if isinstance(body, Text) else Text(str(body)))
        self.text = result.plain
        self.query_one("#playground-result", Static).update(result)

    def action_write_extract(self) -> None:
        if not self.source:
            self.notify("Type an expression that matches first: ctrl+s writes its extract.", severity="warning")
            return
        file = self.step.location.file
        if self.locator is None:
            self.notify(f"{file}: the step is in no file loaded now: R reloads, then j again.", severity="warning")
            return
        name = default_name(self.kind, json.loads(self.source.split(None, 1)[1]))
        try:
            source, bom = decode(Path(file).read_bytes(), file)
            edit = write_extract(source, self.locator, self.source, name, fragments=self.fragments)
            Path(file).write_bytes(encode(edit.text, bom))
        except OSError as error:
            self.notify(f"cannot write {Path(file).name}: {error.strerror}", severity="error")
            return
        except WriteBackError as error:
            self.notify(str(error), severity="warning")
            return
        self.post_message(JsonPlayground.ExtractWritten(file, edit.line, edit.written.strip()))
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)
