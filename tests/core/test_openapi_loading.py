"""Loading OpenAPI descriptions: versions, $refs across files, located errors, hardening, caching."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from scenario_core.openapi.loader import (
    DescriptionCache,
    OpenApiError,
    base_url_from,
    load_description,
    parse_document,
    read_capped,
    resolve_base_url,
)

FIXTURES = Path(__file__).with_name("openapi_fixtures")


def load(name: str):
    return DescriptionCache().load(FIXTURES / name)


@pytest.mark.parametrize(
    "name, version, server",
    [
        ("library30.yaml", "3.0", "https://books.example:8443/api"),
        ("library31.yaml", "3.1", "http://localhost:9000/"),
        ("library20.json", "2.0", "https://books.example/v2"),
    ],
)
def test_each_version_loads_with_its_server(name, version, server):
    description = load(name)
    assert (description.version, description.server_url()) == (version, server)
    assert resolve_base_url(description) == server


def test_explicit_base_url_wins_over_servers():
    assert resolve_base_url(load("library30.yaml"), "http://other:1") == "http://other:1"
    assert resolve_base_url(None, None) is None


def test_relative_server_is_no_base_url(tmp_path):
    (tmp_path / "a.yaml").write_text(
        "openapi: 3.0.0\ninfo: {title: t, version: '1'}\nservers: [{url: /v1}]\npaths: {}\n"
    )
    description = DescriptionCache().load(tmp_path / "a.yaml")
    assert description.server_url() == "/v1"
    assert resolve_base_url(description) is None
    assert base_url_from(str(tmp_path / "a.yaml")) is None


def test_swagger_without_host_has_no_base_url(tmp_path):
    (tmp_path / "s.yaml").write_text("swagger: '2.0'\ninfo: {title: t, version: '1'}\npaths: {}\n")
    assert resolve_base_url(DescriptionCache().load(tmp_path / "s.yaml")) is None


def test_cross_file_refs_resolve_relative_to_their_own_file():
    description = load("library30.yaml")
    op = next(o for o in description.operations if o.id == "listBooks")
    problem = op.responses["default"].content["application/json"].schema
    assert problem.file == str(FIXTURES / "common.yaml")
    assert problem.pointer == "/components/responses/Problem/content/application~1json/schema"
    assert problem.resolved()["required"] == ["error"]  # common.yaml's own #/ ref
    assert str(FIXTURES / "common.yaml") in description.stamps


def test_yaml_keys_and_timestamps_stay_json(tmp_path):
    data = parse_document(b"responses:\n  200: {description: ok}\nwhen: 2024-01-02\nflag: {true: 1}\n", "x.yaml")
    assert data == {"responses": {"200": {"description": "ok"}}, "when": "2024-01-02", "flag": {"true": 1}}


def test_broken_yaml_is_a_located_one_line_error(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("openapi: 3.0.0\ninfo:\n  title: [unclosed\n  version: 1\npaths: {}\n")
    with pytest.raises(OpenApiError) as caught:
        DescriptionCache().load(path)
    error = caught.value
    assert (error.file, error.line) == (str(path), 4)
    assert str(error).startswith(f"{path}:4:")
    assert "OpenAPI description is not valid YAML" in str(error)
    assert "\n" not in str(error)


def test_broken_json_is_located(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"openapi": "3.0.0",\n "paths": {,}}')
    with pytest.raises(OpenApiError) as caught:
        DescriptionCache().load(path)
    assert (
        str(caught.value) == f"{path}:2:12: OpenAPI description is not valid JSON: Expecting property name "
        "enclosed in double quotes"
    )


def test_missing_file_keeps_the_resolution_message(tmp_path):
    with pytest.raises(OpenApiError, match=r"^OpenAPI description '.*missing.yaml' cannot be read: No such file"):
        DescriptionCache().load(tmp_path / "missing.yaml")


def test_not_a_description(tmp_path):
    (tmp_path / "a.yaml").write_text("just: data\n")
    with pytest.raises(OpenApiError, match="is not an OpenAPI description: no 'openapi' or 'swagger' field"):
        DescriptionCache().load(tmp_path / "a.yaml")
    (tmp_path / "b.yaml").write_text("openapi: 4.0.0\n")
    with pytest.raises(OpenApiError, match=r"unsupported OpenAPI version '4.0.0' \(supported: 3.0, 3.1, Swagger 2.0\)"):
        DescriptionCache().load(tmp_path / "b.yaml")


def test_bad_ref_is_located_at_the_ref(tmp_path):
    path = tmp_path / "a.yaml"
    path.write_text(
        "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n"
        "      responses:\n        '200': {$ref: '#/components/responses/Nope'}\n"
    )
    with pytest.raises(OpenApiError) as caught:
        DescriptionCache().load(path).operations
    assert str(caught.value) == f"{path}:7:16: $ref '#/components/responses/Nope' points to nothing"


def test_ref_to_a_missing_file_and_remote_refs(tmp_path):
    path = tmp_path / "a.yaml"
    path.write_text(
        "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n  /a: {$ref: 'other.yaml#/x'}\n"
        "  /b: {$ref: 'https://example.com/x.yaml#/x'}\n"
    )
    description = DescriptionCache().load(path)
    with pytest.raises(OpenApiError, match=r":4:7: \$ref 'other.yaml#/x': OpenAPI description '.*' cannot be read"):
        description.operations
    (tmp_path / "other.yaml").write_text("x: {get: {responses: {}}}\n")
    description = DescriptionCache().load(path)
    with pytest.raises(
        OpenApiError,
        match=r":5:7: \$ref 'https://example.com/x.yaml#/x' is remote; only local "
        r"files can be referenced \(no network\)",
    ):
        description.operations


def test_ref_loop_is_an_error(tmp_path):
    path = tmp_path / "a.yaml"
    path.write_text(
        "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n  /a: {$ref: '#/paths/~1b'}\n"
        "  /b: {$ref: '#/paths/~1a'}\n"
    )
    with pytest.raises(OpenApiError, match=r"refers to itself in a loop"):
        DescriptionCache().load(path).operations


BOMB = """openapi: 3.0.0
a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]
g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]
h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]
i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h]
"""


def test_alias_bomb_is_refused_quickly(tmp_path):
    path = tmp_path / "bomb.yaml"
    path.write_text(BOMB)
    with pytest.raises(OpenApiError) as caught:
        DescriptionCache().load(path)
    assert "refusing a possible alias bomb" in str(caught.value)
    assert "would expand it by more than 100,000 nodes" in str(caught.value)
    assert "\n" not in str(caught.value)


def test_small_aliases_are_fine_and_recursive_ones_refused(tmp_path):
    assert parse_document(b"a: &x {k: 1}\nb: *x\n", "x.yaml") == {"a": {"k": 1}, "b": {"k": 1}}
    assert parse_document(b"b: &b {x: 1, y: 2}\nm: {<<: *b, y: 3, '<<': 4}\n", "x.yaml")["m"] == {
        "x": 1,
        "y": 3,
        "<<": 4,
    }  # merge keys, as PyYAML's safe loader
    with pytest.raises(
        OpenApiError,
        match=r"x.yaml:1:4: OpenAPI description is not valid YAML: found undefined "
        r"alias 'nope'",
    ):
        parse_document(b"a: *nope\n", "x.yaml")
    with pytest.raises(
        OpenApiError,
        match=r"x.yaml:1:4: OpenAPI description is not valid YAML: unsupported YAML "
        r"tag !python/object",
    ):
        parse_document(b"a: !python/object 1\n", "x.yaml")
    with pytest.raises(OpenApiError, match=r"x.yaml:2:1: .*expected one YAML document, found more"):
        parse_document(b"a: 1\n---\nb: 2\n", "x.yaml")
    with pytest.raises(OpenApiError, match=r"x.yaml:1:\d+: OpenAPI description refused: a recursive YAML alias"):
        parse_document(b"a: &x [1, *x]\n", "x.yaml")


def test_size_cap_refuses_big_files_without_reading_them(tmp_path):
    path = tmp_path / "big.yaml"
    path.write_bytes(b"#" * 2000)
    with pytest.raises(OpenApiError, match=r"^OpenAPI description '.*big.yaml' is larger than 1000 bytes$"):
        read_capped(str(path), max_bytes=1000)
    assert len(read_capped(str(path), max_bytes=2000)) == 2000


def test_fifo_and_devices_are_refused_at_once(tmp_path):
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)  # opened, it would block until a writer came: refused by its kind instead
    with pytest.raises(OpenApiError, match=r"pipe.yaml' is a FIFO, not a regular file$"):
        DescriptionCache().load(fifo)
    if os.path.exists("/dev/zero"):
        with pytest.raises(OpenApiError, match=r"'/dev/zero' is a device, not a regular file$"):
            read_capped("/dev/zero")
    with pytest.raises(OpenApiError, match=r"' is a directory$"):
        read_capped(str(tmp_path))


def test_cache_reuses_until_a_file_changes(tmp_path):
    cache = DescriptionCache()
    main, other = tmp_path / "a.yaml", tmp_path / "o.yaml"
    other.write_text("R: {description: one}\n")
    main.write_text(
        "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n"
        "      responses: {'200': {$ref: 'o.yaml#/R'}}\n"
    )
    first = cache.load(main)
    assert first.operations[0].responses["200"].description == "one"
    assert cache.load(str(main)) is first
    assert cache.load(tmp_path / "." / "a.yaml") is first
    other.write_text("R: {description: two, x: 1}\n")  # size changes too, whatever the clock
    second = cache.load(main)
    assert second is not first and second.operations[0].responses["200"].description == "two"


def test_module_cache_and_base_url_from(tmp_path):
    path = tmp_path / "a.yaml"
    path.write_text(
        "openapi: 3.0.0\ninfo: {title: t, version: '1'}\nservers: [{url: 'http://h:{p}', "
        "variables: {p: {default: '81'}}}]\npaths: {}\n"
    )
    assert load_description(path) is load_description(str(path))
    assert base_url_from(str(path)) == "http://h:81"
    path.write_text("openapi: 3.0.0\ninfo: {title: t, version: '1'}\nservers: [{url: 'http://h:{q}'}]\npaths: {}\n")
    with pytest.raises(OpenApiError, match="server variable 'q' in '.*a.yaml' has no default"):
        base_url_from(str(path))


def test_a_big_description_is_parsed_once(tmp_path):
    # 1 MB here to keep the suite quick; the 5 MB figure is measured separately (see the report).
    lines = ["openapi: 3.0.0", "info: {title: big, version: '1'}", "paths:"]
    i = size = 0
    while size < 1024 * 1024:
        block = [
            f"  /things{i}/{{id}}:",
            "    get:",
            f"      operationId: getThing{i}",
            "      parameters: [{name: id, in: path, required: true, schema: {type: integer}}]",
            "      responses:",
            "        '200':",
            "          description: ok",
            "          content:",
            "            application/json:",
            "              schema: {type: object, properties: {id: {type: integer}, name: {type: string}}}",
        ]
        lines += block
        size += sum(len(x) + 1 for x in block)
        i += 1
    path = tmp_path / "big.yaml"
    path.write_text("\n".join(lines) + "\n")
    cache = DescriptionCache()
    description = cache.load(path)
    assert len(description.operations) == i
    assert cache.load(path) is description  # parsed once: the second load is the same object
