"""Webhook servers: real loopback HTTP, requests sent with httpx, what was received looked up by name."""

from __future__ import annotations

import socket

import httpx
import pytest

from scenario_core.language.nodes.base import SourceLocation
from scenario_core.language.nodes.steps import WebhookStep
from scenario_core.run.webhooks import WebhookError, Webhooks

LOCATION = SourceLocation("f.scenario", 3, 5, 3, 20)


def webhook(name: str = "srv", hooks: tuple[str, ...] = ("h",), port: int = 0, scope: str = "scenario") -> WebhookStep:
    return WebhookStep(name, hooks, port, scope, LOCATION)


@pytest.fixture
def hooks():
    servers = Webhooks()
    yield servers
    servers.close()


def port_of(url: str) -> int:
    return httpx.URL(url).port


def test_start_serves_each_hook_and_records_what_it_receives(hooks):
    urls = hooks.start(webhook(hooks=("created", "deleted")), "scenario 1")
    port = port_of(urls[0])
    assert urls == [f"http://127.0.0.1:{port}/created", f"http://127.0.0.1:{port}/deleted"]
    assert hooks.lookup("srv.created") == (True, urls[0])
    assert hooks.lookup("srv.created.length") == (True, 0)
    with httpx.Client() as client:
        answer = client.post(urls[0], json={"pet": {"id": 7, "tags": ["a", "b"]}}, headers={"X-Signature": "sig"})
        assert (answer.status_code, answer.json()) == (200, {"received": True})
        assert (client.put(urls[0] + "?attempt=2", content=b"plain text")).status_code == 200
        assert (client.get(urls[1])).status_code == 200
    assert hooks.lookup("srv.created.length") == (True, 2)
    assert hooks.lookup("srv.deleted.length") == (True, 1)
    assert hooks.lookup("srv.created[0].body.pet.id") == (True, 7)
    assert hooks.lookup("srv.created[0].body.pet.tags[1]") == (True, "b")
    assert hooks.lookup("srv.created[0].body.pet.tags.0") == (True, "a")
    assert hooks.lookup("srv.created[0].body.pet.tags.length") == (True, 2)
    assert hooks.lookup("srv.created[0].headers.x-signature") == (True, "sig")
    assert hooks.lookup("srv.created[0].headers.X-SIGNATURE") == (True, "sig")
    assert hooks.lookup("srv.created[0].method") == (True, "POST")
    assert hooks.lookup("srv.created[1].method") == (True, "PUT")
    assert hooks.lookup("srv.created[1].body") == (True, "plain text")  # not JSON: its text
    assert hooks.lookup("srv.created[1].query.attempt") == (True, "2")
    assert hooks.lookup("srv.created[1].path") == (True, "/created")
    found, call = hooks.lookup("srv.deleted[0]")
    assert found and call["method"] == "GET" and call["body"] == "" and call["path"] == "/deleted"
    assert hooks.lookup("srv") == (True, f"http://127.0.0.1:{port}")


def test_references_that_do_not_resolve_say_why(hooks):
    hooks.start(webhook(hooks=("h",)), "s")
    assert hooks.lookup("other.h") == (False, None) and hooks.why_missing("other.h") is None  # not a webhook
    assert hooks.lookup("srv.x") == (False, None)
    assert hooks.why_missing("srv.x") == "webhook srv has no hook 'x' (hooks: h)"
    assert hooks.lookup("srv.h[0]") == (False, None)
    assert hooks.why_missing("srv.h[0]") == "srv.h has received 0 calls, so [0] does not exist yet"
    with httpx.Client() as client:
        client.post(hooks.lookup("srv.h")[1], json={"a": 1})
    assert hooks.why_missing("srv.h[0].body.b") == "'srv.h[0].body.b': the received body has no 'b'"
    assert hooks.why_missing("srv.h[0].headers.X-Missing") == "the call has no header X-Missing"
    assert hooks.why_missing("srv.h[0].colour") == "'srv.h[0].colour': a call has method, path, query, headers and body"
    assert hooks.why_missing("srv.h.count") == "'srv.h.count': after srv.h write .length or [N]"


def test_other_paths_are_404_and_other_methods_405_and_not_recorded(hooks):
    (url,) = hooks.start(webhook(), "s")
    base = url.rsplit("/", 1)[0]
    with httpx.Client() as client:
        missing = client.post(base + "/nope", json={})
        assert missing.status_code == 404 and missing.json()["hooks"] == ["/h"]
        assert (client.post(base + "/")).status_code == 404
        assert (client.delete(url)).status_code == 405
        assert (client.post(url + "/")).status_code == 200  # a trailing slash is the same hook
    assert hooks.lookup("srv.h.length") == (True, 1)


def test_starting_the_same_name_again_in_one_owner_does_nothing(hooks):
    first = hooks.start(webhook(), "s")
    assert hooks.start(webhook(hooks=("other",)), "s") == first
    assert hooks.names() == ["srv.h", "srv.h.length"]


