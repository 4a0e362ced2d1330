"""Any description the loader reads imports to a file the writer can write in both dialects, or
one line naming it: random operation ids, parameter names and examples, schemas and bodies."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scenario_core.editor.render import render_file
from scenario_core.importing.openapi_import import OpenApiImportError, read_openapi

_SCALE = int(os.environ.get("SCENARIO_FUZZ_SCALE", "1"))  # .ci/run's fuzz budget scales it
_text = st.text(max_size=12)
_scalar = st.one_of(st.none(), st.booleans(), st.integers(-5, 10**6), _text)
_schema = st.recursive(
    st.fixed_dictionaries(
        {"type": st.sampled_from(["string", "integer", "number", "boolean"])},
        optional={
            "example": _scalar,
            "format": st.sampled_from(["uuid", "date", "binary", "email"]),
            "minLength": st.integers(0, 5),
        },
    ),
    lambda inner: (
        st.fixed_dictionaries(
            {"type": st.just("object"), "properties": st.dictionaries(_text, inner, max_size=3)},
            optional={"required": st.lists(_text, max_size=2)},
        )
        | st.fixed_dictionaries({"type": st.just("array"), "items": inner})
    ),
    max_leaves=6,
)
_parameter = st.fixed_dictionaries(
    {
        "name": _text,
        "in": st.sampled_from(["query", "header", "cookie", "path"]),
        "required": st.booleans(),
        "schema": _schema,
    },
    optional={"example": _scalar},
)
_operation = st.fixed_dictionaries(
    {
        "responses": st.dictionaries(
            st.sampled_from(["200", "201", "204", "default", "404"]),
            st.just(
                {
                    "description": "r",
                    "content": {
                        "application/json": {"schema": {"type": "object", "properties": {"id": {"type": "string"}}}}
                    },
                }
            ),
            min_size=1,
        )
    },
    optional={
        "operationId": _text,
        "parameters": st.lists(_parameter, max_size=3),
        "requestBody": st.fixed_dictionaries(
            {
                "content": st.dictionaries(
                    st.sampled_from(
                        ["application/json", "application/x-www-form-urlencoded", "multipart/form-data", "text/plain"]
                    ),
                    st.fixed_dictionaries({"schema": _schema}),
                    min_size=1,
                    max_size=1,
                )
            }
        ),
        "security": st.sampled_from([[], [{"bearer": []}], [{"key": []}]]),
    },
)
_paths = st.dictionaries(
    st.sampled_from(
        ["/things", "/things/{id}", "/things/{thingId}/parts", "/things/{thingId}/parts/{id}", "/{weird name}"]
    ),
    st.dictionaries(st.sampled_from(["get", "post", "put", "delete"]), _operation, min_size=1),
    min_size=1,
)


@pytest.mark.fuzz
@settings(
    max_examples=80 * _SCALE,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(paths=_paths)
def test_any_description_imports_to_a_writable_file_or_one_line(paths):
    document = {
        "openapi": "3.0.3",
        "info": {"title": "f", "version": "1"},
        "paths": paths,
        "components": {
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer"},
                "key": {"type": "apiKey", "in": "query", "name": "api_key"},
            }
        },
    }
    with tempfile.TemporaryDirectory() as folder:
        spec = str(Path(folder) / "spec.json")
        Path(spec).write_text(json.dumps(document))
        try:
            imported = read_openapi(spec, str(Path(folder) / "out.scenario"))
        except OpenApiImportError as error:
            assert str(error).startswith(spec) and "\n" not in str(error)
            return
        for dialect in ("ours", "berrycrush"):
            render_file(imported, dialect)
