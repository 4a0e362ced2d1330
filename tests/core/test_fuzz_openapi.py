"""Fuzzing OpenAPI descriptions: random mutations of real descriptions — of their data
(a `$ref` to anywhere or to itself, evil or broken patterns, text where a schema goes, keywords
of the wrong shape, deleted keys) and of their text — go through loading, `check`'s description
checks and `then: schema` against random values. Every outcome is a result or the project's
one-line error; nothing else escapes, and each example ends in bounded time."""

from __future__ import annotations

import copy
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scenario_core.language.parser import load_file
from scenario_core.openapi.description_check import operation_problems
from scenario_core.openapi.documents import OpenApiError
from scenario_core.openapi.loader import DescriptionCache
from scenario_core.openapi.schema_check import check_response
from scenario_core.parameters.diagnostics import parameter_diagnostics

# .ci/run's fuzz budget runs the `fuzz` tests with SCENARIO_FUZZ_SCALE times their examples.
SCALE = int(os.environ.get("SCENARIO_FUZZ_SCALE", "1"))
pytestmark = pytest.mark.fuzz

ROOT = Path(__file__).resolve().parents[2]
SEEDS = [ROOT / "core/demo/petstore.yaml", ROOT / "core/demo/auth.yaml"] + sorted(
    (ROOT / "tests/core/openapi_fixtures").glob("library*")
)
DOCUMENTS = [yaml.safe_load(path.read_text(encoding="utf-8")) for path in SEEDS]
SECONDS = 0.05  # each check's pattern budget: an evil pattern costs at most this

EVIL_PATTERNS = ["^(a+)+$", "(a|a)*$", "[a-", "[^]", "(?<n>a)\\k<n>", "(?:(?:(?:a{1000}){1000}){1000})", "", "\\"]
SCHEMA_KEYS = [
    "$ref",
    "pattern",
    "patternProperties",
    "format",
    "required",
    "items",
    "properties",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "type",
    "enum",
    "additionalProperties",
    "nullable",
    "minimum",
    "exclusiveMinimum",
    "if",
    "then",
    "prefixItems",
    "dependencies",
]
LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.text(max_size=8),
    st.sampled_from(EVIL_PATTERNS),
    st.sampled_from(["object", "string", "array", "integer", "regex", "date-time", "file"]),
)


def _places(node: Any, pointer: str = "") -> list[str]:
    """JSON pointers of every value in a document."""
    found = [pointer]
    if isinstance(node, dict):
        for key, value in node.items():
            found += _places(value, f"{pointer}/{str(key).replace('~', '~0').replace('/', '~1')}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _places(value, f"{pointer}/{index}")
    return found


def _parent(document: Any, pointer: str) -> tuple[Any, Any]:
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]
    node = document
    for part in parts[:-1]:
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node, (int(parts[-1]) if isinstance(node, list) else parts[-1])


@st.composite
def mutated_descriptions(draw) -> tuple[str, str]:
    """(text, suffix): a seed description with a few mutations of its data, dumped as JSON or
    YAML, and sometimes a few of its characters mutated too."""
    document = copy.deepcopy(draw(st.sampled_from(DOCUMENTS)))
    places = _places(document)
    for _ in range(draw(st.integers(1, 6))):
        pointer = draw(st.sampled_from(places))
        if not pointer:
            continue
        kind = draw(st.sampled_from(["ref", "leaf", "delete", "keyword", "self"]))
        try:
            parent, key = _parent(document, pointer)
            if kind == "ref":
                target = draw(st.sampled_from(places + ["#/nowhere", "other.yaml#/x", "/dev/zero", "http://x/y"]))
                parent[key] = {"$ref": target if target.startswith(("#", "o", "/d", "h")) else "#" + target}
            elif kind == "self":
                parent[key] = {"$ref": "#" + pointer}
            elif kind == "leaf":
                parent[key] = draw(LEAVES)
            elif kind == "delete":
                del parent[key]
            elif isinstance(parent[key], dict):
                parent[key][draw(st.sampled_from(SCHEMA_KEYS))] = draw(
                    LEAVES
                    | st.just({"$ref": "#" + pointer})
                    | st.dictionaries(st.sampled_from(EVIL_PATTERNS), LEAVES, max_size=2)
                )
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation removed the place
    suffix = draw(st.sampled_from([".json", ".yaml"]))
    text = json.dumps(document) if suffix == ".json" else yaml.safe_dump(document, sort_keys=False)
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(text)))
        text = (
            text[:at] + draw(st.sampled_from(["", "{", "]", ": ", "\n  ", "&a ", "*a", "$ref", "'"])) + text[at + 1 :]
        )
    return text, suffix


VALUES = st.recursive(
    LEAVES | st.just("a" * 5000 + "!"),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)


def _one_line(error: BaseException) -> None:
    assert str(error) and "\n" not in str(error), repr(error)


@settings(
    max_examples=60 * SCALE,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(mutated_descriptions(), st.lists(VALUES, min_size=1, max_size=3), st.booleans())
def test_fuzz_mutated_descriptions_load_check_and_validate_without_a_traceback(case, values, strict):
    text, suffix = case
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"api{suffix}"
        path.write_text(text, encoding="utf-8")
        try:
            description = DescriptionCache().load(path)
            operations = description.operations
        except OpenApiError as error:
            _one_line(error)
            return
        checked = 0
        for operation in operations[:4]:
            for problem in operation_problems(operation):
                _one_line(problem)
            for response in list(operation.responses.values())[:2]:
                status = int(response.status) if response.status.isdigit() else 200
                for value in values:
                    result = check_response(
                        operation, status, "application/json", json.dumps(value), strict=strict, seconds=SECONDS
                    )
                    assert result.ok or (result.message and "\n" not in result.message), result
                    checked += 1
        named = [op for op in operations if op.id and op.id.isidentifier()]
        if named:  # what `check` runs for a file calling one of them
            scenario = Path(folder) / "t.scenario"
            scenario.write_text(
                f"parameters:\n  openapi: {path.name}\nscenario: s\n  when: ^{named[0].id}\n  then: schema\n",
                encoding="utf-8",
            )
            for diagnostic in parameter_diagnostics(load_file(str(scenario))):
                assert "\n" not in diagnostic.message and "internal error" not in diagnostic.message
    # Each pattern check is cut at SECONDS; 30 s more only tells a hang from a busy machine.
    assert time.monotonic() - started < 30 + checked * SECONDS * 2
