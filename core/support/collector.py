"""The cyclic garbage collector held off while a block makes many objects that all live on and
form no cycles (a syntax tree parsed, unpickled or pickled, a scope analysis, start-up's
imports): its passes would only walk them again and again, finding nothing to free.

    with collector_paused():
        tree = parse(text)
"""

from __future__ import annotations

import gc


class collector_paused:  # noqa: N801 - used as a function: `with collector_paused():`
    """The collector off for the block, and back on after it (only if it was on: a caller that
    turned it off itself keeps it off). `as` gives whether it was on."""

    __slots__ = ("was_on",)

    def __enter__(self) -> bool:
        self.was_on = gc.isenabled()
        gc.disable()
        return self.was_on

    def __exit__(self, *exception: object) -> None:
        if self.was_on:
            gc.enable()
