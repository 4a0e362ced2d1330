"""Operation calls in a run (`when: ^op`, BerryCrush's `call ^op`): the operation found in the
OpenAPI descriptions in force, each child placed where the operation declares it, the body over
its schema's defaults (or a `bodyFile:`); then what the description says of the response:
`then: schema` and `autoAssertions.*` (status, content type, schema).

The OpenAPI layer is imported here, lazily: only a run that calls an operation loads it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Sequence, TypedDict

from scenario_core.language.nodes.steps import RequestStep
from scenario_core.language.parameter_keys import AUTO_CONTENT_TYPE, AUTO_SCHEMA, AUTO_STATUS, STRICT_SCHEMA
from scenario_core.language.templates import child_name, render_json, render_json_text, render_text
from scenario_core.parameters.resolution import EffectiveParameters
from scenario_core.run.body_files import read_body_file
from scenario_core.run.body_forms import build_body, has_body_form
from scenario_core.run.comparison import MATCH_SECONDS
from scenario_core.run.events import ResponseReceived
from scenario_core.run.http.client import HttpClient, RequestFailed, join_url
from scenario_core.run.sending import refuse_line_breaks, with_defaults

if TYPE_CHECKING:
    from scenario_core.openapi.operation_lookup import Descriptions
    from scenario_core.openapi.operations import Operation
    from scenario_core.parameters.descriptions import DescriptionSet
    from scenario_core.run.http.request import OutgoingRequest
    from scenario_core.support.json_types import JsonValue

    class CallBody(TypedDict, total=False):
        """A call's body as build_request takes it (`structured_body` or `body`), and for a form:
        or multipart: body its Content-Type (`form`) and the text a report shows (`shown`)."""

        structured_body: JsonValue
        body: str | bytes
        form: str
        shown: str

    class _Parsed(TypedDict, total=False):
        parsed: JsonValue

    class _Seconds(TypedDict, total=False):
        seconds: float


# (child as written, where it went, as sent) for each child of a call: RequestSent.placements
Placements = tuple[tuple[str, str, str], ...]


class OperationCalls:
    """A run's operation calls: the descriptions in force (read once per run; a TUI session passes
    its own, kept across runs), and each call's operation and base URL, looked up once per step
    and set of parameters (a chain of 600 calls looks its operation up once)."""

    def __init__(self, client: HttpClient, descriptions: DescriptionSet | None, resource_roots: Sequence[str]):
        self._client = client
        self._descriptions = descriptions
        self._resource_roots = resource_roots  # --resource-root: where bodyFile names are looked up first
        self.resource_roots = resource_roots
        # (step, params[, names a {{NAME}} chose]) -> operation, base URL
        self._found: dict[tuple[object, ...], tuple[Operation, str | None]] = {}
        # per set of parameters: its descriptions, their aliases, each description's base URL
        self._contexts: dict[int, tuple[Descriptions, dict[str, dict[str, str]], dict[str, str | None]]] = {}

    @property
    def client(self) -> HttpClient:
        return self._client

    def operation(
        self,
        step: RequestStep,
        params: EffectiveParameters,
        scenario_file: str,
        visible: Mapping[str, object] | None = None,
    ) -> tuple[Operation, str | None]:
        """The operation a call names and the base URL its requests go to; RequestFailed otherwise.
        A name written as `{{NAME}}` is what `visible` holds for it now."""
        ref = step.operation
        assert ref is not None  # only a call is looked up
        operation_id, using = ref.operation_id, ref.using
        key: tuple[object, ...] = (id(step), id(params))
        if ref.dynamic:
            operation_id, using = dynamic_names(step, visible if visible is not None else {})
            key += (operation_id, using)
        found = self._found.get(key)
        if found is not None:
            return found
        from scenario_core.openapi.documents import OpenApiError
        from scenario_core.parameters.descriptions import operation_base_url

        descriptions, known_aliases, base_urls = self.context(params, scenario_file)
        try:
            operation = descriptions.find(operation_id, using, known_aliases)
        except OpenApiError as error:
            written = f" ({step.text})" if ref.dynamic else ""
            raise RequestFailed(" ".join(str(error).split()) + written) from None
        name = operation.description_name
        if name not in base_urls:
            base_urls[name] = operation_base_url(operation, params, descriptions)
        found = self._found[key] = (operation, base_urls[name])
        return found

    def context(
        self, params: EffectiveParameters, scenario_file: str
    ) -> tuple[Descriptions, dict[str, dict[str, str]], dict[str, str | None]]:
        """The descriptions in force for a set of parameters, their aliases, the base URLs found
        so far; RequestFailed when a description cannot be read."""
        from scenario_core.openapi.documents import OpenApiError
        from scenario_core.parameters.descriptions import SHARED, aliases

        if self._descriptions is None:
            self._descriptions = SHARED
        context = self._contexts.get(id(params))
        if context is None:
            try:
                descriptions = self._descriptions.for_parameters(params, scenario_file)
            except OpenApiError as error:
                raise RequestFailed(" ".join(str(error).split())) from None
            context = self._contexts[id(params)] = (descriptions, aliases(params), {})
        return context

    def build(
        self, step: RequestStep, visible: Mapping[str, object], params: EffectiveParameters, scenario_file: str
    ) -> tuple[OutgoingRequest, str | None, str, Operation, Placements]:
        """An operation call: (the request, its body as text, its URL, the operation, where each
        child went). RequestFailed, one line, otherwise."""
        from scenario_core.openapi.documents import OpenApiError
        from scenario_core.openapi.request_builder import build_request

        operation, base_url = self.operation(step, params, scenario_file, visible)
        children = [
            (child_name(p.name, p.name_template, visible), render_json(p.value, visible)) for p in step.parameters
        ]
        children += [(f"query_{q.name}", render_text(q.value, visible)) for q in step.query]
        headers = [(h.name, render_text(h.value, visible)) for h in step.headers]
        if params.headers:  # a header_NAME child replaces a same-named one (build_request)
            headers = with_defaults(headers, params.headers)
        body = self.body(step, visible, scenario_file)
        form, shown = body.pop("form", None), body.pop("shown", None)
        if form is not None and not any(name.lower() == "content-type" for name, _ in headers):
            headers.append(("Content-Type", form))
        try:
            plan = build_request(
                operation, children, headers=headers, body=body.get("body"), structured_body=body.get("structured_body")
            )
        except OpenApiError as error:
            raise RequestFailed(f"{step.text}: {' '.join(str(error).split())}") from None
        url = join_url(base_url, plan.path)
        refuse_line_breaks(plan.headers)
        request = self._client.build(plan.method, url, list(plan.headers), [], plan.body)
        placements = tuple((p.child, p.location, p.sent) for p in plan.placements)
        return request, shown if shown is not None else plan.body_text, url, operation, placements

    def body(self, step: RequestStep, visible: Mapping[str, object], scenario_file: str) -> CallBody:
        """A call's body as build_request takes it: `structured_body` (name: value lines) or `body` (text)."""
        if step.body is not None:
            if step.body_structured:
                return {"structured_body": render_json(step.body, visible)}
            return {"body": render_json_text(step.body, visible) if step.body.refs else step.body.text}
        if step.body_raw is not None:
            return {"body": render_text(step.body_raw, visible)}
        if has_body_form(step):  # form: or multipart:, with its own Content-Type
            built = build_body(step, visible, scenario_file, self._resource_roots)
            assert built is not None
            return {"body": built.content, "form": built.content_type, "shown": built.text}
        if step.body_file is not None:
            name = render_text(step.body_file, visible)
            return {"body": read_body_file(name, scenario_file, visible, self._resource_roots)}
        return {}


