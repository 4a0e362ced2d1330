"""The inspector's request before it is sent: as written (the template, a literal secret masked
as it would be once sent). Paused just before it, the inspector shows the request as it will be
sent instead (run/previews.py builds it), which it draws as a request sent. And what `a` sent
again before a re-run `then:` or `extract:` (`resent_lines`)."""

from __future__ import annotations

from urllib.parse import urlsplit

from rich.console import RenderableType
from rich.text import Text

from scenario_core.language.nodes.steps import RequestStep
from scenario_core.run.stepper import StepRun
from scenario_core.support.printable import visible
from scenario_tui.widgets.display import Display
from scenario_tui.widgets.theme_styles import ERROR, WARNING


def written_request(step: RequestStep, display: Display) -> list[RenderableType]:
    """The request's lines as written in the file."""
    parts: list[RenderableType] = []
    parts.append(Text("── request, as written ", style="bold"))
    line = Text()
    if step.operation is not None:  # the method and path come from the description
        line.append(visible(step.operation.text), "bold")
        parts.append(line)
        for parameter in step.parameters:  # where each goes shows once it is sent
            child = Text()
            child.append(visible(parameter.name), "bold")
            child.append(": " + display.written(parameter.value.text))
            parts.append(child)
    elif step.url is None:  # no operation, no URL: `call [using NAME] raw METHOD /path`
        line.append(display.written(step.text), "bold")
        parts.append(line)
        for parameter in step.parameters:  # a `{id}` of the path, a header_X, a query_X
            child = Text()
            child.append(visible(parameter.name), "bold")
            child.append(": " + display.written(parameter.value.text))
            parts.append(child)
    else:
        line.append(visible(step.method or ""), "bold")
        # As written, masked too: `Bearer {{token}}` holds no secret, a literal key does.
        line.append(" " + display.written(step.url.text))
        parts.append(line)
    if step.query:
        query = "&".join(f"{q.name}={q.value.text}" for q in step.query)
        parts.append(Text("query: " + display.written("?" + query)[1:], style="dim"))
    for header in step.headers:
        if header.value.refs:  # a template: `Bearer {{token}}` holds no secret
            name, value = visible(header.name), display.written(header.value.text)
        else:  # a literal value: masked like one sent
            ((name, value),) = display.headers([(header.name, header.value.text)])
        line = Text()
        line.append(name, "bold")
        line.append(": " + value)
        parts.append(line)
    if step.body is not None:
        parts.append(Text(display.text(step.body.text)))
    return parts


def path_of(url: str) -> str:
    """`/pets/1?x=1` of `http://host:port/pets/1?x=1`: what a line names a request by."""
    parts = urlsplit(url)
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def resent_lines(run: StepRun, display: Display) -> list[RenderableType]:
    """`↻ re-sent first: GET /pets/1 → 200 OK (line 12)`: the steps `a` ran again before this one,
    the request this `then:` or `extract:` reads first."""
    lines: list[RenderableType] = []
    for earlier in run.resent:
        request, response = earlier.request, earlier.response
        if request is not None:
            what = f"re-sent first: {request.method} {path_of(request.url)}"
            answer = f" → {response.status} {response.reason}" if response is not None else f": {earlier.status}"
        else:
            what, answer = f"ran again first: {earlier.step.keyword} {earlier.step.text}", f": {earlier.status}"
        style = ERROR if earlier.status == "failed" else WARNING
        lines.append(Text(display.line(f"↻ {what}{answer} (line {earlier.step.location.line})"), style=style))
    return lines
