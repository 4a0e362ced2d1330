"""support.collector: the cycle collector off for a block, back on after only if it was on."""

from __future__ import annotations

import gc

import pytest

from scenario_core.support.collector import collector_paused


@pytest.fixture(autouse=True)
def collector_restored():
    was_on = gc.isenabled()
    yield
    (gc.enable if was_on else gc.disable)()


def test_the_collector_is_off_in_the_block_and_on_after_it_even_after_an_error():
    gc.enable()
    with collector_paused() as was_on:
        assert was_on and not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(ValueError), collector_paused():
        raise ValueError
    assert gc.isenabled()


def test_a_collector_turned_off_by_the_caller_stays_off():
    gc.disable()
    with collector_paused() as was_on:
        assert not was_on
    assert not gc.isenabled()
