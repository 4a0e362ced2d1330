"""Any HAR, however broken or shaped, gives a result or one line naming the file: recordings of
random JSON in HAR's places, and the shop fixture cut short or with bytes changed."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scenario_core.editor.render import render_file
from scenario_core.importing.har import HarError, read_har
from scenario_core.importing.model import ImportedFile

_SCALE = int(os.environ.get("SCENARIO_FUZZ_SCALE", "1"))  # .ci/run's fuzz budget scales it
FIXTURE = (Path(__file__).parent.parent / "fixtures" / "har" / "shop-chrome.har").read_bytes()

_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**6), 10**12), st.floats(allow_nan=False), st.text(max_size=30)
)
_json = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
_urls = st.one_of(
    st.sampled_from(["https://api.test/pets", "http://api.test:8080/a/b?c=d", "data:x", "https://h/x.js", ""]),
    st.builds(lambda p: f"https://api.test/{p}", st.text(max_size=20)),
    _json,
)
_pairs = st.lists(st.fixed_dictionaries({"name": st.text(max_size=12), "value": _scalars}), max_size=4) | _json
_entries = st.fixed_dictionaries(
    {
        "request": st.fixed_dictionaries(
            {
                "method": st.sampled_from(["GET", "POST", "OPTIONS", "", "DELETE"]) | _json,
                "url": _urls,
                "headers": _pairs,
            },
            optional={
                "postData": st.fixed_dictionaries(
                    {
                        "mimeType": st.sampled_from(["application/json", "multipart/form-data", "text/plain", ""]),
                        "text": st.text(max_size=40) | _json.map(json.dumps),
                    },
                    optional={"params": _pairs},
                )
                | _json,
                "cookies": _pairs,
            },
        )
        | _json,
        "response": st.fixed_dictionaries(
            {
                "status": st.sampled_from([0, 200, 201, 302, 404]) | _json,
                "headers": _pairs,
                "content": st.fixed_dictionaries(
                    {"mimeType": st.sampled_from(["application/json", "text/html", ""]), "text": _json.map(json.dumps)},
                    optional={"encoding": st.sampled_from(["base64", "utf-8"])},
                )
                | _json,
            }
        )
        | _json,
    },
    optional={"_resourceType": st.sampled_from(["fetch", "xhr", "script", "document"]) | _json},
)


def _read(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "fuzz.har")
        Path(path).write_bytes(data)
        try:
            imported = read_har(path)
        except HarError as error:
            message = str(error)
            assert message.startswith(path) and "\n" not in message
            return
        assert isinstance(imported, ImportedFile)
        render_file(imported)  # what a reader keeps, the writer can write


@pytest.mark.fuzz
@settings(
    max_examples=100 * _SCALE,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(entries=st.lists(_entries, max_size=6))
def test_any_entries_give_a_result_or_one_line(entries):
    _read(json.dumps({"log": {"entries": entries}}).encode())


@pytest.mark.fuzz
@settings(max_examples=60 * _SCALE, derandomize=True, database=None, deadline=None)
@given(cut=st.integers(0, len(FIXTURE)), at=st.integers(0, len(FIXTURE) - 1), byte=st.integers(0, 255))
def test_the_fixture_cut_or_changed_gives_a_result_or_one_line(cut, at, byte):
    _read(FIXTURE[:cut])
    _read(FIXTURE[:at] + bytes([byte]) + FIXTURE[at + 1 :])
