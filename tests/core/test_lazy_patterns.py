"""support.lazy_patterns: a module's regular expression is compiled on its first use (issue 22),
and then behaves as the compiled pattern."""

from __future__ import annotations

import re
import subprocess
import sys

from scenario_core.support.lazy_patterns import lazy_compile
from scenario_core.support.printable import visible


def test_a_lazy_pattern_is_compiled_on_first_use_only():
    pattern = lazy_compile(r"(?P<word>[a-z]+)(\d)?", re.IGNORECASE)
    assert "search" not in vars(pattern)  # nothing compiled yet
    assert pattern.pattern == r"(?P<word>[a-z]+)(\d)?"
    assert pattern.fullmatch("Abc1").group("word") == "Abc"
    assert "search" in vars(pattern)  # from now on the compiled pattern's own methods
    assert pattern.sub("x", "ab1 12") == "x 12"
    assert pattern.flags == re.compile(r"", re.IGNORECASE).flags
    assert (pattern.groups, dict(pattern.groupindex)) == (2, {"word": 1})
    assert [m.group() for m in pattern.finditer("a b")] == ["a", "b"]


def test_importing_the_language_and_masking_compiles_no_pattern_of_ours():
    code = (
        "import re, sys\n"
        "compiled = []\n"
        "original = re.compile\n"
        "def spy(pattern, flags=0):\n"
        "    caller = sys._getframe(1).f_globals.get('__name__', '')\n"
        "    if caller.startswith('scenario_'): compiled.append(caller)\n"
        "    return original(pattern, flags)\n"
        "re.compile = spy\n"
        "import scenario_core.support.printable, scenario_core.support.secrets, scenario_core.report.masking\n"
        "import scenario_core.language.step_syntax, scenario_core.language.parameter_keys\n"
        "print(sorted(set(compiled)))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "[]", result.stderr


def test_visible_escapes_every_unprintable_control_and_passes_printable_text_unchanged():
    for text in ("plain ascii", "✓ pets — café", "名前", ""):
        assert visible(text) is text
    assert visible("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert visible("x\u202ey\u2028z\x85") == "x\\u202ey\\u2028z\\x85"
    assert visible("no\u00a0break") == "no\u00a0break"  # unprintable to str.isprintable, yet safe
