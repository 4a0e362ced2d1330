"""What render.py reads of an import (scenario_core.importing.model), as Protocols: the model
lives in a layer above the editor, so it is never imported here; any object with these fields
renders (the model's frozen dataclasses among them). Read-only: each field is a property."""

from __future__ import annotations

from typing import Protocol, Sequence, Union


class JsonBodyShape(Protocol):
    @property
    def value(self) -> object: ...  # parsed JSON: json.dumps says whether it can be written


class TextBodyShape(Protocol):
    @property
    def text(self) -> str: ...


class FormBodyShape(Protocol):
    @property
    def fields(self) -> Sequence[tuple[str, str]]: ...


class FilePartShape(Protocol):
    @property
    def path(self) -> str: ...
    @property
    def media_type(self) -> str | None: ...


class MultipartBodyShape(Protocol):
    @property
    def parts(self) -> Sequence[tuple[str, Union[str, FilePartShape]]]: ...


class FileBodyShape(Protocol):
    @property
    def path(self) -> str: ...


class ExtractShape(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def where(self) -> str: ...


class RequestShape(Protocol):
    """A request and its checks; its body is one of the body shapes above, told by its class's
    name (JsonBody, TextBody, FormBody, MultipartBody, FileBody), or None."""

    @property
    def method(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def headers(self) -> Sequence[tuple[str, str]]: ...
    @property
    def body(self) -> object: ...
    @property
    def status(self) -> int | None: ...
    @property
    def schema(self) -> bool: ...
    @property
    def extracts(self) -> Sequence[ExtractShape]: ...
    @property
    def operation(self) -> str | None: ...
    @property
    def comment(self) -> str | None: ...


class ScenarioShape(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def requests(self) -> Sequence[RequestShape]: ...
    @property
    def tags(self) -> Sequence[str]: ...


class FeatureShape(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def scenarios(self) -> Sequence[ScenarioShape]: ...
    @property
    def share(self) -> bool: ...


class RunVariableShape(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def why(self) -> str: ...


class ImportedFileShape(Protocol):
    @property
    def items(self) -> Sequence[Union[ScenarioShape, FeatureShape]]: ...
    @property
    def base_url(self) -> str | None: ...
    @property
    def openapi(self) -> str | None: ...
    @property
    def run_variables(self) -> Sequence[RunVariableShape]: ...
    @property
    def source(self) -> str: ...
