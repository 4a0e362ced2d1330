"""The bundled demo API: behaviour the tutorials and the HTTP client's tests rely on."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import yaml

from scenario_core.demo import server as demo_server
from scenario_core.demo.server import DemoServer


@pytest.fixture(scope="module")
def server():
    with DemoServer() as srv:
        yield srv


@pytest.fixture
def client(server):
    server.reset()
    with httpx.Client(base_url=server.url, timeout=10) as c:
        yield c


def login(client) -> dict:
    response = client.post("/login", json={"username": "demo", "password": "demo"})
    assert response.status_code == 200
    return {"Authorization": f"Bearer {response.json()['token']}"}


def test_url_and_port(server):
    assert server.port > 0
    assert server.url == f"http://127.0.0.1:{server.port}"


def test_health(client):
    response = client.get("/health")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.json() == {"status": "ok"}


def test_login_gives_distinct_tokens(client):
    tokens = {client.post("/login", json={"username": "demo", "password": "demo"}).json()["token"] for _ in range(5)}
    assert len(tokens) == 5
    assert client.post("/login", json={"username": "ann", "password": "x"}).json()["user"] == "ann"


@pytest.mark.parametrize(
    "body", [{}, {"username": "demo"}, {"username": "demo", "password": ""}, {"password": "demo"}, ["demo", "demo"]]
)
def test_login_rejects_missing_fields(client, body):
    response = client.post("/login", json=body)
    assert response.status_code == 400
    assert "error" in response.json()


def test_pet_lifecycle(client):
    auth = login(client)
    created = client.post("/pets", json={"name": "Rex", "tag": "dog", "age": 3}, headers=auth)
    assert created.status_code == 201
    assert created.json() == {"id": 1, "name": "Rex", "tag": "dog", "age": 3}
    assert created.headers["location"] == "/pets/1"
    second = client.post("/pets", json={"name": "Tom"}, headers=auth).json()
    assert second == {"id": 2, "name": "Tom", "tag": None, "age": None}

    assert client.get("/pets/1").json()["name"] == "Rex"
    assert [p["id"] for p in client.get("/pets").json()] == [1, 2]
    assert [p["id"] for p in client.get("/pets", params={"tag": "dog"}).json()] == [1]
    assert [p["id"] for p in client.get("/pets", params={"limit": 1}).json()] == [1]

    patched = client.patch("/pets/1", json={"age": 4}, headers=auth)
    assert patched.json() == {"id": 1, "name": "Rex", "tag": "dog", "age": 4}
    replaced = client.put("/pets/1", json={"name": "Max"}, headers=auth)
    assert replaced.json() == {"id": 1, "name": "Max", "tag": None, "age": None}

    deleted = client.delete("/pets/1", headers=auth)
    assert deleted.status_code == 204
    assert deleted.content == b""
    assert client.get("/pets/1").status_code == 404
    assert client.delete("/pets/1", headers=auth).status_code == 404


def test_modifying_pets_requires_a_known_token(client):
    bad = {"Authorization": "Bearer nope"}
    for headers in ({}, bad):
        assert client.post("/pets", json={"name": "Rex"}, headers=headers).status_code == 401
    auth = login(client)
    client.post("/pets", json={"name": "Rex"}, headers=auth)
    for method in ("PUT", "PATCH", "DELETE"):
        response = client.request(method, "/pets/1", json={"name": "X"})
        assert response.status_code == 401
        assert response.json()["error"]
    assert client.get("/pets/1").json()["name"] == "Rex"  # reading needs no token


def test_pet_body_errors(client):
    auth = login(client)
    invalid = client.post("/pets", content=b"{not json", headers=auth)
    assert invalid.status_code == 400
    assert invalid.json() == {"error": "invalid JSON body"}
    assert client.post("/pets", json={"tag": "dog"}, headers=auth).status_code == 422
    assert client.post("/pets", json={"name": "Rex", "age": "old"}, headers=auth).status_code == 422


def test_not_found(client):
    missing = client.get("/pets/7")
    assert missing.status_code == 404
    assert missing.json() == {"error": "pet 7 not found"}
    unknown = client.get("/nowhere")
    assert unknown.status_code == 404
    assert unknown.headers["content-type"] == "application/json"
    assert client.delete("/health").status_code == 405


def test_echo_reflects_the_request(client):
    response = client.post("/echo", params={"a": "1", "b": "two"}, json={"x": [1, 2]}, headers={"X-Custom": "yes"})
    echoed = response.json()
    assert echoed["method"] == "POST"
    assert echoed["path"] == "/echo"
    assert echoed["query"] == {"a": "1", "b": "two"}
    assert echoed["headers"]["x-custom"] == "yes"
    assert echoed["headers"]["content-type"] == "application/json"
    assert echoed["json"] == {"x": [1, 2]}
    assert json.loads(echoed["body"]) == {"x": [1, 2]}
    other = client.request("PURGE", "/echo", content=b"not json").json()
    assert (other["method"], other["json"], other["body"]) == ("PURGE", None, "not json")


def test_text_and_status(client):
    text = client.get("/text")
    assert text.text == "hello, not json"
    assert text.headers["content-type"].startswith("text/plain")
    assert client.get("/status/418").json() == {"status": 418}
    assert client.get("/status/503").status_code == 503
    no_content = client.get("/status/204")
    assert (no_content.status_code, no_content.content) == (204, b"")
    assert client.get("/status/100").status_code == 400


def test_counter_and_reset(server, client):
    assert [client.get("/counter").json()["value"] for _ in range(3)] == [1, 2, 3]
    auth = login(client)
    client.post("/pets", json={"name": "Rex"}, headers=auth)
    server.reset()
    assert client.get("/counter").json() == {"value": 1}
    assert client.get("/pets").json() == []
    assert client.post("/pets", json={"name": "Rex"}, headers=auth).status_code == 401
    assert client.post("/pets", json={"name": "Rex"}, headers=login(client)).json()["id"] == 1


def test_slow_delays(client):
    start = time.perf_counter()
    response = client.get("/slow", params={"ms": 200})
    assert time.perf_counter() - start >= 0.18
    assert response.json() == {"slept_ms": 200}


def test_trickle_beats_a_per_read_timeout(client):
    timeout = httpx.Timeout(5, read=1.0)  # every byte arrives well within the read timeout
    start = time.perf_counter()
    response = client.get("/trickle", params={"ms": 100, "chunks": 5}, timeout=timeout)
    assert time.perf_counter() - start >= 0.45
    assert response.text == "xxxxx"
    assert response.headers["content-length"] == "5"


def test_keep_alive_reuses_one_connection(server, client):
    for i in range(50):
        assert client.get("/counter").json() == {"value": i + 1}
    assert server.connections_accepted == 1


def test_every_response_is_delimited(server):
    """http.client would block reading to EOF on a response without a length; none may lack one."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    try:
        for method, path in [
            ("GET", "/health"),
            ("GET", "/nowhere"),
            ("POST", "/pets"),
            ("GET", "/status/204"),
            ("GET", "/status/500"),
            ("GET", "/text"),
            ("DELETE", "/health"),
            ("POST", "/login"),
            ("GET", "/pets/9"),
        ]:
            conn.request(method, path)
            response = conn.getresponse()
            response.read()
            assert not response.will_close, (method, path)
            if response.status != 204:
                assert response.getheader("Content-Length") is not None
            if path == "/health":
                sock = conn.sock
            assert conn.sock is sock
    finally:
        conn.close()


