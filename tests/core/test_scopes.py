"""The scope layers of a running scenario (docs/spec/scopes.md): lookup innermost first, write-through
into the store, overwrite events, and snapshots that never change after they are taken."""

from __future__ import annotations

from scenario_core.language.nodes.base import SourceLocation
from scenario_core.parameters.sharing import StoreRef
from scenario_core.run.events import Origin, ScopeSnapshot, VariableExtracted, VariableOverwritten
from scenario_core.run.scopes import Scope, Store

LOCATION = SourceLocation("t.scenario", 7, 3, 7, 20)
ORIGIN = Origin(LOCATION, "make", None, "scenario")
STEP = object()  # the events only carry the step along


def test_lookup_is_innermost_first():
    store = Store(StoreRef(None))
    store.values = {"a": "store", "b": "store"}
    scope = Scope(store, {"a": "run", "b": "run", "c": "run"})
    scope.extract(STEP, "a", "scenario", ORIGIN, write_store=False)
    assert scope.visible() == {"a": "scenario", "b": "store", "c": "run"}
    snapshot = scope.snapshot()
    assert [snapshot.layer_of(n) for n in "abcd"] == ["scenario", "file store", "run", None]
    assert snapshot.lookup("b") == (True, "store") and snapshot.lookup("d") == (False, None)
    assert snapshot.names() == ["a", "b", "c"]


def test_an_extract_writes_through_into_the_store_at_once():
    store = Store(StoreRef("Pets", 4))
    scope = Scope(store, {})
    events = scope.extract(STEP, "petId", 7, ORIGIN, write_store=True)
    assert events == [VariableExtracted(step=STEP, name="petId", value=7, layers=("scenario", "feature 'Pets'"))]
    assert store.values == {"petId": 7} and store.origins == {"petId": ORIGIN}
    # A later scenario sharing the store sees it; it carries the name in.
    later = Scope(store, {})
    assert later.carried() == ("petId",) and later.visible() == {"petId": 7}
    assert later.snapshot().origin("petId") == ORIGIN


def test_background_extracts_stay_in_the_scenario_layer():
    store = Store(StoreRef(None))
    scope = Scope(store, {})
    events = scope.extract(STEP, "token", "t", ORIGIN, write_store=False)
    assert events[0].layers == ("scenario",)
    assert store.values == {}


def test_re_extracting_reports_the_old_and_new_value_for_each_layer():
    store = Store(StoreRef(None))
    store.values = {"n": 1}
    scope = Scope(store, {})
    first = scope.extract(STEP, "n", 2, ORIGIN, write_store=True)
    assert first[0] == VariableOverwritten(step=STEP, name="n", old=1, new=2, layer="file store")
    second = scope.extract(STEP, "n", 3, ORIGIN, write_store=True)
    assert second[:2] == [
        VariableOverwritten(step=STEP, name="n", old=2, new=3, layer="scenario"),
        VariableOverwritten(step=STEP, name="n", old=2, new=3, layer="file store"),
    ]


def test_snapshots_are_not_changed_by_later_writes():
    store = Store(StoreRef(None))
    scope = Scope(store, {"r": 1})
    before = scope.snapshot()
    assert scope.snapshot() is before  # cached until the next write
    scope.extract(STEP, "n", 1, ORIGIN, write_store=True)
    after = scope.snapshot()
    assert before.visible() == {"r": 1} and before.store_values == {}
    assert after.visible() == {"r": 1, "n": 1}
    assert after.scenario_origins == {"n": ORIGIN}


def test_an_isolated_scope_has_no_store():
    scope = Scope(None, {})
    events = scope.extract(STEP, "n", 1, ORIGIN, write_store=True)
    assert events[-1].layers == ("scenario",)
    snapshot = scope.snapshot()
    assert snapshot.store is None and snapshot.store_values == {} and scope.carried() == ()


def test_origin_describes_the_writer():
    assert ORIGIN.describe() == "scenario 'make' (line 7)"
    background = Origin(LOCATION, "make", "Pets", "background:feature")
    assert background.describe() == "feature background of scenario 'make' (line 7)"
    assert ScopeSnapshot({}, None, {}, {}).origin("x") is None
