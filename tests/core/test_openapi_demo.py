"""The bundled descriptions describe the demo server: every real response of every documented
operation satisfies its schema (strictly), built with the request builder from the descriptions."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest

from scenario_core.demo import server as demo_server
from scenario_core.openapi.loader import DescriptionCache, resolve_base_url
from scenario_core.openapi.operation_lookup import Descriptions
from scenario_core.openapi.request_builder import build_request
from scenario_core.openapi.schema_check import check_content_type, check_response, check_status

DEMO = Path(demo_server.__file__).parent


@pytest.fixture(scope="module")
def specs():
    cache = DescriptionCache()
    return Descriptions({"default": cache.load(DEMO / "petstore.yaml"), "auth": cache.load(DEMO / "auth.yaml")})


@pytest.fixture
def call(demo, specs):
    client = httpx.Client(timeout=10)

    def run(ref, children=(), using=None, status=None, **body):
        op = specs.find(ref, using=using)
        plan = build_request(op, list(children), **body)
        response = client.request(plan.method, plan.url(demo.url), headers=list(plan.headers), content=plan.body)
        if status is not None:
            assert response.status_code == status, response.text
        content_type = response.headers.get("content-type")
        result = check_response(op, response.status_code, content_type, response.content, strict=True)
        assert result.ok, result.message
        assert check_status(op, response.status_code) is None
        assert check_content_type(op, response.status_code, content_type, bool(response.content)) is None
        return response

    yield run
    client.close()


def test_base_urls_come_from_servers(specs):
    assert resolve_base_url(specs["default"]) == resolve_base_url(specs["auth"]) == "http://127.0.0.1:8000"


def test_every_served_route_is_an_operation_of_a_description(specs):
    shapes = {(op.method, re.sub(r"\{\w+\}", "200", op.path)) for op in specs.operations()}
    for pattern, methods in demo_server._ROUTES + demo_server._AUTH_ROUTES:
        for method in methods or ("GET", "POST", "PUT", "PATCH", "DELETE"):
            assert any(m == method and pattern.fullmatch(p) for m, p in shapes), (pattern.pattern, method)


def test_every_demo_response_matches_its_schema(call):
    call("^getHealth", status=200)
    token = call("^login", using="default", status=200, structured_body=[("username", "ann")]).json()["token"]
    call("^login", using="default", status=400, body="{}")
    auth = [("header_Authorization", f"Bearer {token}")]
    call("^createPet", status=401, structured_body=[("name", "x")])
    created = call("^createPet", auth, status=201, structured_body=[("name", "Rex"), ("tag", "dog")]).json()
    call("^createPet", auth, status=201, structured_body=[("name", "Tom"), ("tag", None), ("age", None)])
    call("^createPet", auth, status=422, json_body={"name": ""})
    call("^createPet", auth, status=400, body="{not json")
    call("^listPets", status=200)
    call("^listPets", [("limit", 1), ("tag", "dog")], status=200)
    call("^listPets", [("limit", "x")], status=400)
    call("^getPetById", [("id", created["id"])], status=200)
    call("^getPetById", [("id", 999)], status=404)
    call("^updatePet", [("id", created["id"]), *auth], status=200, structured_body=[("name", "Max")])
    call("^updatePet", [("id", created["id"]), *auth], status=422, json_body={"name": 3})
    call("^patchPet", [("id", created["id"]), *auth], status=200, json_body={"age": 4})
    call("^deletePet", [("id", created["id"]), *auth], status=204)
    call("^deletePet", [("id", created["id"]), *auth], status=404)
    call("^slow", [("ms", 0)], status=200)
    call("^trickle", [("ms", 0), ("chunks", 3)], status=200)
    call("^getText", status=200)
    call("^getStatus", [("code", 204)], status=204)
    call("^getStatus", [("code", 503)], status=503)
    for op_id in ("echoGet", "echoPost", "echoPut", "echoPatch", "echoDelete"):
        call(f"^{op_id}", [("header_X-Probe", "1")], status=200, json_body={"a": [1]})
    call("^echoGet", status=200)
    assert call("^incrementCounter", status=200).json() == {"value": 1}


def test_the_auth_description(call):
    session = call("^login", using="auth", status=200, structured_body=[]).json()  # demo/demo defaults
    assert session["user"] == "demo"
    me = call("^whoAmI", [("Authorization", f"Bearer {session['token']}")], status=200).json()
    assert me == {"user": "demo"}
    call("^whoAmI", [("Authorization", "Bearer nope")], status=401)
    call("^login", using="auth", status=400, json_body={"username": "x"})


def test_a_wrong_response_fails_with_the_path(specs, demo):
    op = specs.find("^getPetById")
    result = check_response(op, 200, "application/json", json.dumps({"id": 1, "name": "a", "tag": 5, "age": None}))
    assert result.message == (
        "response 200 (application/json) does not match the schema of getPetById "
        "(GET /pets/{id}): $.tag: expected string or null, got 5"
    )