def test_client_disconnects_are_silent(server, client, capfd):
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(b"GET /trickle?ms=10&chunks=50 HTTP/1.1\r\nHost: x\r\n\r\n")
        sock.recv(100)
    time.sleep(0.1)  # let the handler hit the closed socket
    assert client.get("/health").status_code == 200
    assert capfd.readouterr().err == ""


def test_stop_is_quick_with_idle_keep_alive_connections():
    srv = DemoServer().start()
    with httpx.Client(base_url=srv.url) as c:
        c.get("/health")
        start = time.perf_counter()
        srv.stop()
        assert time.perf_counter() - start < 15  # an idle keep-alive connection waits for ever
    srv.stop()  # idempotent


def test_serve_forever_prints_its_address_and_exits_cleanly_on_sigint():
    # Loaded by file path, so the child doesn't depend on how this session imports scenario_core.
    # SIGINT may be ignored when inherited from a background job, so restore Python's handler.
    code = (
        "import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
        "runpy.run_path(sys.argv[1])['serve_forever']('127.0.0.1', 0, False)"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code, demo_server.__file__],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        line = proc.stdout.readline()
        match = re.fullmatch(r"demo API listening on (http://127\.0\.0\.1:\d+)\n", line)
        assert match, line
        assert httpx.get(match[1] + "/health").json() == {"status": "ok"}  # loop is running
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
    finally:
        proc.kill()
    assert proc.returncode == 0
    assert "Traceback" not in err


def test_openapi_description_matches_the_server():
    spec = yaml.safe_load(Path(demo_server.__file__).with_name("petstore.yaml").read_text())
    assert spec["openapi"].startswith("3.")
    assert spec["servers"] == [{"url": "http://127.0.0.1:{port}", "variables": {"port": {"default": "8000"}}}]
    documented = {re.sub(r"\{\w+\}", "200", path): item for path, item in spec["paths"].items()}
    for pattern, methods in demo_server._ROUTES:
        [path] = [p for p in documented if pattern.fullmatch(p)]
        if methods is not None:
            assert {m.upper() for m in documented.pop(path) if m != "parameters"} == set(methods)
        else:
            documented.pop(path)
    assert not documented, "documented but not served"


def test_root_lists_every_endpoint(client):
    response = client.get("/")
    assert response.status_code == 200
    body = response.json()
    listed = {(e["method"], e["path"]) for e in body["endpoints"]}
    assert ("GET", "/") in listed and ("POST", "/pets") in listed and ("ANY", "/echo") in listed
    for pattern, methods in demo_server._ROUTES + demo_server._AUTH_ROUTES:  # every route is listed
        for method in methods or ("ANY",):
            assert any(m == method and pattern.fullmatch(re.sub(r"\{\w+\}", "200", p)) for m, p in listed), (
                method,
                pattern.pattern,
            )
    assert all(e["what"] for e in body["endpoints"])
