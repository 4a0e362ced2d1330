"""The inspector: what the highlighted (or current) step did. The request as sent (method, final
URL, headers, body), the response (status, time, headers, pretty-printed JSON), for an extract the
JSON path and the matched value, for an assertion what was expected and found, for a failure the
message. A step that has not run yet shows what it will send, as written.

Long lines wrap by default; `w` toggles wrapping, and unwrapped, ←/→ scroll sideways (the body
then takes the width of its longest line). `y` copies the request shown as a curl command (OSC 52)
and shows it to select."""

from __future__ import annotations

import json
from typing import Iterable, Sequence

from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.highlighter import JSONHighlighter
from rich.json import JSON
from rich.text import Text
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widgets import Static

from scenario_core.language.errors import Diagnostic
from scenario_core.language.nodes.assertions import SchemaAssertion, TimeAssertion
from scenario_core.language.nodes.steps import (
    FINALLY,
    AssertStep,
    ConditionalStep,
    DescribedStep,
    ExtractStep,
    FailStep,
    IncludeStep,
    RequestStep,
    Step,
    UnreadableStep,
    WebhookStep,
    step_label,
)
from scenario_core.report.curl import curl_command
from scenario_core.run import events as ev
from scenario_core.run.stepper import StepRun
from scenario_core.support.printable import visible, visible_json
from scenario_tui.widgets.body_views import request_body_view, xml_view
from scenario_tui.widgets.display import Display, json_form
from scenario_tui.widgets.inspector_request import resent_lines, written_request
from scenario_tui.widgets.inspector_views import NoteView, StepView
from scenario_tui.widgets.theme_styles import (
    ERROR,
    ERROR_BOLD,
    SUCCESS,
    SUCCESS_BOLD,
    VALUE,
    VALUE_BOLD,
    WARNING,
    WARNING_BOLD,
)

MAX_BODY_CHARS = 20_000


_JSON_HIGHLIGHTER = JSONHighlighter()


def _rule(title: str) -> Text:
    return Text(f"── {title} ", style="bold")


