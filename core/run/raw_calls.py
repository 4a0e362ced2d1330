"""BerryCrush's `call [using NAME] raw METHOD /path` in a run: a request by method and path, with
no operationId, to the server of the description (or binding) NAME.

As BerryCrush does it (its DefaultHttpExecutor): each part is rendered first (`{{method}}`,
`{{path}}`, `{{spec}}`); the method must be an HTTP method and the path start with `/`. When an
operation of the named description (else of exactly one description in force) has that method
and path, the call is that operation's: its base URL, and `then: schema` / `autoAssertions.*`
check the response against it. Otherwise the request goes to `binding.NAME.baseUrl`, else the
description NAME's server (without NAME: the run's baseUrl).

The children are placed by name, as no operation declares them: a `{name}` in the path takes
the child `name`, `header_X` / `query_X` go where they say, and any other child is a query
parameter; `headers:`, `query:` and the body as for any request.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Mapping

from scenario_core.language.nodes.steps import RequestStep
from scenario_core.language.step_syntax import METHODS
from scenario_core.language.templates import child_name, render_json, render_text, text_form
from scenario_core.parameters.resolution import EffectiveParameters
from scenario_core.run.http.client import RequestFailed, join_url
from scenario_core.run.sending import refuse_line_breaks, with_defaults

if TYPE_CHECKING:
    from scenario_core.openapi.operation_lookup import Descriptions
    from scenario_core.openapi.operations import Operation
    from scenario_core.run.http.request import OutgoingRequest
    from scenario_core.run.operation_calls import CallBody, OperationCalls, Placements

_PLACEHOLDER = re.compile(r"\{([^{}/]+)\}")


def build_raw_call(
    calls: OperationCalls,
    step: RequestStep,
    visible: Mapping[str, object],
    params: EffectiveParameters,
    scenario_file: str,
) -> tuple[OutgoingRequest, str | None, str, Operation | None, Placements]:
    """(the request, its body as text, its URL, the operation its method and path match or
    None, where each child went); RequestFailed, one line, otherwise."""
    raw = step.raw
    assert raw is not None  # only a raw call is built here
    method = render_text(raw.method, visible).strip().upper()
    path = render_text(raw.path, visible).strip()
    using = render_text(raw.using, visible).strip() if raw.using is not None else None
    if method not in METHODS:
        raise RequestFailed(f"{step.text}: '{method}' is not an HTTP method ({', '.join(METHODS)})")
    if not path.startswith("/"):
        raise RequestFailed(f"{step.text}: the path '{path}' does not start with /")
    if using == "":
        raise RequestFailed(f"{step.text}: {raw.using.text if raw.using else ''} gives an empty description name")
    descriptions, _, _ = calls.context(params, scenario_file)
    operation = _matching_operation(descriptions, using, method, path, step)
    base_url = _base_url(descriptions, operation, using, params, step)

    placements: list[tuple[str, str, str]] = []
    headers = [(h.name, render_text(h.value, visible)) for h in step.headers]
    query = [(q.name, render_text(q.value, visible)) for q in step.query]
    filled: dict[str, str] = {}
    names_in_path = set(_PLACEHOLDER.findall(path))
    for child in step.parameters:
        value = text_form(render_json(child.value, visible))
        written = child_name(child.name, child.name_template, visible)
        if written in names_in_path:
            filled[written] = value
            placements.append((written, "path", value))
        elif written.lower().startswith("header_"):
            headers.append((written[len("header_") :], value))
            placements.append((written, "header", value))
        else:
            name = written[len("query_") :] if written.lower().startswith("query_") else written
            query.append((name, value))
            placements.append((written, "query", value))
    path = _PLACEHOLDER.sub(lambda m: filled.get(m.group(1), m.group(0)), path)
    if params.headers:
        headers = with_defaults(headers, params.headers)
    body_text, content, content_type = _body(calls.body(step, visible, scenario_file))
    if content is not None and not any(name.lower() == "content-type" for name, _ in headers):
        headers.append(("Content-Type", content_type))
    refuse_line_breaks(headers)
    url = join_url(base_url, path)
    request = calls.client.build(method, url, headers, query, content)
    return request, body_text, url, operation, tuple(placements)


def _body(body: CallBody) -> tuple[str | None, bytes | None, str]:
    """(the body as a report shows it, its bytes, the Content-Type it goes with unless a header
    sets one): JSON for a body written as text or name: value lines; a form: or multipart: body
    is bytes already, with its own type and the text that shows it."""
    if "structured_body" in body:
        text = json.dumps(body["structured_body"], ensure_ascii=False)
        return text, text.encode("utf-8"), "application/json"
    sent = body.get("body")
    if isinstance(sent, bytes):
        return body.get("shown", ""), sent, body.get("form", "application/octet-stream")
    return sent, (sent.encode("utf-8") if sent is not None else None), "application/json"


def _segments_match(template: str, path: str) -> bool:
    """Whether a path (its own `{x}` placeholders allowed) is one of an operation's paths."""
    wanted, given = template.rstrip("/").split("/"), path.split("?")[0].rstrip("/").split("/")
    return len(wanted) == len(given) and all(
        w == g or _PLACEHOLDER.fullmatch(w) or _PLACEHOLDER.fullmatch(g) for w, g in zip(wanted, given)
    )


def _matching_operation(
    descriptions: Descriptions, using: str | None, method: str, path: str, step: RequestStep
) -> Operation | None:
    """The named description's operation with this method and path, else the one operation of
    all descriptions that has them; None when none has; several: RequestFailed."""
    if using is not None and using in descriptions:
        found = [op for op in descriptions.operations(using) if op.method == method and _segments_match(op.path, path)]
        if found:
            return found[0]
    found = [op for op in descriptions.operations() if op.method == method and _segments_match(op.path, path)]
    if len(found) > 1:
        where = ", ".join(f"{op.label} in {op.description_name}" for op in found)
        raise RequestFailed(
            f"{step.text}: {method} {path} matches several operations: {where}; name one with using NAME"
        )
    return found[0] if found else None


def _base_url(
    descriptions: Descriptions,
    operation: Operation | None,
    using: str | None,
    params: EffectiveParameters,
    step: RequestStep,
) -> str | None:
    from scenario_core.openapi.loader import resolve_base_url
    from scenario_core.parameters.descriptions import operation_base_url

    if operation is not None:
        return operation_base_url(operation, params, descriptions)
    if using is None:
        return params.base_url
    binding = params.get(f"binding.{using}.baseUrl")
    if binding is not None and binding.value:
        return str(binding.value)
    found = resolve_base_url(descriptions[using]) if using in descriptions else None
    if found:
        return found
    raise RequestFailed(
        f"{step.text}: no server for '{using}': set binding.{using}.baseUrl, or name an OpenAPI description '{using}'"
    )
