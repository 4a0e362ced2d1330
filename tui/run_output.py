"""What `scenario-tui run` prints while the event stream goes by.

A line per scenario once it ends (✓ passed, ✗ failed, – skipped, with its duration), the failing
step and a request/response summary under a failure, and a final summary. On a terminal the
scenario that is running gets a spinner line (rich Live, transient: it disappears when the
scenario's final line is printed). Anywhere else (CI logs, pipes) nothing is redrawn: only the
final lines are printed, never wrapped, without colour unless the environment forces it.

Everything user-controlled goes through rich Text (never markup), so a `[` in a scenario name
prints as is, and through the Masker, so secrets never reach the screen.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.live import Live
from rich.spinner import Spinner
from rich.text import Text

from scenario_core import events as ev
from scenario_core.masking import Masker
from scenario_core.reports import RunRecorder, ScenarioRecord, exchange_summary, failure_step_lines

MARKS = {ev.PASSED: ("✓", "green"), ev.FAILED: ("✗", "red bold"), ev.SKIPPED: ("–", "yellow")}


def format_duration(seconds: float) -> str:
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 60:
        return f"{seconds:.2f} s"
    minutes, rest = divmod(seconds, 60)
    return f"{int(minutes)} min {rest:.0f} s"


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


class RunPrinter:
    """Feed it every event after the recorder has seen it (it reads the recorder's records)."""

    def __init__(self, console: Console, masker: Masker, recorder: RunRecorder, live: bool | None = None):
        self.console = console
        self.masker = masker
        self.recorder = recorder
        self.live_enabled = console.is_terminal if live is None else live
        self._live: Live | None = None
        self._spinner: Spinner | None = None
        self._plan_size = 0
        self._label = ""
        self._indent = ""

    # ---- events

    def feed(self, event: ev.Event) -> None:
        kind = type(event)
        if kind is ev.StepStarted:  # the hot path: once per step
            if self._spinner is not None:
                self._update_spinner(event.index + 1)
        elif kind is ev.FileStarted:
            self._print(Text(event.file.path, style="bold"))
        elif kind is ev.FeatureStarted:
            self._print(Text(f"  {event.feature.name}", style="bold cyan"))
        elif kind is ev.ScenarioStarted:
            self._indent = "    " if event.feature is not None else "  "
            self._label = event.scenario.name
            self._plan_size = len(event.steps)
            self._start_spinner()
        elif kind is ev.ScenarioFinished:
            self._stop_spinner()
            self._indent = "    " if event.feature is not None else "  "
            if self.recorder.last is not None:
                self._print_scenario(self.recorder.last)

    # ---- the live line

    def _start_spinner(self) -> None:
        if not self.live_enabled:
            return
        self._spinner = Spinner("dots", style="cyan")
        self._update_spinner(0)
        self._live = Live(self._spinner, console=self.console, transient=True, refresh_per_second=12.5,
                          redirect_stdout=False, redirect_stderr=False)
        self._live.start()

    def _update_spinner(self, step: int) -> None:
        text = Text(f" {self._label}", style="bold")
        text.append(f"  running step {step}/{self._plan_size}" if step else "  running", style="dim")
        self._spinner.update(text=text)

    def _stop_spinner(self) -> None:
        if self._live is not None:
            self._live.stop()
        self._live, self._spinner = None, None

    def close(self) -> None:
        self._stop_spinner()

    # ---- lines

    def _print(self, text: Text) -> None:
        self.console.print(text, soft_wrap=True)

    def _print_scenario(self, scenario: ScenarioRecord) -> None:
        mark, style = MARKS.get(scenario.status, ("?", ""))
        line = Text(self._indent)
        line.append(mark, style=style)
        line.append(f" {scenario.name}")
        if scenario.status == ev.SKIPPED:
            line.append(f"  skipped ({self.masker.text(scenario.message) or 'not selected'})", style="dim")
        else:
            line.append(f"  {format_duration(scenario.elapsed)}", style="dim")
        self._print(line)
        if scenario.status == ev.FAILED:
            indent = self._indent + "    "
            for text in failure_step_lines(scenario, self.masker):
                self._print(Text(indent + text, style="red"))
            if scenario.exchange is not None:
                head, *body = exchange_summary(scenario.exchange, self.masker)
                self._print(Text(indent + head))
                for text in body:
                    self._print(Text(indent + "  " + text, style="dim"))

    def summary(self, interrupted: bool) -> Text:
        counts = self.recorder.counts()
        total = sum(counts.values())
        elapsed = self.recorder.elapsed
        requests = self.recorder.requests
        rate = requests / elapsed if elapsed > 0 else 0.0
        text = Text()
        if interrupted:
            text.append("Interrupted", style="bold yellow")
            text.append(f" after {format_duration(elapsed)}: {plural(total, 'scenario')} finished (")
        else:
            text.append(plural(total, "scenario"), style="bold")
            text.append(": ")
        parts: list[tuple[str, str]] = [(f"{counts[ev.PASSED]} passed", "green" if counts[ev.PASSED] else "")]
        parts.append((f"{counts[ev.FAILED]} failed", "red bold" if counts[ev.FAILED] else ""))
        parts.append((f"{counts[ev.SKIPPED]} skipped", "yellow" if counts[ev.SKIPPED] else ""))
        for i, (part, style) in enumerate(parts):
            text.append(("" if i == 0 else ", ") + part, style=style)
        if interrupted:
            text.append(")")
        else:
            text.append(f" in {format_duration(elapsed)}")
        text.append(f" · {plural(requests, 'request')}, {rate:.1f} req/s", style="dim")
        return text

    def print_summary(self, interrupted: bool, reports: list[str]) -> None:
        self.close()
        self.console.print(soft_wrap=True)
        line = self.summary(interrupted)
        if reports:
            line.append(" · report" + ("s" if len(reports) > 1 else "") + ": " + ", ".join(reports), style="dim")
        self._print(line)


def make_console(file: Any = None) -> Console:
    """Highlighting off: rich would otherwise colour numbers and URLs inside user text."""
    return Console(file=file, highlight=False, soft_wrap=True)