def test_stop_frees_the_port(hooks):
    (url,) = hooks.start(webhook(), "s")
    port = port_of(url)
    with httpx.Client() as client:  # a kept-alive connection must not hold the stop
        client.post(url, json={})
        hooks.stop("s")
        with pytest.raises(httpx.ConnectError):
            client.post(url, json={})
    assert hooks.lookup("srv.h") == (False, None) and hooks.names() == []
    with socket.socket() as probe:  # as servers do: the closed connections may linger in TIME_WAIT
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind(("127.0.0.1", port))
        probe.listen()
    again = hooks.start(webhook(port=port), "s2")
    assert again == [url]


def test_a_busy_explicit_port_is_a_one_line_failure(hooks):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(WebhookError) as error:
            hooks.start(webhook(name="cb", port=port), "s")
    assert str(error.value) == f"webhook cb: port {port} on 127.0.0.1 is already in use"
    with pytest.raises(WebhookError, match="port 70000 is not a port number"):
        hooks.start(webhook(port=70000), "s")


def test_feature_scope_outlives_scenario_scope(hooks):
    (feature_url,) = hooks.start(webhook(name="fsrv", scope="feature"), "feature F")
    (scenario_url,) = hooks.start(webhook(name="ssrv"), "feature F / scenario 1")
    with httpx.Client() as client:
        client.post(feature_url, json={"n": 1})
        hooks.stop("feature F / scenario 1")
        assert hooks.lookup("ssrv.h") == (False, None)
        with pytest.raises(httpx.ConnectError):
            client.post(scenario_url, json={})
        # The next scenario of the feature still sees the feature's server and what it received.
        client.post(feature_url, json={"n": 2})
    assert hooks.lookup("fsrv.h.length") == (True, 2)
    assert hooks.lookup("fsrv.h[1].body.n") == (True, 2)
    hooks.stop("feature F")
    assert hooks.names() == []


def test_the_newest_server_of_a_name_answers_lookups(hooks):
    (outer,) = hooks.start(webhook(), "feature")
    (inner,) = hooks.start(webhook(), "scenario")
    assert outer != inner and hooks.lookup("srv.h") == (True, inner)
    hooks.stop("scenario")
    assert hooks.lookup("srv.h") == (True, outer)


def test_names_list_urls_counts_and_calls_for_the_variables_panel(hooks):
    (a, b) = hooks.start(webhook(hooks=("a", "b")), "s")
    with httpx.Client() as client:
        client.post(a, json={})
        client.post(a, json={})
    assert hooks.names() == ["srv.a", "srv.a.length", "srv.a[0]", "srv.a[1]", "srv.b", "srv.b.length"]
    assert all(hooks.lookup(name)[0] for name in hooks.names())
    assert [c.method for c in hooks.calls("srv", "a")] == ["POST", "POST"]


def exchange(port: int, request: bytes) -> bytes:
    """`request` sent as it is on a connection of its own; all the server answers until it closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as connection:
        connection.sendall(request)
        answers = b""
        while chunk := connection.recv(65536):
            answers += chunk
    return answers


def test_pipelined_requests_and_a_malformed_one(hooks):
    (url,) = hooks.start(webhook(), "s")
    port = port_of(url)
    body = b'{"x": 1}'
    request = b"POST /h HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
    answers = exchange(port, request + request.replace(b"HTTP/1.1\r\n", b"HTTP/1.1\r\nConnection: close\r\n", 1))
    assert answers.count(b"HTTP/1.1 200 OK") == 2
    assert hooks.lookup("srv.h.length") == (True, 2)
    answer = exchange(port, b"NOT HTTP AT ALL\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 400 Bad Request")
    assert hooks.lookup("srv.h.length") == (True, 2)


def test_close_stops_everything(hooks):
    urls = [(hooks.start(webhook(name=f"w{i}"), f"owner {i}"))[0] for i in range(3)]
    hooks.close()
    assert hooks.names() == []
    with httpx.Client() as client:
        for url in urls:
            with pytest.raises(httpx.ConnectError):
                client.get(url)


def test_view_adds_webhook_references_to_the_variables_a_variable_wins(hooks):
    from scenario_core.language.templates import render_text, text_template

    variables = {"token": "t", "srv.h.length": "shadowed?"}
    assert hooks.view(variables) is variables  # no webhook: nothing to add
    (url,) = hooks.start(webhook(), "s")
    view = hooks.view(variables)
    assert view["token"] == "t" and view["srv.h"] == url and "srv.h" in view and "srv.x" not in view
    assert view["srv.h.length"] == "shadowed?"
    with pytest.raises(KeyError):
        view["srv.h[0]"]
    assert list(view) == ["token", "srv.h.length", "srv.h"]
    location = SourceLocation("f", 1, 1, 1, 1)
    rendered = render_text(text_template("callback={{srv.h}}", lambda o, n: location), view)
    assert rendered == f"callback={url}"


def test_a_body_over_the_limit_is_refused_with_413(hooks, monkeypatch):
    from scenario_core.run import webhooks

    monkeypatch.setattr(webhooks, "MAX_BODY", 1000)
    (url,) = hooks.start(webhook(), "s")
    with httpx.Client() as client:
        assert (client.post(url, content=b"x" * 2000)).status_code == 413
        assert (client.post(url, content=b"x" * 500)).status_code == 200
    assert hooks.lookup("srv.h.length") == (True, 1)
