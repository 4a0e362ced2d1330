"""What `scenario-tui run` prints while the event stream goes by.

A line per scenario once it ends (✓ passed, ✗ failed, – skipped, with its duration), the failing
step and a request/response summary under a failure, and a final summary.

Two sinks, chosen by where the output goes:
- a terminal (or FORCE_COLOR / TTY_COMPATIBLE=1): rich, with colour, and -- only on a real
  interactive terminal -- a transient spinner line for the scenario that is running;
- anything else (CI logs, pipes, files): plain lines, never redrawn, never wrapped, no escape
  codes, flushed line by line so a CI log shows progress. rich is not even imported there: it
  is a fifth of the runner's start-up time, and `run` is what CI calls over and over.

Lines are built as (text, style) segments, never markup, so a `[` in a scenario name prints as
is; everything user-controlled goes through the Masker first, then `visible`: a scenario name, a
message or a response body never sends a control character (ESC[2J, an OSC title, a `\r` over a
line) to the terminal or the CI log -- it is shown as an escape (`\x1b`).
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Iterable, TextIO

if TYPE_CHECKING:  # rich is loaded when a sink is made
    from rich.console import Console
    from rich.live import Live
    from rich.spinner import Spinner

    from scenario_core.report.compare import Comparer

from scenario_core.language.parameter_keys import ENVIRONMENT, LOG_REQUESTS, LOG_RESPONSES
from scenario_core.report.failures import cut_body, error_context_lines, exchange_head, failure_step_lines
from scenario_core.report.masking import Masker
from scenario_core.report.recorder import RunRecorder
from scenario_core.report.records import ScenarioRecord, parameter_value
from scenario_core.run import events as ev
from scenario_core.run.consumers import EventConsumer
from scenario_core.support.plural import counted
from scenario_core.support.printable import visible, visible_block
from scenario_core.support.records import replace
from scenario_tui.output.palette import ERROR, ERROR_BOLD, SUCCESS, VALUE, VALUE_BOLD, WARNING, WARNING_BOLD

MARKS = {ev.PASSED: ("✓", SUCCESS), ev.FAILED: ("✗", ERROR_BOLD), ev.SKIPPED: ("–", WARNING)}
LOG_BODY_BYTES = 300  # a body in a logRequests / logResponses line is cut here

Segments = list[tuple[str, str]]  # (text, rich style)


def format_duration(seconds: float) -> str:
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 60:
        return f"{seconds:.2f} s"
    minutes, rest = divmod(seconds, 60)
    return f"{int(minutes)} min {rest:.0f} s"


# ---------------------------------------------------------------- sinks


class PlainSink:
    """Plain text for logs and pipes."""

    live = False

    def __init__(self, file: TextIO | None = None):
        self.file = file if file is not None else sys.stdout

    def line(self, segments: Segments) -> None:
        text = "".join(text for text, _ in segments) + "\n"
        try:
            self.file.write(text)
        except UnicodeEncodeError:  # a log in a legacy encoding: ✓ becomes ?, never a traceback
            encoding = getattr(self.file, "encoding", None) or "ascii"
            self.file.write(text.encode(encoding, "replace").decode(encoding))
        self.file.flush()

    def running(self, label: str, detail: str, indent: str = "") -> None:
        pass

    def done_running(self) -> None:
        pass


class RichSink:
    """rich on a terminal; the running line is a transient Live spinner when interactive."""

    def __init__(self, console: Console | None = None, live: bool | None = None) -> None:
        from rich.console import Console

        self.console = console if console is not None else Console(highlight=False, soft_wrap=True)
        # FORCE_COLOR makes rich call a CI log a terminal: colour is welcome there, redraws are not.
        isatty = getattr(self.console.file, "isatty", None)
        self.live = (self.console.is_interactive and bool(isatty and isatty())) if live is None else live
        self._live: Live | None = None
        self._spinner: Spinner | None = None

    def line(self, segments: Segments) -> None:
        from rich.text import Text

        self.console.print(Text.assemble(*segments), soft_wrap=True)

    def running(self, label: str, detail: str, indent: str = "") -> None:
        if not self.live:
            return
        from rich.text import Text

        text = Text.assemble((f" {label}", "bold"), (f"  {detail}", "dim"))
        if self._live is None:
            from rich.live import Live
            from rich.padding import Padding
            from rich.spinner import Spinner

            self._spinner = Spinner("dots", text=text, style=VALUE)
            self._live = Live(
                Padding(self._spinner, (0, 0, 0, len(indent))),
                console=self.console,
                transient=True,
                refresh_per_second=12.5,
                redirect_stdout=False,
                redirect_stderr=False,
            )
            self._live.start()
        elif self._spinner is not None:
            self._spinner.update(text=text)  # drawn by Live's own refresh thread, at most 12.5/s

    def done_running(self) -> None:
        if self._live is not None:
            self._live.stop()
        self._live, self._spinner = None, None


def make_sink(file: TextIO | None = None) -> PlainSink | RichSink:
    file = file if file is not None else sys.stdout
    env = os.environ
    isatty = getattr(file, "isatty", None)
    terminal = bool(isatty and isatty())
    if terminal or env.get("FORCE_COLOR") or env.get("TTY_COMPATIBLE") == "1":
        from rich.console import Console

        return RichSink(Console(file=file, highlight=False, soft_wrap=True))
    return PlainSink(file)


# ---------------------------------------------------------------- the printer


class RunPrinter(EventConsumer):
    """Feed it every event after the recorder has seen it (it prints the recorder's records)."""

    def __init__(
        self, sink: PlainSink | RichSink, masker: Masker, recorder: RunRecorder, comparer: Comparer | None = None
    ):
        self.sink = sink
        self.masker = masker
        self.recorder = recorder
        self.comparer = comparer  # run --compare: each step's changes against an earlier report
        self._live = sink.live
        self._plan_size = 0
        self._label = ""
        self._indent = ""
        self._log_requests = self._log_responses = False  # the running scenario's logRequests / logResponses
        self._environments: list[str] = []  # every `environment` a file or feature ran with, in order
        self._file_environment: str | None = None
        self._in_scenario = False
        self._dropped: list[str] = []  # webhook calls dropped in the running scenario: under its line

    def quiet_running(self) -> None:
        """No spinner line (`--jobs`: a file's events arrive in a burst once it is done)."""
        self._live = False

    def _step_started(self, event: ev.StepStarted) -> None:  # the hot path: once per step
        if self._live:
            self.sink.running(self._label, f"running step {event.index + 1}/{self._plan_size}", self._indent)

    def _scenario_finished(self, event: ev.ScenarioFinished) -> None:
        self.sink.done_running()
        self._indent = "    " if event.feature is not None else "  "
        if self.recorder.last is not None:
            self._print_scenario(self.recorder.last)
        self._in_scenario = False
        self._print_dropped(self._indent + "    ")

    def _webhook_calls_dropped(self, event: ev.WebhookCallsDropped) -> None:
        self._dropped.append(event.message)
        if not self._in_scenario:  # a feature's webhook: said as its feature ends
            self._print_dropped("    ")

    def _scenario_started(self, event: ev.ScenarioStarted) -> None:
        self._in_scenario = True
        self._indent = "    " if event.feature is not None else "  "
        self._label = visible(event.scenario.name)
        self._plan_size = len(event.steps)
        self._log_requests = bool(parameter_value(event.parameters, LOG_REQUESTS))
        self._log_responses = bool(parameter_value(event.parameters, LOG_RESPONSES))
        if self._live:
            self.sink.running(self._label, "starting", self._indent)

    def _request_sent(self, event: ev.RequestSent) -> None:
        if self._log_requests:
            self._log("→ ", request_head(event, self.masker), event.body)

    def _response_received(self, event: ev.ResponseReceived) -> None:
        if self._log_responses:
            self._log("← ", response_head(event, "{:.0f}"), event.body)

    def _request_retried(self, event: ev.RequestRetried) -> None:
        if self._log_requests or self._log_responses:
            self._log("↻ ", retry_line(event, self.masker), None)

    def _file_started(self, event: ev.FileStarted) -> None:
        self._file_environment = parameter_value(event.parameters, ENVIRONMENT)
        self._line([(event.file.path, "bold")] + self._environment(self._file_environment))

    def _feature_started(self, event: ev.FeatureStarted) -> None:
        own = parameter_value(event.parameters, ENVIRONMENT)
        shown = self._environment(own) if own != self._file_environment else []
        self._line([(f"  {event.feature.name}", VALUE_BOLD)] + shown)

    def _print_dropped(self, indent: str) -> None:
        """One line per hook whose calls were dropped past its webhook's cap."""
        for message in self._dropped:
            self._line([(indent + "⚠ " + self.masker.text(message), WARNING)])
        self._dropped = []

    def _environment(self, environment: str | None) -> Segments:
        """`  environment: staging` after a file's (or a feature's) name, when one is set."""
        if environment is None:
            return []
        if environment not in self._environments:
            self._environments.append(environment)
        return [(f"  environment: {self.masker.text(environment)}", "dim")]

    def _log(self, mark: str, head: str, body: str | None) -> None:
        """One logRequests / logResponses line: the body masked, on one line, cut."""
        line: Segments = [(self._indent + "  " + mark, "dim"), (head, "")]
        if body and body.strip():
            text = " ".join(cut_body(body.strip(), self.masker, LOG_BODY_BYTES).split())
            line.append(("  " + text, "dim"))
        self._line(line)

    def _line(self, segments: Segments) -> None:
        self.sink.line([(visible(text), style) for text, style in segments])

    def close(self) -> None:
        self.sink.done_running()

    def _print_scenario(self, scenario: ScenarioRecord) -> None:
        mark, style = MARKS.get(scenario.status, ("?", ""))
        line: Segments = [(self._indent, ""), (mark, style), (f" {scenario.name}", "")]
        if scenario.status == ev.SKIPPED:
            line.append((f"  skipped: {self.masker.text(scenario.message) or 'not selected'}", "dim"))
        else:
            line.append((f"  {format_duration(scenario.elapsed)}", "dim"))
        self._line(line)
        if self.comparer is not None:
            self._print_changes(scenario, self.comparer)
        if scenario.status != ev.FAILED:
            return
        indent = self._indent + "    "
        for text in failure_step_lines(scenario, self.masker):
            for part in text.split("\n"):  # a message's own lines stay lines; any other control is shown
                self._line([(indent + part, ERROR)])
        if scenario.exchange is not None:
            exchange = scenario.exchange
            # Before the bodies are split into lines: a `\r` or `\u2028` must not start a line.
            exchange = replace(
                exchange,
                body=visible_block(exchange.body) if exchange.body else exchange.body,
                request_body=visible_block(exchange.request_body) if exchange.request_body else exchange.request_body,
            )
            self._line([(indent + exchange_head(exchange, self.masker), "")])
            # The bodies errorContext.* asks for (request and response, cut at maxBodySize).
            for text in error_context_lines(exchange, scenario.error_context, self.masker):
                self._line([(indent + "  " + text, "dim")])

    def _print_changes(self, scenario: ScenarioRecord, comparer: Comparer) -> None:
        """run --compare: under the scenario's line, each step that sent a request and whose
        response differs from the same step of the earlier report, with what changed (masked)."""
        from scenario_core.report.compare import format_changes

        indent = self._indent + "    "
        for step in scenario.steps:
            lines = format_changes(comparer.changes(scenario, step, self.masker))
            if not lines:
                continue
            self._line([(f"{indent}≠ line {step.line}  {self.masker.text(step.label or step.text)}", WARNING)])
            for text in lines:
                for part in text.split("\n"):
                    self._line([(f"{indent}  {self.masker.text(part)}", "dim")])

    def summary(self, interrupted: bool) -> Segments:
        counts = self.recorder.counts()
        total = sum(counts.values())
        elapsed = self.recorder.elapsed
        requests = self.recorder.requests
        rate = requests / elapsed if elapsed > 0 else 0.0
        if interrupted:
            line: Segments = [
                ("Interrupted", WARNING_BOLD),
                (f" after {format_duration(elapsed)}: {counted(total, 'scenario')} finished (", ""),
            ]
        else:
            line = [(counted(total, "scenario"), "bold"), (": ", "")]
        line += [
            (f"{counts[ev.PASSED]} passed", SUCCESS if counts[ev.PASSED] else ""),
            (", ", ""),
            (f"{counts[ev.FAILED]} failed", ERROR_BOLD if counts[ev.FAILED] else ""),
            (", ", ""),
            (f"{counts[ev.SKIPPED]} skipped", WARNING if counts[ev.SKIPPED] else ""),
        ]
        line.append((")", "") if interrupted else (f" in {format_duration(elapsed)}", ""))
        line.append((f" · {counted(requests, 'request')}, {rate:.1f} req/s", "dim"))
        if self._environments:
            line.append((" · environment: " + ", ".join(self.masker.text(e) for e in self._environments), "dim"))
        return line

    def print_summary(self, interrupted: bool, reports: list[str]) -> None:
        self.close()
        self._line([])
        line = self.summary(interrupted)
        if reports:
            line.append((" · report" + ("s" if len(reports) > 1 else "") + ": " + ", ".join(reports), "dim"))
        self._line(line)


# ---------------------------------------------------------------- --verbose


VERBOSE_BODY_BYTES = 2000  # a body in a --verbose line is cut here (--very-verbose: 4x)


RunPrinter.receivers = {
    ev.StepStarted: RunPrinter._step_started,
    ev.ScenarioFinished: RunPrinter._scenario_finished,
    ev.WebhookCallsDropped: RunPrinter._webhook_calls_dropped,
    ev.ScenarioStarted: RunPrinter._scenario_started,
    ev.RequestSent: RunPrinter._request_sent,
    ev.ResponseReceived: RunPrinter._response_received,
    ev.RequestRetried: RunPrinter._request_retried,
    ev.FileStarted: RunPrinter._file_started,
    ev.FeatureStarted: RunPrinter._feature_started,
}


class ExchangeLog(EventConsumer):
    """`run --verbose`: every request and response as it happens -- method, URL, headers, the body
    (masked, cut), the time -- and with `connection=True` (--very-verbose) where it went (host
    and port, the connection header the server answered with). `tag` names the file when several
    files run (`name_files`), so interleaved lines of `--jobs` stay readable: set as each file
    starts, and by the `--jobs` driver before each event, since files' events interleave."""

    def __init__(self, sink: PlainSink | RichSink, masker: Masker, connection: bool = False, name_files: bool = False):
        self.sink = sink
        self.masker = masker
        self.connection = connection
        self.limit = VERBOSE_BODY_BYTES * (4 if connection else 1)
        self.name_files = name_files  # several files run: each line names its own
        self.tag: str | None = None

    def _file_started(self, event: ev.FileStarted) -> None:
        if self.name_files:
            self.tag = visible(event.file.path)

    def _request_sent(self, event: ev.RequestSent) -> None:
        head = "→ " + request_head(event, self.masker)
        if event.operation is not None:
            head += f"  (^{event.operation.split(' (')[0]})"
        self._lines(head, event.headers, event.body)
        if self.connection:
            self._line("  connection: " + _target(self.masker.text(event.url) or ""), "dim")

    def _response_received(self, event: ev.ResponseReceived) -> None:
        head = "← " + response_head(event, "{:.1f}", "  ")
        self._lines(head, event.headers, event.body)
        if self.connection:
            answered = [v for n, v in event.headers if n.lower() in ("connection", "keep-alive")]
            self._line("  connection: " + (", ".join(answered) if answered else "kept open (HTTP/1.1 default)"), "dim")

    def _request_retried(self, event: ev.RequestRetried) -> None:
        self._line("↻ " + retry_line(event, self.masker), WARNING)

    def _lines(self, head: str, headers: Iterable[tuple[str, str]], body: str | None) -> None:
        self._line(head, "bold")
        for name, value in self.masker.headers(headers):
            self._line(f"  {name}: {value}", "dim")
        if body:
            text = visible_block(cut_body(body, self.masker, self.limit))
            for part in text.split("\n"):
                self._line("  " + part, "")

    def _line(self, text: str, style: str) -> None:
        segments: Segments = [(f"[{visible(self.tag)}] ", VALUE)] if self.tag else []
        self.sink.line(segments + [(visible(text), style)])


ExchangeLog.receivers = {
    ev.FileStarted: ExchangeLog._file_started,
    ev.RequestSent: ExchangeLog._request_sent,
    ev.ResponseReceived: ExchangeLog._response_received,
    ev.RequestRetried: ExchangeLog._request_retried,
}


# The heads of request, response and retry lines: one wording for logRequests / logResponses
# and for --verbose.


def request_head(event: ev.RequestSent, masker: Masker) -> str:
    return f"{event.method} {masker.text(event.url)}"


def response_head(event: ev.ResponseReceived, milliseconds: str, gap: str = " ") -> str:
    return f"{event.status} {event.reason}".rstrip() + f"{gap}({milliseconds.format(event.elapsed * 1000)} ms)"


def retry_line(event: ev.RequestRetried, masker: Masker) -> str:
    return f"retry {event.attempt} after {masker.text(event.reason)}, waited {event.delay_s:.2f} s"


def _target(url: str) -> str:
    """`127.0.0.1:8000 (http)`: where a request went, from its URL (the client pools connections
    per host and port)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return url
    return f"{parts.hostname}:{port} ({parts.scheme})"