class Inspector(VerticalScroll, can_focus=True):
    ALLOW_MAXIMIZE = True  # z fills the screen with it
    SIDE_STEP = 8  # cells per ←/→: one cell at a time crawls along a long URL
    BINDINGS = [
        Binding("left", "sideways(-1)", "Scroll left", show=False),
        Binding("right", "sideways(1)", "Scroll right", show=False),
    ]
    DEFAULT_CSS = """
    Inspector {
        border: round $success 50%;
        border-title-color: $text;
        padding: 0 1;
        scrollbar-size-vertical: 1;
        scrollbar-size-horizontal: 1;
        &:focus { border: round $success; }
        & > Static { width: 1fr; }
        &.-nowrap { overflow-x: auto; }
        &.-nowrap > Static { min-width: 100%; }
    }
    """

    def __init__(self, display: Display, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.display_options = display
        self.border_title = "Inspector"
        self.lines: list[str] = []
        self.wrap = True
        self._parts: list[RenderableType] = []

    # What is on view; setting it draws the panel (always: the same step again after its run moved on).
    view: reactive[StepView | NoteView | None] = reactive(None, always_update=True, init=False)

    def compose(self) -> ComposeResult:
        yield Static("", id="inspector-body")

    @property
    def shown(self) -> tuple[Step, StepRun | None] | None:
        """The step on view and its run, for `j`."""
        view = self.view
        return (view.step, view.run) if isinstance(view, StepView) else None

    @property
    def request(self) -> ev.RequestSent | None:
        """`y`: the request the step on view sent, else the one whose response it read (a then:,
        an extract:)."""
        view = self.view
        if not isinstance(view, StepView) or view.run is None:
            return None
        return view.run.request or view.run.read_request

    def on_mount(self) -> None:
        self._update([Text("Highlight a step to see what it sent and received.", style="dim")])

    def _update(self, parts: Sequence[RenderableType]) -> None:
        self.lines = []
        for part in parts:
            if isinstance(part, Text):
                self.lines.extend(part.plain.splitlines() or [""])
            elif isinstance(part, JSON):
                self.lines.extend(part.text.plain.splitlines())
        self._parts = list(parts)
        self._render_parts()

    def _render_parts(self) -> None:
        for part in self._parts:
            if isinstance(part, Text):  # wrapped: long words (a URL, a token) fold at the edge
                part.no_wrap, part.overflow = not self.wrap, ("fold" if self.wrap else None)
        if self.is_mounted:
            body = self.query_one("#inspector-body", Static)
            # Unwrapped, the body is as wide as its longest line (a rich Group measures no wider
            # than its container), so the panel scrolls sideways.
            body.styles.width = None if self.wrap else max(map(cell_len, self.lines), default=1)
            body.update(Group(*self._parts))

    def action_toggle_wrap(self) -> None:
        """`w`: wrap long lines, or keep them whole and scroll sideways with ←/→."""
        self.wrap = not self.wrap
        self.set_class(not self.wrap, "-nowrap")
        self.scroll_to(x=0, animate=False)
        self._render_parts()
        self.border_subtitle = "" if self.wrap else "unwrapped — ←/→ scroll · w wraps"

    def action_sideways(self, direction: int) -> None:
        if self.wrap:
            raise SkipAction()  # nothing to scroll: let the key go on
        # from the target, at once: keys typed faster than the screen refreshes each count
        x = min(max(0, self.scroll_target_x + direction * self.SIDE_STEP), self.max_scroll_x)
        self.scroll_to(x=x, animate=False, immediate=True)

    def curl(self) -> str | None:
        """The request shown, as a curl command (masked unless secrets are revealed)."""
        if self.request is None:
            return None
        return curl_command(self.request, self.display_options.masker)

    def copy_curl(self) -> str | None:
        """`y`: the request shown, as curl, to the terminal's clipboard (OSC 52); the command, for
        the app to show (whether the terminal took it, no app can know), or None."""
        command = self.curl()
        if command is None:
            self.app.notify("No request to copy: highlight a step that sent one.", severity="warning")
            return None
        self.app.copy_to_clipboard(command)
        return command

    @property
    def text(self) -> str:
        return "\n".join([str(self.border_title)] + self.lines)

    # ------------------------------------------------------------ what to show

    def show_note(self, title: str, lines: Sequence[RenderableType]) -> None:
        self.view = NoteView(title, tuple(lines))

    def show_step(
        self,
        step: Step,
        run: StepRun | None,
        about_to_run: bool = False,
        scenario: str | None = None,
        warnings: Sequence[Diagnostic] = (),
        preview: ev.RequestSent | str | None = None,
    ) -> None:
        self.view = StepView(step, run, about_to_run, scenario, tuple(warnings), preview)

    def watch_view(self, view: StepView | NoteView | None) -> None:
        if isinstance(view, NoteView):
            self.border_title = view.title
            self._update(view.lines)
        elif isinstance(view, StepView):
            step = view.step
            self.border_title = f"Inspector · {step.keyword} line {step.location.line}"
            self._update(self._step_parts(*view))

    def _step_parts(
        self,
        step: Step,
        run: StepRun | None,
        about_to_run: bool,
        scenario: str | None,
        warnings: Sequence[Diagnostic],
        preview: ev.RequestSent | str | None,
    ) -> list[RenderableType]:
        parts: list[RenderableType] = []
        head = Text()
        head.append(f"{step.keyword} ", "bold")
        head.append(self.display_options.written(step.text))  # a literal secret in the file too
        if scenario:
            head.append(f"  · scenario '{visible(scenario)}'", "dim")
        parts.append(head)
        if run is not None and run.via:
            parts.append(
                Text(
                    visible("via " + " → ".join(f"include {i.fragment} (line {i.location.line})" for i in run.via)),
                    style="dim",
                )
            )
        parent = getattr(run, "parent", None)
        if parent is not None:  # a directive of a described step: the step it belongs to
            parts.append(Text(visible(f"in step '{step_label(parent)}' (line {parent.location.line})"), style="dim"))
        status = Text()
        if about_to_run:
            status.append("▶ about to run — n runs it, c continues", WARNING_BOLD)
        elif run is None:
            status.append("not run yet", "dim")
        else:
            style = {"passed": SUCCESS_BOLD, "failed": ERROR_BOLD, "skipped": "dim"}.get(run.status, WARNING_BOLD)
            status.append(run.status, style)
            elapsed = self.display_options.seconds(run.elapsed) if run.status != "skipped" else ""
            if elapsed:
                status.append(f" · {elapsed}", "dim")
        parts.append(status)
        if run is not None and run.resent:  # `a` on a then:/extract:: the request it reads, sent again
            parts.extend(resent_lines(run, self.display_options))
        parts.extend(warning_lines(warnings))
        if run is not None and run.message and run.status in ("failed", "skipped"):
            parts.append(_rule("failure" if run.status == "failed" else "skipped"))
            parts.append(Text(self.display_options.text(run.message), style=ERROR if run.status == "failed" else "dim"))
        if isinstance(step, IncludeStep):
            parts.append(Text(f"runs the steps of fragment '{visible(step.fragment)}' here", style="dim"))
            for argument in step.arguments:
                parts.append(Text(visible(f"  {argument.name} = {argument.value.text}  (while the fragment runs)")))
        elif isinstance(step, ConditionalStep):
            parts.extend(self._conditional(step, run))
        elif isinstance(step, DescribedStep) and step.keyword == FINALLY:
            parts.append(Text("runs after the scenario's other steps, whether they passed or failed", style="dim"))
        elif isinstance(step, DescribedStep):
            parts.append(Text("a custom step: the Python step registered for this description runs", style="dim"))
        elif isinstance(step, UnreadableStep):  # an invalid path or condition: local to its scenario
            parts.append(Text(visible(f"cannot be read: {step.message.text}"), style=ERROR))
            parts.append(Text("its scenario ends here as an error; the file's other scenarios run", style="dim"))
        elif isinstance(step, FailStep):
            parts.append(Text("fails the scenario with this message", style="dim"))
        elif isinstance(step, WebhookStep):
            parts.append(
                Text(
                    visible(
                        f"serves hooks {', '.join(step.hooks)} on loopback (port {step.port or 'any'}, "
                        f"until its {step.scope} ends): {{{{{step.name}.HOOK}}}} is a hook's URL"
                    ),
                    style="dim",
                )
            )
        elif isinstance(step, RequestStep):
            parts.extend(self._request(step, run, preview))
            for retry in run.retries if run is not None else ():
                parts.append(
                    Text(
                        self.display_options.text(
                            f"↻ retry {retry.attempt} after {retry.reason} (waited {retry.delay_s:.1f} s)"
                        ),
                        style=WARNING,
                    )
                )
            if run is not None and run.auto_tests:
                parts.extend(self._auto_tests(run))
        elif isinstance(step, ExtractStep):
            parts.extend(self._extract(step, run))
        elif isinstance(step, AssertStep):
            parts.extend(self._assertion(step, run))
        return parts

    # ------------------------------------------------------------ sections

    def _headers(self, headers: Iterable[tuple[str, str]]) -> Text:
        text = Text()
        for name, value in self.display_options.headers(headers):
            text.append(name, "bold")
            text.append(f": {value}\n")
        text.rstrip()
        return text

    def _body(self, body: str | None, data: object = None, is_json: bool | None = None) -> list[RenderableType]:
        if body is None or body == "":
            return [Text("(no body)", style="dim")]
        if is_json is None:
            try:
                data, is_json = json.loads(body), True
            except ValueError:
                is_json = False
        if is_json:
            shown = json.dumps(self.display_options.value(data), indent=2, ensure_ascii=False)
            if len(shown) <= MAX_BODY_CHARS:
                # rich's JSON would parse and dump again, writing `\u2028` and C1 controls raw:
                # highlight the escaped text as it does instead.
                return [_JSON_HIGHLIGHTER(Text(self.display_options.text(visible_json(shown))))]
            return [Text(self.display_options.text(shown[:MAX_BODY_CHARS]) + "\n… (cut)")]
        text = self.display_options.text(body)
        if len(text) > MAX_BODY_CHARS:
            text = text[:MAX_BODY_CHARS] + "\n… (cut)"
        return [Text(text)]

    def _request(
        self, step: RequestStep, run: StepRun | None, preview: ev.RequestSent | str | None
    ) -> list[RenderableType]:
        parts: list[RenderableType] = []
        sent, title = (run.request if run is not None else None), "request"
        if sent is None and isinstance(preview, ev.RequestSent):  # paused before it: as it will go
            sent, title = preview, "request, as it will be sent"
        if sent is None:
            parts.extend(written_request(step, self.display_options))
            if preview is not None:  # (a str: why it cannot be built now)
                parts.append(Text(self.display_options.text(f"cannot be built now: {preview}"), style=WARNING))
            return parts
        parts.append(_rule(title))
        if sent.operation is not None:
            parts.append(
                Text(visible(f"^{sent.operation}" + (f" — {sent.summary}" if sent.summary else "")), style=VALUE)
            )
            for child_name, place, value in sent.placements:  # which child went where, as sent
                placed = Text()
                placed.append(visible(child_name), "bold")
                placed.append(f" → {place}: ", "dim")
                placed.append(self.display_options.line(value))
                parts.append(placed)
        line = Text()
        line.append(sent.method, "bold")
        line.append(" " + self.display_options.line(sent.url))
        parts.append(line)
        if sent.headers:
            parts.append(self._headers(sent.headers))
        if sent.body is not None:  # a form or multipart body as a table
            parts.extend(request_body_view(step, sent.body, self.display_options) or self._body(sent.body))
        response = run.response if run is not None else None
        if response is not None:
            parts.extend(self._response(response))
        return parts

    def _response(self, response: ev.ResponseReceived, title: str = "response") -> list[RenderableType]:
        parts: list[RenderableType] = [_rule(title)]
        line = Text()
        ok = 200 <= response.status < 400
        line.append(visible(f"{response.status} {response.reason}"), SUCCESS_BOLD if ok else ERROR_BOLD)
        elapsed = self.display_options.seconds(response.elapsed)
        if elapsed:
            line.append(f" · {elapsed}", "dim")
        parts.append(line)
        if response.headers:
            parts.append(self._headers(response.headers))
        if response.is_json:
            parts.extend(self._body(response.body, response.json, True))
        else:
            parts.extend(xml_view(response, self.display_options) or self._body(response.body, None, False))
        return parts

    def _conditional(self, step: ConditionalStep, run: StepRun | None) -> list[RenderableType]:
        """Each branch with its condition; after the run, which held and which branch ran."""
        parts: list[RenderableType] = [_rule("if")]
        taken = run.branch if run is not None else None
        tried = {text: (held, why) for text, held, why in (taken.tried if taken else ())}
        for index, branch in enumerate(step.branches):
            line = Text()
            line.append(("▶ " if taken is not None and taken.branch == index else "  "), SUCCESS_BOLD)
            line.append(branch.keyword, "bold")
            if branch.text:
                line.append(" " + visible(branch.text))
            if (
                branch.text in tried
                and taken is not None
                and index <= (taken.branch if taken.branch is not None else len(step.branches))
            ):
                held, why = tried[branch.text]
                line.append("  held" if held else "  did not hold", SUCCESS if held else "dim")
                if why and not held:
                    line.append(f": {self.display_options.text(why)}", "dim")
            line.append(f"  ({len(branch.steps)} step{'s' if len(branch.steps) != 1 else ''})", "dim")
            parts.append(line)
        if taken is not None and taken.branch is None:
            parts.append(Text("no condition held and there is no else: nothing ran", style="dim"))
        if run is not None and run.response is None and run.read_response is not None:
            parts.extend(self._response(run.read_response, "conditions read the response"))
        return parts

    def _auto_tests(self, run: StepRun) -> list[RenderableType]:
        parts: list[RenderableType] = [_rule(f"auto tests ({len(run.auto_tests)})")]
        for test in run.auto_tests:
            line = Text()
            line.append("✓ " if test.passed else "✗ ", SUCCESS_BOLD if test.passed else ERROR_BOLD)
            line.append(f"{test.kind} {test.test_type}", "bold")
            line.append("  " + self.display_options.text(test.description))
            if test.message:
                line.append(f"  {self.display_options.text(test.message)}", ERROR)
            parts.append(line)
        return parts

    def _extract(self, step: ExtractStep, run: StepRun | None) -> list[RenderableType]:
        parts: list[RenderableType] = [_rule("extract")]
        line = Text()
        line.append(visible(step.name), "bold")
        line.append(" from ")
        line.append(visible(f"header {step.path}" if step.source == "header" else step.path), VALUE)
        parts.append(line)
        if run is not None:
            for extracted in run.extracted:
                found = Text()
                found.append("matched ")
                found.append(self.display_options.variable(extracted.name, extracted.value), VALUE_BOLD)
                found.append(visible(f"  into {', '.join(extracted.layers)}"), "dim")
                parts.append(found)
            for overwritten in run.overwritten:
                parts.append(
                    Text(
                        f"overwrote {visible(overwritten.layer)}: {self.display_options.variable(overwritten.name, overwritten.old)}"
                        f" → {self.display_options.variable(overwritten.name, overwritten.new)}",
                        style=WARNING,
                    )
                )
            if run.read_response is not None:
                parts.extend(self._response(run.read_response, "read from the response"))
        return parts

    def _assertion(self, step: AssertStep, run: StepRun | None) -> list[RenderableType]:
        parts: list[RenderableType] = [_rule("assertion")]
        parts.append(Text(visible(step.text), style="bold"))
        checked = run.assertion if run is not None else None
        if checked is not None and isinstance(step.assertion, SchemaAssertion):
            line = Text()
            line.append("passed" if checked.passed else "failed", SUCCESS_BOLD if checked.passed else ERROR_BOLD)
            line.append("  against ", "dim")
            line.append(visible(str(checked.expected)))
            parts.append(line)
            problems = checked.actual if isinstance(checked.actual, list) else ()  # a schema check's: a list or None
            for problem in problems:  # each offending value: where, then what is wrong
                where, _, why = str(problem).partition(": ")
                found = Text("  ")
                found.append(visible(where), WARNING_BOLD)
                found.append("  " + self.display_options.text(why), ERROR)
                parts.append(found)
        elif checked is not None:
            line = Text()
            line.append("passed" if checked.passed else "failed", SUCCESS_BOLD if checked.passed else ERROR_BOLD)
            if not (self.display_options.deterministic and isinstance(step.assertion, TimeAssertion)):
                line.append("  expected ", "dim")
                line.append(self.display_options.text(json_form(checked.expected)))
                line.append("  actual ", "dim")
                line.append(self.display_options.text(json_form(checked.actual)))
            parts.append(line)
        if run is not None and run.read_response is not None:
            parts.extend(self._response(run.read_response, "checked against the response"))
        return parts


def warning_lines(warnings: Sequence[Diagnostic]) -> list[Text]:
    """What static analysis expects of a node before it runs (`check` prints the same lines)."""
    return [Text(visible(f"⚠ line {w.location.line}: {w.message}"), style=WARNING) for w in warnings]
