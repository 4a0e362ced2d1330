"""The process's one policy for the cyclic garbage collector, `apply_collector_policy()`, applied
by the entry points only: the console script once a command's modules are imported
(tui/cli/main.py) and the TUI as it mounts (tui/app/shell.py). No other module touches `gc`.

- What exists at that point (modules, classes, functions, the parsed arguments: all live as long
  as the process) is frozen once, so no later collection walks it again.
- The youngest generation is collected every YOUNG_THRESHOLD allocations instead of Python's 700,
  from the moment the console script starts choosing its command (`collect_rarely()`): the
  command's imports alone cost fifteen collections at 700, two of them of the middle generation,
  ~3 ms of a 40 ms start-up, and free nothing that start-up would not keep anyway.
  A parse, an unpickled tree, a scope analysis and a run each make tens or hundreds of thousands
  of small objects that live on and form no cycles; at 700 the collector walks them again and
  again and finds nothing to free. Cycles are still collected, only in bigger batches: the
  older generations keep Python's own thresholds.
- The TUI starts with the collector paused (`paused=True`) and resumes it (`resume_collector()`)
  once its first screen is painted, as Textual pauses it while it scrolls: the trees of the
  files and the widgets it makes first (~600,000 objects for 10,000 scenarios) would otherwise be
  walked three times while the user waits for that screen, ~30 ms; they are walked once after.

Measured in docs/performance.md ("Start-up without tricks", "Round seven")."""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 100_000

_applied = False


def apply_collector_policy(*, paused: bool = False) -> None:
    """Freeze what exists now and raise the young generation's threshold, once per process (a
    process calling an entry point again, a test, would otherwise freeze its garbage for good).
    `paused`: no collection at all until `resume_collector()` (each time a TUI starts)."""
    global _applied
    if paused:
        gc.disable()
    if _applied:
        return
    _applied = True
    gc.freeze()
    collect_rarely()


def collect_rarely() -> None:
    """The young generation collected every YOUNG_THRESHOLD allocations from now on (the older
    ones keep Python's thresholds): the console script's first step, before its imports."""
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)


def resume_collector() -> None:
    """The end of a pause `apply_collector_policy(paused=True)` began (a TUI's first paint, or
    its exit before one); nothing when none is under way."""
    gc.enable()