def dynamic_names(step: RequestStep, visible: Mapping[str, object]) -> tuple[str, str | None]:
    """`call using {{spec}} {{op}}`: (operation, description name) as the variables give them
    now; RequestFailed naming the call when one renders empty or is not a name."""
    ref = step.operation
    assert ref is not None
    names: list[str | None] = []
    for template, written, what in (
        (ref.id_template, ref.operation_id, "operation"),
        (ref.using_template, ref.using, "description name"),
    ):
        if template is None:
            names.append(written)
            continue
        name = render_text(template, visible).strip()
        name = name[1:] if what == "operation" and name.startswith("^") else name
        if not name or any(c.isspace() for c in name) or "{{" in name:
            raise RequestFailed(f"{step.text}: {template.text} gives {what} '{name}', which is not a name")
        names.append(name)
    return names[0] or "", names[1]


def schema_message(
    operation: Operation | None,
    response: ResponseReceived,
    strict: bool,
    problems: list[str] | None = None,
    timeout: float | None = None,
) -> str | None:
    """Why the response does not match its operation's schema; None when it does. The
    offending values, one `$.path: why` each, are appended to `problems` when given. `timeout`:
    the request's (the scenario's `timeout`); the schema's regular expressions get what is left
    of it (at least MATCH_SECONDS)."""
    if operation is None:
        return (
            "then: schema needs an operation call before it (when: ^operationId): "
            "a request written as METHOD path has no schema to check against"
        )
    from scenario_core.openapi.schema_check import check_response

    parsed: _Parsed = {"parsed": response.json} if response.is_json else {}  # saves a second parse
    seconds: _Seconds = {"seconds": max(timeout - response.elapsed, MATCH_SECONDS)} if timeout else {}
    result = check_response(
        operation, response.status, response.header("Content-Type"), response.body, strict=strict, **parsed, **seconds
    )
    if problems is not None:
        problems.extend(str(p) for p in result.problems)
    return None if result.ok else result.message


def auto_assertions(operation: Operation, response: ResponseReceived, params: EffectiveParameters) -> str | None:
    """autoAssertions.enabled: what the description says of every response of an operation call."""
    from scenario_core.openapi.schema_check import check_content_type, check_status

    problems = []
    if params[AUTO_STATUS].value:
        problems.append(check_status(operation, response.status))
    if params[AUTO_CONTENT_TYPE].value:
        problems.append(
            check_content_type(
                operation, response.status, response.header("Content-Type"), has_body=bool(response.body)
            )
        )
    if params[AUTO_SCHEMA].value and not any(problems):
        problems.append(schema_message(operation, response, params[STRICT_SCHEMA].value, timeout=params.timeout))
    found = [p for p in problems if p]
    return "autoAssertions: " + "; ".join(found) if found else None
