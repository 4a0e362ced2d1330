"""The process's one policy for the cyclic garbage collector, `apply_collector_policy()`, applied
by the entry points only: the console script once a command's modules are imported
(tui/cli/main.py) and the TUI as it mounts (tui/app/shell.py). No other module touches `gc`.

- What exists at that point (modules, classes, functions, the parsed arguments: all live as long
  as the process) is frozen once, so no later collection walks it again.
- The youngest generation is collected every YOUNG_THRESHOLD allocations instead of Python's 700.
  A parse, an unpickled tree, a scope analysis and a run each make tens or hundreds of thousands
  of small objects that live on and form no cycles; at 700 the collector walks them again and
  again and finds nothing to free. Cycles are still collected, only in bigger batches: the
  older generations keep Python's own thresholds.

Measured in docs/performance.md ("Start-up without tricks")."""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 100_000

_applied = False


def apply_collector_policy() -> None:
    """Freeze what exists now and raise the young generation's threshold, once per process (a
    process calling an entry point again, a test, would otherwise freeze its garbage for good)."""
    global _applied
    if _applied:
        return
    _applied = True
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)
