"""Start-up: a headless run imports only what its options use. Each test is a fresh
process, since what a module imports is only visible the first time."""

from __future__ import annotations

import os
import subprocess
import sys

ENV = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE", "NO_COLOR")}

MATCHING = """
scenario: names match
  when: GET /health
  then: status 200
  then: $.status matches "^o.$"
"""

PLAIN = """
scenario: plain
  when: GET /health
  then: status 200
"""


TYPO = """
scenario: a typo
  when: GTE /health
  then: status 200
"""

# What neither command needs for a plain file: the TUI, the async stack (a sequential run is
# driven without an event loop), OpenAPI and schema support, the other command's modules, custom
# steps' machinery (no custom step, no --plugins) and --tags' parser (no --tags).
NEITHER = (
    "textual",
    "rich",
    "asyncio",
    "httpx",
    "ssl",
    "email",
    "http.client",
    "yaml",
    "jsonschema",
    "scenario_core.openapi.loader",
    "scenario_core.custom_steps.registry",
    "scenario_core.custom_steps.plugins",
    "scenario_core.language.tag_expressions",
    "scenario_tui.cli.open_tui",
)


def _loaded_after(modules, *argv, env=ENV) -> str:
    code = (
        "import sys\n"
        "from scenario_tui.cli.main import main\n"
        "try:\n"
        f"    status = main({list(argv)!r})\n"
        "except SystemExit as stop:  # --help\n"
        "    status = stop.code\n"
        f"print('STATUS', status, 'LOADED', ','.join(m for m in {modules!r} if m in sys.modules) or '-')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    return result.stdout.splitlines()[-1] if result.stdout else result.stderr


def _loaded_after_run(path, url, modules, *options) -> str:
    return _loaded_after(modules, "run", str(path), "--base-url", url, *options)


def test_lark_is_imported_without_the_regex_package(demo, write_scenario):
    assert _loaded_after_run(write_scenario(PLAIN), demo.url, ("lark", "regex")) == "STATUS 0 LOADED lark"


def test_a_matches_assertion_still_gets_the_regex_package(demo, write_scenario):
    assert _loaded_after_run(write_scenario(MATCHING), demo.url, ("lark", "regex")) == "STATUS 0 LOADED lark,regex"


EXTRACTING = """
scenario: dotted paths
  when: GET /health
  then: status 200
  then: $.status exists
  extract: health from $.status
"""


def test_dotted_json_paths_need_no_jsonpath_ng_and_a_filter_gets_it(demo, write_scenario):
    assert _loaded_after_run(write_scenario(EXTRACTING), demo.url, ("jsonpath_ng",)) == "STATUS 0 LOADED -"
    filtered = EXTRACTING.replace("$.status exists", "$..status exists")
    assert _loaded_after_run(write_scenario(filtered), demo.url, ("jsonpath_ng",)) == "STATUS 0 LOADED jsonpath_ng"


def test_report_writers_and_statistics_are_imported_only_when_used(demo, write_scenario, tmp_path):
    modules = ("scenario_core.report.json_report", "scenario_core.report.junit", "statistics")
    path = write_scenario(PLAIN)
    assert _loaded_after_run(path, demo.url, modules) == "STATUS 0 LOADED -"
    report = str(tmp_path / "r.json")
    assert _loaded_after_run(path, demo.url, modules, "--report-json", report) == (
        "STATUS 0 LOADED scenario_core.report.json_report"
    )


def test_run_of_a_plain_file_imports_neither_the_check_nor_the_tui_nor_the_async_stack(demo, write_scenario):
    modules = (*NEITHER, "scenario_tui.cli.check", "scenario_core.analysis.scope_analysis")
    assert _loaded_after_run(write_scenario(PLAIN), demo.url, modules) == "STATUS 0 LOADED -"


def test_check_of_a_plain_file_imports_no_executor_no_events_no_sockets_and_no_difflib(write_scenario):
    modules = (*NEITHER, "scenario_tui.cli.run_command", "scenario_core.run.executor", "scenario_core.run.events")
    modules += ("socket", "difflib", "base64")
    assert _loaded_after(modules, "check", str(write_scenario(PLAIN))) == "STATUS 0 LOADED -"


def test_difflib_is_imported_when_a_typo_hint_is_made(write_scenario):
    assert _loaded_after(("difflib",), "check", str(write_scenario(TYPO))) == "STATUS 2 LOADED difflib"


def test_tags_and_plugins_load_their_modules_when_given(demo, write_scenario, tmp_path):
    plugin = tmp_path / "steps.py"
    plugin.write_text("from scenario_core.custom_steps import step\n", encoding="utf-8")
    modules = ("scenario_core.language.tag_expressions", "scenario_core.custom_steps.registry")
    path = write_scenario("@smoke\n" + PLAIN.lstrip("\n"))
    assert _loaded_after_run(path, demo.url, modules, "--tags", "smoke", "--plugins", str(plugin)) == (
        "STATUS 0 LOADED scenario_core.language.tag_expressions,scenario_core.custom_steps.registry"
    )


def test_help_is_wrapped_to_the_terminal_width_without_importing_shutil():
    env = {**ENV, "COLUMNS": "50"}
    code = (
        "import sys\n"
        "from scenario_tui.cli.main import main\n"
        "try:\n"
        "    main(['check', '--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('SHUTIL', 'shutil' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    *help_lines, last = result.stdout.splitlines()
    assert last == "SHUTIL False"
    assert "--strict" in result.stdout and max(len(line) for line in help_lines) <= 50


def test_start_up_objects_are_frozen_once_per_process_and_the_collector_stays_on(write_scenario):
    path = str(write_scenario(PLAIN))
    code = (
        "import gc\n"
        "from scenario_tui.cli.main import main\n"
        f"main(['check', {path!r}])\n"
        "first = gc.get_freeze_count()\n"
        f"main(['check', {path!r}])\n"
        "print(first > 10000, gc.get_freeze_count() == first, gc.isenabled())\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, timeout=60)
    assert result.stdout.splitlines()[-1] == "True True True", result.stderr


def test_a_parse_cache_hit_imports_neither_lark_nor_hashlib(write_scenario, tmp_path):
    """The cache's key is compared whole, not digested: hashlib (OpenSSL, ~2.5 ms and 3.6 MiB)
    is imported only where lark reads its grammar, on a miss."""
    env = {**ENV, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env.pop("SCENARIO_TUI_NO_CACHE", None)
    path = str(write_scenario(PLAIN))
    assert _loaded_after(("lark", "hashlib"), "check", path, env=env) == "STATUS 0 LOADED lark,hashlib"  # a miss
    assert _loaded_after(("lark", "hashlib"), "check", path, env=env) == "STATUS 0 LOADED -"  # a hit
