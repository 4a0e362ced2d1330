"""`j`: the JSON-path playground on the response in the inspector. A path typed is evaluated as
the executor evaluates it (the same compiler, the same matching), and shows every match (its
concrete path and value) and what `extract` would store. ctrl+s writes that extract into the
file right after the step on view, in the file's dialect: scenario_core.editor.writeback finds
the step in the file on disk by its place in the syntax tree and adds the line keeping every
other byte (line ends, a BOM). A file that is no longer UTF-8, no longer parses or no longer
holds the step is refused in one line, nothing written. The app, told by a message, reloads."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from scenario_core.editor.writeback import (
    StepLocator,
    WriteBackError,
    decode,
    encode,
    extract_name,
    extract_text,
    is_berrycrush_step,
    write_extract,
)
from scenario_core.language.nodes.blocks import FragmentNode
from scenario_core.language.nodes.steps import DescribedStep, Step
from scenario_core.language.step_syntax import JsonPathError, compile_json_path
from scenario_core.run.assertions import json_path_values
from scenario_core.run.body_paths import matched_nothing, path_matches
from scenario_core.run.comparison import MISSING
from scenario_tui.widgets.display import Display
from scenario_tui.widgets.json_body_lines import body_lines
from scenario_tui.widgets.theme_styles import ERROR, VALUE, WARNING

MAX_SHOWN = 50  # matches listed; the rest are counted


def _unquoted(path: str) -> str:
    """BerryCrush may quote a path (`extract "$.a-b" => x`): the playground takes it either way."""
    path = path.strip()
    if len(path) >= 2 and path[0] == path[-1] and path[0] in "\"'":
        return path[1:-1]
    return path


class JsonPlayground(ModalScreen[None]):
    DEFAULT_CSS = """
    JsonPlayground {
        align: center middle;
        & > Vertical {
            width: 94%;
            height: 90%;
            border: round $primary;
            border-title-color: $text;
            border-subtitle-color: $text-muted;
            background: $surface;
            padding: 0 1;
            & > Input { margin: 0 0 1 0; }
            & > VerticalScroll > Static { width: 1fr; }
        }
    }
    """
    BINDINGS = [Binding("escape", "close", "Close"), Binding("ctrl+s", "write_extract", "Write extract")]

    class ExtractWritten(Message):
        """An extract step was written into `file` at 1-based `line`: the app reloads."""

        def __init__(self, file: str, line: int, text: str) -> None:
            super().__init__()
            self.file, self.line, self.text = file, line, text

    def __init__(
        self,
        body: object,
        step: Step,
        parent: DescribedStep | None,
        display: Display,
        locator: StepLocator | None = None,
        fragments: tuple[FragmentNode, ...] = (),
    ) -> None:
        super().__init__()
        self.body = body
        self.step = step  # the step on view: the extract goes right after it
        self.described = parent  # BerryCrush's described step over it, or None
        self.locator = locator  # where the step is in the syntax tree (None: in no file loaded)
        self.fragments = fragments  # the .fragment files' fragments the file was parsed with
        self.display_options = display
        self.lines: list[str] = []
        self.path = ""  # the last path that compiled and matched
        self.written: str | None = None
        self._loaded_source = ""
        self._shown_body: object = None  # the body with its secrets masked, made once
        self.shown = Text()

    def compose(self) -> ComposeResult:
        with Vertical(id="playground") as box:
            box.border_title = f"JSON path · response of line {self.step.location.line}"
            box.border_subtitle = "ctrl+s writes the extract after the step · Escape closes"
            yield Input(placeholder="$.id  ·  $.items[*].id  ·  $['a-b']", id="playground-path")
            with VerticalScroll(id="playground-scroll"):
                yield Static("", id="playground-result")

    def on_mount(self) -> None:
        try:  # read once for the preview of the line ctrl+s writes (it reads the file again)
            self._loaded_source = self._source()[0]
        except OSError:
            self._loaded_source = ""
        except WriteBackError as error:  # no longer UTF-8: said now, and again by ctrl+s
            self._loaded_source = ""
            self.notify(str(error), severity="warning")
        self.evaluate("")
        self.query_one(Input).focus()

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    @on(Input.Changed, "#playground-path")
    def _changed(self, event: Input.Changed) -> None:
        self.evaluate(event.value)

    def evaluate(self, typed: str) -> None:
        path = _unquoted(typed)
        self.path = ""
        result = Text()
        if not path:
            result.append("Type a JSON path: the matches show as you type, highlighted in the body.", "dim")
            return self._show(result, set())
        try:
            compiled = compile_json_path(path)
            matches = path_matches(compiled, self.body)
            stored = json_path_values(compiled, self.body)
        except JsonPathError as error:
            result.append(str(error), ERROR)
            return self._show(result, set())
        except Exception as error:  # jsonpath-ng raises on odd data, as in a run
            result.append(f"cannot evaluate {path}: {error}", ERROR)
            return self._show(result, set())
        if not matches:
            result.append(self.display_options.text(f"{path} {matched_nothing(path, self.body)}"), WARNING)
            return self._show(result, set())
        self.path = path
        result.append(f"{len(matches)} match{'es' if len(matches) != 1 else ''}\n", "bold")
        for concrete, value in matches[:MAX_SHOWN]:
            result.append(self.display_options.plain(concrete), VALUE)
            result.append(" = " + self.display_options.variable("", value) + "\n")
        if len(matches) > MAX_SHOWN:
            result.append(f"… and {len(matches) - MAX_SHOWN} more\n", "dim")
        name = extract_name(path)
        stored_text = self.display_options.variable(name, stored) if stored is not MISSING else "nothing"
        result.append(f"\nextract stores {name} = ", "bold")
        result.append(stored_text)
        if self._loaded_source:
            line = extract_text(path, name, is_berrycrush_step(self.step, self.described))
            written = self.display_options.plain(line) if line is not None else "nothing (the path needs quotes)"
            result.append(f"\nctrl+s writes: {written}", "dim")
        self._show(result, {concrete for concrete, _ in matches})

    def _show(self, result: Text, matched: set[str]) -> None:
        """The result, then the body with the matches' lines highlighted, scrolled to the first."""
        if self._shown_body is None:
            self._shown_body = self.display_options.value(self.body)
        body, first = body_lines(self._shown_body, matched, self.display_options.plain)
        result.append("\n\n── response body ──\n", "dim")
        above = len(result.plain.splitlines())
        result.append_text(body)
        self.lines = result.plain.splitlines()
        self.shown = result  # what the result shows, styles included
        self.query_one("#playground-result", Static).update(result)
        if first is not None:  # after the next layout: before it the new lines have no height to scroll
            self.call_after_refresh(self._show_line, above + first)

    def _show_line(self, line: int) -> None:
        """Scroll the first match into view, only when it is below what shows (no needless jump)."""
        scroll = self.query_one("#playground-scroll", VerticalScroll)
        if line >= scroll.scroll_y + scroll.scrollable_content_region.height:
            scroll.scroll_to(y=max(0, line - 2), animate=False)

    def _source(self) -> tuple[str, bool]:
        """The file's text as it is on disk now, and whether it starts with a BOM."""
        file = self.step.location.file
        return decode(Path(file).read_bytes(), file)

    def action_write_extract(self) -> None:
        if not self.path:
            self.notify("Type a path that matches first: ctrl+s writes its extract.", severity="warning")
            return
        file = self.step.location.file
        if self.locator is None:
            self.notify(f"{file}: the step is in no file loaded now: R reloads, then j again.", severity="warning")
            return
        try:
            source, bom = self._source()
            edit = write_extract(source, self.locator, self.path, fragments=self.fragments)
            Path(file).write_bytes(encode(edit.text, bom))
        except OSError as error:
            self.notify(f"cannot write {Path(file).name}: {error.strerror}", severity="error")
            return
        except WriteBackError as error:
            self.notify(str(error), severity="warning")
            return
        self.written = edit.written
        self.post_message(self.ExtractWritten(file, edit.line, edit.written.strip()))
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)
