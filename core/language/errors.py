"""The project's own errors. Every problem with user input ends up as one of these, never as a
traceback: a `Diagnostic` is one located line, `FILE:LINE:COLUMN: SEVERITY: MESSAGE`."""

from __future__ import annotations

from dataclasses import dataclass

from scenario_core.language.nodes.base import SourceLocation

MAX_MESSAGE = 600


def clip(text: str, width: int = 40) -> str:
    """A piece of a line as a message quotes it: cut to `width` characters, so that the message stays
    one readable line whatever was written (a triple-quoted block is quoted up to its first line break)."""
    lines = text.splitlines()
    if len(lines) > 1 or (lines and lines[0] != text):
        text = (lines[0] if lines else "") + "…"
    return text if len(text) <= width else text[: width - 1] + "…"


ERROR, WARNING = "error", "warning"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    location: SourceLocation
    message: str
    severity: str = ERROR  # ERROR stops a file from running; WARNING (static analysis) does not
    code: str = ""  # a stable short name for tools (`check --format json`, the language server)
    # Local to the scenario whose step holds it (docs/spec/steps.md#errors-local-to-one-scenario): that scenario ends as an
    # error, the file's others still run (parameters/local_errors.py).
    local: bool = False

    def __str__(self) -> str:
        loc = self.location
        message = self.message
        if len(message) > MAX_MESSAGE:  # whatever a message quotes, it stays one readable line
            message = message[: MAX_MESSAGE - 1] + "…"
        return f"{loc.file}:{loc.line}:{loc.column}: {self.severity}: {message}"


class ScenarioError(Exception):
    """Base of every error the project reports to a user."""


# Errors in one step that end only its scenario when they stand in one (docs/spec/steps.md#errors-local-to-one-scenario):
# an invalid JSON path, an invalid condition. The builder keeps such a step as an UnreadableStep.
JSON_PATH, CONDITION = "json-path", "condition"
SCENARIO_LOCAL_CODES = frozenset((JSON_PATH, CONDITION))


class InvalidFileError(ScenarioError):
    """A file that does not parse or validate; holds every diagnostic found, in file order.
    `partial`: the syntax tree read around the errors (the lines in error left out), when the
    parser could read one, so `check` runs its later stages on the rest (a ScenarioFileNode)."""

    def __init__(self, diagnostics: list[Diagnostic], partial: object = None):
        self.diagnostics = sorted(diagnostics, key=lambda d: (d.location.file, d.location.line, d.location.column))
        self.partial = partial
        super().__init__("\n".join(str(d) for d in self.diagnostics))


class UsageError(ScenarioError):
    """A bad command line: a missing file, an invalid option value."""
