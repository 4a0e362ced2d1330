"""A failed scenario told in lines, masked: the failing step and its message, the request and
response it was about, and the bodies errorContext.* asks for. Shared by the headless run output,
the pytest plugin and the JSON and JUnit reports."""

from __future__ import annotations

from scenario_core.report.masking import Masker
from scenario_core.report.records import ErrorContext, Exchange, ScenarioRecord, StepRecord, body_head

BODY_LINES = 5  # lines of a response body in a failure summary
BODY_CHARS = 300


def cut_body(body: str, masker: Masker, limit: int, size: int | None = None) -> str:
    """The body masked, then cut at `limit` bytes (UTF-8), saying how much there was. `size`: the
    whole body's size in bytes when `body` is already only its head (body_head)."""
    whole = len(body.encode("utf-8"))
    size = whole if size is None else max(size, whole)
    # Mask before cutting (a cut through a secret would hide it from the Masker), but not a
    # 100 MB body for a 4 KB excerpt: a generous head of it.
    head = body_head(body, limit)
    masked = masker.text(head) or ""
    data = masked.encode("utf-8")
    if len(data) <= limit and len(head) == len(body) and size == whole:
        return masked
    return data[:limit].decode("utf-8", "ignore") + f" … ({size} bytes in all)"


def error_context_lines(
    exchange: Exchange | None, context: ErrorContext, masker: Masker, one_line: bool = False
) -> list[str]:
    """`request body: …` and `response body: …` of a failed step, as errorContext.* says:
    masked, each cut at maxBodySize bytes; a body's own lines stay lines (`one_line`: one each)."""
    if exchange is None:
        return []
    lines: list[str] = []
    for wanted, label, body in (
        (context.request_body, "request body", exchange.request_body),
        (context.response_body, "response body", exchange.body),
    ):
        if wanted and body and body.strip():
            text = cut_body(body.strip(), masker, context.max_body_size)
            if not text:
                continue
            if one_line:
                lines.append(f"{label}: {' '.join(text.split())}")
                continue
            first, *rest = text.replace("\r\n", "\n").split("\n")
            lines.append(f"{label}: {first}")
            lines.extend(rest)
    return lines


def exchange_head(exchange: Exchange, masker: Masker) -> str:
    """`GET http://h/pets/1 → 404 Not Found (3 ms)`, masked."""
    # `^getPetById GET http://h/pets/1 → 404`: the operation by its id, the request as sent.
    head = f"^{exchange.operation.split(' (')[0]} " if exchange.operation is not None else ""
    head += f"{exchange.method} {masker.text(exchange.url)} → "
    if exchange.status is None:
        return head + "no response"
    head += f"{exchange.status} {exchange.reason}".rstrip()
    if exchange.elapsed is not None:
        head += f" ({exchange.elapsed * 1000:.0f} ms)"
    return head


def exchange_summary(exchange: Exchange, masker: Masker, lines: int = BODY_LINES) -> list[str]:
    """`GET http://h/pets/1 → 404 Not Found (3 ms)` and the body's first lines, masked."""
    out = [exchange_head(exchange, masker)]
    if exchange.status is None:
        return out
    body = (exchange.body or "").strip()
    if body:
        # Mask the whole body before cutting it: a cut through a secret would hide it from the Masker.
        head_text = body[: BODY_CHARS * 4]
        body = (masker.text(head_text) or "") + (" …" if len(body) > len(head_text) else "")
        cut = body[:BODY_CHARS]
        # Only a line feed starts a line: `\r`, `\u2028` and friends stay in the text, where the
        # printers show them as escapes instead of letting them fake a line of their own.
        body_lines = cut.replace("\r\n", "\n").split("\n")
        shown = body_lines[:lines]
        if len(body_lines) > lines or len(body) > BODY_CHARS:
            shown[-1] += " …"
        out.extend(shown)
    return out


def failure_message(scenario: ScenarioRecord) -> str:
    step = scenario.failed_step
    if step is not None and step.message:
        return f"line {step.line}: {step.message}"
    return scenario.message or "failed"


def failure_step_lines(scenario: ScenarioRecord, masker: Masker) -> list[str]:
    """The failing step (`line 14  then: status 200`) and its message, masked."""
    step = scenario.failed_step
    if step is None:
        return [masker.text(scenario.message) or "failed"]
    where = f"line {step.line}"
    if step.via:
        where += " (included at line " + ", ".join(map(str, step.via)) + ")"
    return [
        f"{where}  {masker.text(step.label or f'{step.keyword}: {step.text}')}",
        masker.text(step.message) or "failed",
    ]


def step_message(scenario: ScenarioRecord, step: StepRecord, masker: Masker) -> str | None:
    """A step's message; for the failed step, followed by the bodies errorContext.* asks for,
    `… · request body: {…} · response body: {…}` (a message stays one line: line breaks and runs
    of spaces in a body become one space)."""
    message = masker.text(step.message)
    if step is scenario.failed_step and message is not None and scenario.exchange is not None:
        context = error_context_lines(scenario.exchange, scenario.error_context, masker, one_line=True)
        if context:
            message = " · ".join([message] + context)
    return message


def failure_details(scenario: ScenarioRecord, masker: Masker) -> list[str]:
    """The failing step, its message, the request/response line and the bodies errorContext.*
    asks for: what a CI log shows."""
    lines = failure_step_lines(scenario, masker)
    if scenario.exchange is not None:
        lines.append(exchange_head(scenario.exchange, masker))
        lines.extend(error_context_lines(scenario.exchange, scenario.error_context, masker))
    return lines
