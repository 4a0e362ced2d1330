"""support.collector: the one collector policy, applied once per process by an entry point."""

from __future__ import annotations

import subprocess
import sys

CODE = """
import gc
from scenario_core.support.collector import YOUNG_THRESHOLD, apply_collector_policy
before = gc.get_threshold()
apply_collector_policy()
frozen, threshold = gc.get_freeze_count(), gc.get_threshold()
garbage = [[] for _ in range(1000)]
apply_collector_policy()
print(frozen > 1000, gc.get_freeze_count() == frozen, threshold == (YOUNG_THRESHOLD, *before[1:]), gc.isenabled())
"""


def test_the_policy_freezes_start_up_once_raises_the_young_threshold_and_keeps_the_collector_on():
    result = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=60)
    assert result.stdout.split() == ["True", "True", "True", "True"], result.stderr


def test_cycles_are_still_collected_under_the_policy():
    code = CODE + (
        "import weakref\n"
        "class Node: pass\n"
        "probe = Node(); probe.self = probe; alive = weakref.ref(probe); del probe\n"
        "junk = [[] for _ in range(5 * YOUNG_THRESHOLD)]\n"
        "print('GONE', alive() is None)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.stdout.splitlines()[-1] == "GONE True", result.stderr


def test_a_tui_start_pauses_the_collector_until_resumed_each_time_and_freezes_once():
    """`paused=True` (each TUI's mount) holds every collection off until `resume_collector()` (its
    first paint); the freeze and the threshold still happen once per process."""
    code = (
        "import gc\n"
        "from scenario_core.support.collector import apply_collector_policy, resume_collector\n"
        "apply_collector_policy(paused=True)\n"
        "first = (gc.isenabled(), gc.get_freeze_count())\n"
        "resume_collector()\n"
        "on = gc.isenabled()\n"
        "garbage = [[] for _ in range(1000)]\n"
        "apply_collector_policy(paused=True)\n"
        "again = (gc.isenabled(), gc.get_freeze_count() == first[1])\n"
        "resume_collector()\n"
        "print(first[0], first[1] > 1000, on, *again, gc.isenabled())\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.stdout.split() == ["False", "True", "True", "False", "True", "True"], result.stderr


def test_the_console_script_imports_its_command_with_the_young_threshold_raised(tmp_path):
    """`collect_rarely()` first: the command's imports make no young collection (Python's 700
    made fifteen of them, ~3 ms of start-up), and start-up is still frozen at the end."""
    scenario = tmp_path / "tiny.scenario"
    scenario.write_text("scenario: tiny\n  when: GET /health\n", encoding="utf-8")
    code = (
        "import gc, sys\n"
        "from scenario_tui.cli.main import main\n"
        "young = []\n"
        "gc.callbacks.append(lambda phase, info: phase == 'start' and young.append(info['generation']))\n"
        f"status = main(['check', {str(scenario)!r}])\n"
        "print(status, young.count(0), gc.get_freeze_count() > 1000, file=sys.stderr)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.stderr.split()[-3:] == ["0", "0", "True"], result.stderr
