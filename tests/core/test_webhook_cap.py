"""Webhooks: a `webhook:` keeps at most MAX_CALLS_KEPT calls and MAX_BYTES_KEPT bytes of
them; past either its oldest calls are dropped and counted (`.dropped`), calls keep their
numbers (`.length` counts every call), and a reference to a dropped call fails saying so.
Real loopback HTTP: the webhook's own server, POSTs sent with httpx."""

from __future__ import annotations

import json

import httpx
import pytest

from scenario_core.language.nodes.base import SourceLocation
from scenario_core.language.nodes.steps import WebhookStep
from scenario_core.run import webhooks
from scenario_core.run.webhooks import Webhooks

LOCATION = SourceLocation("f.scenario", 3, 5, 3, 20)
MIB = 1024 * 1024


@pytest.fixture
def hooks():
    servers = Webhooks()
    yield servers
    servers.close()


def start(hooks: Webhooks, *names: str) -> list[str]:
    return hooks.start(WebhookStep("srv", names or ("h",), 0, "scenario", LOCATION), "scenario 1")


def test_webhook_cap_keeps_a_byte_budget(hooks):
    """Before: every call was kept (600 POSTs of 1 MiB: 691 MiB). 80 POSTs of 1 MiB of JSON."""
    (url,) = start(hooks)
    with httpx.Client() as client:
        for n in range(80):
            body = json.dumps({"n": n, "data": "x" * MIB}).encode()
            assert (client.post(url, content=body, headers={"Content-Type": "application/json"})).status_code == 200
    kept = hooks.calls("srv", "h")
    assert sum(len(call.body["data"]) for call in kept) <= webhooks.MAX_BYTES_KEPT
    assert hooks.lookup("srv.h.length") == (True, 80)
    found, dropped = hooks.lookup("srv.h.dropped")
    assert found and dropped == 80 - len(kept) and 0 < dropped < 80
    assert [call.body["n"] for call in kept] == list(range(dropped, 80))  # the newest, in order
    assert hooks.lookup(f"srv.h[{dropped}].body.n") == (True, dropped)  # numbers do not shift
    assert hooks.lookup("srv.h[79].body.n") == (True, 79)
    reason = hooks.why_missing("srv.h[0].body.n")
    assert reason is not None and reason.startswith("srv.h[0] was dropped: webhook srv keeps its newest 1000 calls")
    assert f"dropped its oldest {dropped} of 80 (kept: [{dropped}] to [79])" in reason


def test_webhook_cap_keeps_a_count(hooks):
    (url,) = start(hooks)
    total = webhooks.MAX_CALLS_KEPT + 50
    with httpx.Client() as client:
        for n in range(total):
            assert (client.post(url, json={"n": n})).status_code == 200
    assert len(hooks.calls("srv", "h")) == webhooks.MAX_CALLS_KEPT
    assert hooks.lookup("srv.h.length") == (True, total)
    assert hooks.lookup("srv.h.dropped") == (True, 50)
    assert hooks.lookup("srv.h[49]") == (False, None)
    assert hooks.lookup("srv.h[50].body.n") == (True, 50)
    names = hooks.names()
    assert "srv.h.dropped" in names and "srv.h[49]" not in names
    assert names[-1] == f"srv.h[{total - 1}]" and names[3] == "srv.h[50]"


def test_webhook_cap_drops_the_oldest_call_of_any_hook(hooks, monkeypatch):
    monkeypatch.setattr(webhooks, "MAX_CALLS_KEPT", 3)
    first, second = start(hooks, "a", "b")
    with httpx.Client() as client:
        for url, n in ((first, 0), (second, 1), (first, 2), (second, 3), (second, 4)):
            assert (client.post(url, json={"n": n})).status_code == 200
    # a: 0, 2; b: 1, 3, 4 arrived in the order 0 1 2 3 4: the last three are kept (2, 3, 4)
    assert [c.body["n"] for c in hooks.calls("srv", "a")] == [2]
    assert [c.body["n"] for c in hooks.calls("srv", "b")] == [3, 4]
    assert hooks.lookup("srv.a.dropped") == (True, 1) and hooks.lookup("srv.b.dropped") == (True, 1)
    assert hooks.lookup("srv.a.length") == (True, 2) and hooks.lookup("srv.b.length") == (True, 3)
    assert hooks.lookup("srv.a[1].body.n") == (True, 2)


def test_webhook_cap_nothing_dropped_says_zero(hooks):
    (url,) = start(hooks)
    with httpx.Client() as client:
        client.post(url, json={"n": 0})
    assert hooks.lookup("srv.h.dropped") == (True, 0)
    assert "srv.h.dropped" not in hooks.names()  # the variables panel lists it once there is something to say
