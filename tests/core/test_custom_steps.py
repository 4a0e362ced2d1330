"""Custom steps and assertions in Python: patterns, running, discovery, check-time diagnostics."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest

from scenario_core.custom_steps import plugins as custom_steps
from scenario_core.custom_steps.context import Response, StepContext, StepFailed
from scenario_core.custom_steps.diagnostics import custom_diagnostics, uses_custom_steps
from scenario_core.custom_steps.plugins import PluginError, load_registry
from scenario_core.custom_steps.registry import Registry
from scenario_core.language.nodes.assertions import CustomAssertion, NotAssertion, StatusAssertion
from scenario_core.language.nodes.base import SourceLocation, TextTemplate
from scenario_core.language.nodes.blocks import (
    BackgroundNode,
    FeatureNode,
    FragmentNode,
    ScenarioFileNode,
    ScenarioNode,
)
from scenario_core.language.nodes.steps import (
    AssertStep,
    ConditionalBranch,
    ConditionalStep,
    DescribedStep,
    RequestStep,
)
from scenario_core.language.parser import load_file
from scenario_core.language.templates import text_template

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_PLUGIN = ROOT / "examples" / "plugins" / "pet_steps.py"


def loc(line: int = 1, column: int = 1) -> SourceLocation:
    return SourceLocation("f.scenario", line, column, line, column + 1)


def template(text: str, line: int = 1) -> TextTemplate:
    return text_template(
        text,
        lambda offset, length: SourceLocation("f.scenario", line, 7 + offset, line, 7 + offset + length),
        loc(line, 7),
    )


def run(registry: Registry, text: str, ctx: StepContext | None = None) -> str | None:
    return registry.run_step(text, ctx or StepContext())


# ---------------------------------------------------------------- patterns and values


def test_each_placeholder_passes_its_value_converted():
    seen = []
    registry = Registry()
    registry.step("s {string} i {int} f {float} w {word} a {any}.")(lambda ctx, *values: seen.append(values))
    assert run(registry, 's "two words" i -12 f 3.5 w snake_1 a the rest, anything.') is None
    assert run(registry, "s 'single' i 7 f .25 w x a .") is None
    assert run(registry, 's "" i 0 f -2 w y a {{not a ref}}.') is None
    assert seen == [
        ("two words", -12, 3.5, "snake_1", "the rest, anything"),
        ("single", 7, 0.25, "x", ""),
        ("", 0, -2.0, "y", "{{not a ref}}"),
    ]
    assert [type(v) for v in seen[0]] == [str, int, float, str, str]


@pytest.mark.parametrize(
    "text",
    [
        "the pet Rex is sold",  # {string} needs quotes
        'the pet "Rex" is sold out',  # {word} is one word
        'the pet "Rex" is sold now',  # the whole description must match
        'then the pet "Rex" is sold',
        'the pet "Rex" is  sold',  # literal text is exact
        "the pet \"Rex' is sold",  # mismatched quotes
    ],
)
def test_patterns_match_the_whole_text_exactly(text):
    registry = Registry()
    registry.step("the pet {string} is {word}")(lambda ctx, name, status: None)
    assert registry.match_step(text) is None
    assert registry.match_step('the pet "Rex" is sold') is not None
    assert registry.match_step('  the pet "Rex" is sold  ') is not None  # outer blanks do not count


def test_literal_text_is_not_a_regular_expression():
    registry = Registry()
    registry.step("the price is $5 (about.) [x]*")(lambda ctx: None)
    assert registry.match_step("the price is $5 (about.) [x]*") is not None
    assert registry.match_step("the price is $5 (aboutX) [x]*") is None
    assert registry.match_step("the price is 5 about. xx") is None


def test_int_and_float_reject_other_text():
    registry = Registry()
    registry.step("n {int}")(lambda ctx, n: None)
    registry.step("x {float}")(lambda ctx, x: None)
    assert registry.match_step("n 1.5") is None and registry.match_step("n one") is None
    assert registry.match_step("x 1.") is None and registry.match_step("x 1e5") is None
    assert registry.match_step("n -3") is not None and registry.match_step("x 10") is not None


def test_unknown_placeholder_and_empty_pattern_fail_at_the_decorator():
    with pytest.raises(ValueError, match=r"unknown placeholder \{number\}"):
        custom_steps.step("wait {number} s")
    with pytest.raises(ValueError, match="needs a pattern"):
        custom_steps.assertion("  ")
    registry = Registry()
    registry.step("braces {} and {1} stay literal")(lambda ctx: None)
    assert registry.match_step("braces {} and {1} stay literal") is not None


# ---------------------------------------------------------------- running: pass and fail


def test_assertion_error_fails_with_its_message_in_one_line():
    registry = Registry()

    # `raise`, not `assert`: pytest rewrites this module's assert statements (not a plugin's).
    @registry.step("check {int}")
    def check(ctx, n):
        if n >= 3:
            raise AssertionError(f"too many:\n  {n}")

    @registry.step("bare")
    def bare(ctx):
        raise AssertionError

    assert run(registry, "check 2") is None
    assert run(registry, "check 5") == "too many: 5"
    message = run(registry, "bare")
    assert message.startswith('step "bare" failed (test_custom_steps.py:') and "\n" not in message


def test_step_failed_and_other_exceptions_are_one_line_never_a_traceback():
    registry = Registry()

    @registry.step("refuse")
    def refuse(ctx):
        raise StepFailed("no pets today")

    @registry.step("crash")
    def crash(ctx):
        return {}["missing"]

    @registry.step("explode")
    def explode(ctx):
        raise RuntimeError("line one\nline two\n\tline three")

    @registry.step("fail via ctx")
    def via_ctx(ctx):
        ctx.fail("said so")

    assert run(registry, "refuse") == "no pets today"
    assert run(registry, "crash") == "KeyError: 'missing'"
    assert run(registry, "explode") == "RuntimeError: line one line two line three"
    assert run(registry, "fail via ctx") == "said so"


def test_async_steps_are_awaited_and_fail_the_same_way():
    registry = Registry()
    calls = []

    @registry.step("async ok {word}")
    def ok(ctx, word):
        calls.append(word)

    @registry.step("async broken")
    def broken(ctx):
        raise AssertionError("async says no")

    @registry.step("async crash")
    def crash(ctx):
        raise ZeroDivisionError("division by zero")

    assert run(registry, "async ok hi") is None and calls == ["hi"]
    assert run(registry, "async broken") == "async says no"
    assert run(registry, "async crash") == "ZeroDivisionError: division by zero"


def test_assertions_pass_on_true_or_none_fail_on_false_or_raise():
    registry = Registry()
    registry.assertion("yes")(lambda ctx: True)
    registry.assertion("nothing")(lambda ctx: None)
    registry.assertion("no")(lambda ctx: False)
    registry.assertion("raises")(lambda ctx: 1 / 0)

    @registry.assertion("value is {int}")
    def value(ctx, n):
        return n == 3

    registry.assertion("odd")(lambda ctx: "yes")
    ctx = StepContext()
    assert registry.run_assertion("yes", ctx) is None
    assert registry.run_assertion("nothing", ctx) is None
    assert (registry.run_assertion("no", ctx)).startswith('assertion "no" is false (')
    assert registry.run_assertion("raises", ctx) == "ZeroDivisionError: division by zero"
    assert registry.run_assertion("value is 3", ctx) is None
    assert (registry.run_assertion("value is 4", ctx)).startswith('assertion "value is 4" is false')
    assert "an assertion returns True, False or None" in registry.run_assertion("odd", ctx)
    assert registry.match_step("yes") is None  # steps and assertions are separate


def test_no_match_says_how_to_add_one_and_the_closest_pattern():
    registry = Registry()
    registry.step("the pet {string} is {word}")(lambda ctx, a, b: None)
    message = run(registry, 'the pet "Rex" is sold out')
    assert message.startswith('no step matches "the pet "Rex" is sold out"; custom steps are Python functions')
    assert "see docs/custom-steps.md" in message
    assert 'closest: "the pet {string} is {word}" (test_custom_steps.py:' in message
    assert (registry.run_assertion("anything", StepContext())).startswith('no assertion matches "anything"')


def test_two_patterns_matching_one_text_is_ambiguous():
    registry = Registry()
    registry.step("the pet {string} is {word}")(lambda ctx, a, b: None)
    registry.step("the pet {any}")(lambda ctx, a: None)
    match = registry.match_step('the pet "Rex" is sold')
    assert match.ambiguous and match.definition.pattern == "the pet {string} is {word}"
    message = match.run(StepContext())
    assert message.startswith('ambiguous custom step "the pet "Rex" is sold": "the pet {string} is {word}" (')
    assert '"the pet {any}"' in message and message.endswith("both match")
    assert not registry.match_step("the pet is here").ambiguous  # only {any} matches


# ---------------------------------------------------------------- what ctx offers


def test_ctx_variables_are_read_only_and_set_writes_through_the_callback():
    written = []
    registry = Registry()

    @registry.step("remember {word} as {word}")
    def remember(ctx, value, name):
        with pytest.raises(TypeError):
            ctx.variables["x"] = 1  # type: ignore[index]
        ctx.set(name, value)
        assert ctx.variables[name] == value  # visible at once to the step itself
        assert ctx.variables["token"] == "t0"

    ctx = StepContext({"token": "t0"}, lambda name, value: written.append((name, value)))
    assert run(registry, "remember Rex as petName", ctx) is None
    assert written == [("petName", "Rex")]
    assert ctx.text == "remember Rex as petName"

    registry.step("bad name")(lambda ctx: ctx.set("1x", 2))
    assert (run(registry, "bad name", ctx)).startswith("ctx.set: '1x' is not a variable name")
    assert written == [("petName", "Rex")]


def test_ctx_response_and_parameters():
    received = SimpleNamespace(
        status=201,
        headers=(("Content-Type", "application/json"), ("Set-Cookie", "a=1"), ("set-cookie", "b=2")),
        body='{"id": 7}',
        json={"id": 7},
        json_error=None,
    )
    ctx = StepContext(
        response=received, parameters={"timeout": SimpleNamespace(value=10, source="file"), "baseUrl": "http://h"}
    )
    assert ctx.response.status == 201 and ctx.response.json == {"id": 7} and ctx.response.body == '{"id": 7}'
    assert ctx.response.headers["content-type"] == "application/json"
    assert ctx.response.header("SET-COOKIE") == "a=1, b=2"
    assert list(ctx.response.headers) == ["Content-Type", "Set-Cookie"]
    assert dict(ctx.parameters) == {"timeout": 10, "baseUrl": "http://h"}
    not_json = SimpleNamespace(status=200, headers=(), body="<html>", json=None, json_error="Expecting value")
    assert StepContext(response=not_json).response.json is None
    assert StepContext().response is None and dict(StepContext().parameters) == {}
    assert isinstance(StepContext(response=received).response, Response)


# ---------------------------------------------------------------- discovery


def _unique(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


def _plugin(directory: Path, name: str, body: str) -> Path:
    path = directory / f"{name}.py"
    path.write_text("from scenario_core.custom_steps import step, assertion\n" + textwrap.dedent(body))
    return path


def test_discovery_by_module_name(tmp_path, monkeypatch):
    name = _unique("steps_by_name")
    _plugin(
        tmp_path,
        name,
        """
        @step("hello {word}")
        def hello(ctx, who):
            pass

        @assertion("all good")
        def good(ctx):
            return True
    """,
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = load_registry([name], entry_points=False)
    assert [d.pattern for d in registry.definitions()] == ["hello {word}", "all good"]
    assert registry.match_step("hello world") is not None
    assert registry.match_assertion("all good") is not None
    # Loading again in the same process (imported once) still finds them; a load without the
    # plugin does not.
    assert len(load_registry([name], entry_points=False)) == 2
    assert len(load_registry([], entry_points=False)) == 0


def test_discovery_by_path_and_plugin_order_decides_who_wins(tmp_path):
    first = _plugin(
        tmp_path,
        _unique("first"),
        """
        @step("go {any}")
        def go(ctx, rest):
            pass
    """,
    )
    second = _plugin(
        tmp_path,
        _unique("second"),
        """
        import helper_for_second  # a neighbour module: the plugin's folder is importable

        @step("go {word}")
        def go(ctx, word):
            pass
    """,
    )
    (tmp_path / "helper_for_second.py").write_text("VALUE = 1\n")
    registry = load_registry([str(first), str(second)], entry_points=False)
    match = registry.match_step("go far")
    assert match.definition.pattern == "go {any}" and match.ambiguous
    assert load_registry([str(second)], entry_points=False).match_step("go far").definition.pattern == "go {word}"


def test_discovery_by_entry_point_in_an_installed_distribution(tmp_path, monkeypatch):
    module = _unique("ep_steps")
    site = tmp_path / "site"
    site.mkdir()
    _plugin(
        site,
        module,
        """
        @step("from an entry point")
        def ep(ctx):
            pass
    """,
    )
    info = site / "pet_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: pet-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[scenario_tui.steps]\npets = {module}\n")
    monkeypatch.syspath_prepend(str(site))
    registry = load_registry([])
    assert registry.match_step("from an entry point") is not None
    assert load_registry([], entry_points=False).match_step("from an entry point") is None


def test_a_broken_entry_point_is_a_usage_error_naming_it(monkeypatch):
    point = SimpleNamespace(
        name="broken",
        value="no_such_module_xyz",
        module="no_such_module_xyz",
        load=lambda: __import__("no_such_module_xyz"),
    )
    monkeypatch.setattr(custom_steps, "_entry_points", lambda: [point])
    with pytest.raises(PluginError) as error:
        load_registry([])
    assert str(error.value).startswith(
        "entry point broken (no_such_module_xyz): cannot import: "
        "ModuleNotFoundError: No module named 'no_such_module_xyz'"
    )


@pytest.mark.parametrize(
    "body, expected",
    [
        ("x = 1 +\n", r"--plugins .*\.py: cannot import: SyntaxError: invalid syntax \(broken_\w+\.py:1\)"),
        (
            "import no_such_module_abc\n",
            r"cannot import: ModuleNotFoundError: No module named 'no_such_module_abc' "
            r"\(broken_\w+\.py:1\)",
        ),
        ("\n\nraise RuntimeError('boom\\nagain')\n", r"cannot import: RuntimeError: boom again \(broken_\w+\.py:3\)"),
        (
            "from scenario_core.custom_steps import step\n@step('x {nope}')\ndef f(ctx): pass\n",
            r"cannot import: ValueError: unknown placeholder \{nope\}",
        ),
        ("import sys\nsys.exit(3)\n", r"cannot import: SystemExit: 3"),
    ],
)
def test_a_plugin_that_fails_to_import_is_one_line_naming_it(tmp_path, body, expected):
    path = tmp_path / f"{_unique('broken')}.py"
    path.write_text(body)
    with pytest.raises(PluginError) as error:
        load_registry([str(path)], entry_points=False)
    assert "\n" not in str(error.value)
    assert __import__("re").search(expected, str(error.value)), str(error.value)


def test_a_plugin_failure_names_the_plugins_line_not_ours(tmp_path):
    # The decorator and the pattern that refuses it live in several modules of scenario_core.custom_steps:
    # none of their frames is the plugin's, so the message points at the decorator's line in the plugin.
    path = tmp_path / f"{_unique('bad_pattern')}.py"
    path.write_text("from scenario_core.custom_steps import step\n@step('x {nope}')\ndef f(ctx): pass\n")
    with pytest.raises(PluginError) as error:
        load_registry([str(path)], entry_points=False)
    assert str(error.value).endswith(f"({path.name}:2)"), str(error.value)


def test_a_half_imported_plugin_registers_nothing(tmp_path):
    path = _plugin(
        tmp_path,
        _unique("half"),
        """
        @step("registered before the crash")
        def early(ctx):
            pass

        raise RuntimeError("late failure")
    """,
    )
    before = len(custom_steps._registered)
    with pytest.raises(PluginError):
        load_registry([str(path)], entry_points=False)
    assert len(custom_steps._registered) == before


def test_missing_file_and_bad_module_names(tmp_path):
    with pytest.raises(PluginError, match=r"^--plugins .*nope\.py: no such file$"):
        load_registry([str(tmp_path / "nope.py")], entry_points=False)
    with pytest.raises(PluginError, match="expected a module name"):
        load_registry(["not a module"], entry_points=False)
    with pytest.raises(PluginError, match="ModuleNotFoundError: No module named 'no_such_plugin_q'"):
        load_registry(["no_such_plugin_q"], entry_points=False)


# ---------------------------------------------------------------- check-time diagnostics


def custom(text: str, line: int) -> DescribedStep:
    return DescribedStep("given", template(text, line), (), loc(line))


def file_with(
    *, background=(), feature_background=(), feature_steps=(), scenario_steps=(), fragment_steps=()
) -> ScenarioFileNode:
    scenario = ScenarioNode("s", frozenset(), tuple(scenario_steps), loc(50))
    feature = FeatureNode(
        "F",
        None,
        BackgroundNode(tuple(feature_background), loc(20)),
        (ScenarioNode("fs", frozenset(), tuple(feature_steps), loc(30)),),
        frozenset(),
        None,
        loc(19),
    )
    return ScenarioFileNode(
        (scenario,),
        (FragmentNode("frag", tuple(fragment_steps), loc(60)),),
        (feature,),
        None,
        BackgroundNode(tuple(background), loc(2)),
        (feature, scenario),
        loc(1),
    )


def pets_registry() -> Registry:
    registry = Registry()
    registry.step("the pet {string} is {word}")(lambda ctx, a, b: None)
    registry.step("I wait {float} seconds")(lambda ctx, s: None)
    registry.assertion("the pet should have status {string}")(lambda ctx, s: True)
    return registry


def test_check_reports_unmatched_custom_steps_and_assertions_in_every_block():
    request = RequestStep("GET", template("/pets"), (), (), None, loc(41))
    nested = DescribedStep(
        "when",
        template("I list the pets", 40),
        (
            request,
            ConditionalStep(
                (
                    ConditionalBranch(
                        StatusAssertion(200, None, loc(42)),
                        "status 200",
                        (
                            AssertStep(
                                "the pet should be sold",
                                CustomAssertion(template("the pet should be sold", 43), loc(43)),
                                loc(43),
                                "assert",
                            ),
                        ),
                        loc(42),
                    ),
                    ConditionalBranch(
                        NotAssertion(
                            CustomAssertion(template("nobody matches this", 44), loc(44)),
                            "not nobody matches this",
                            loc(44),
                        ),
                        "not ...",
                        (custom("deep inside an else", 45),),
                        loc(44),
                    ),
                ),
                loc(42),
            ),
        ),
        loc(40),
    )
    node = file_with(
        background=[custom('the pet "Rex" is sold', 3), custom("I fly", 4)],
        feature_background=[custom("I wait 0.5 seconds", 21), custom("I wait soon", 22)],
        feature_steps=[
            nested,
            AssertStep(
                'the pet should have status "sold"',
                CustomAssertion(template('the pet should have status "sold"', 31), loc(31)),
                loc(31),
                "assert",
            ),
        ],
        scenario_steps=[custom("standalone step", 51)],
        fragment_steps=[custom("in a fragment", 61)],
    )
    assert uses_custom_steps(node)
    found = custom_diagnostics(node, pets_registry())
    messages = sorted((d.location.line, d.message.split(";")[0]) for d in found)
    assert messages == [
        (4, 'no step matches "I fly"'),
        (22, 'no step matches "I wait soon"'),
        (43, 'no assertion matches "the pet should be sold"'),
        (44, 'no assertion matches "nobody matches this"'),
        (45, 'no step matches "deep inside an else"'),
        (51, 'no step matches "standalone step"'),
        (61, 'no step matches "in a fragment"'),
    ]
    first = next(d for d in found if d.location.line == 4)
    assert str(first).startswith(
        'f.scenario:4:7: error: no step matches "I fly"; custom steps are Python '
        "functions loaded with --plugins MODULE, see docs/custom-steps.md"
    )


def test_check_without_plugins_reports_every_custom_step():
    node = file_with(scenario_steps=[custom("anything at all", 51)])
    (problem,) = custom_diagnostics(node, Registry())
    assert problem.message.startswith('no step matches "anything at all"; custom steps are Python functions')


@pytest.mark.parametrize(
    "description, matches",
    [
        ("the pet {{name}} is {{status}}", True),
        ('the pet "{{name}}" is sold', True),
        ("the pet {{name}} is sold", True),  # the value of name may carry the quotes
        ("the pet {{name}}", True),  # name may be '"Rex" is sold'
        ("the dog {{name}} is sold", False),  # literal text differs: no value can help
        ("I wait {{delay}} seconds", True),
        ("I wait {{delay}} minutes", False),
        ("I wait 1{{fraction}} seconds", True),
        ("I wait x{{fraction}} seconds", False),  # {float} cannot start with x
        ("{{anything}}", True),
    ],
)
def test_references_stand_for_any_text_at_check_time(description, matches):
    node = file_with(scenario_steps=[custom(description, 51)])
    assert (custom_diagnostics(node, pets_registry()) == []) is matches


def test_check_reports_ambiguous_custom_steps_naming_both_patterns():
    registry = pets_registry()
    registry.step("the pet {any}")(lambda ctx, a: None)
    node = file_with(scenario_steps=[custom('the pet "Rex" is sold', 51), custom("the pet {{x}} is sold", 52)])
    (problem,) = custom_diagnostics(node, registry)  # with a reference only the run can tell
    assert problem.location.line == 51
    assert problem.message.startswith(
        'ambiguous custom step "the pet "Rex" is sold": "the pet {string} is {word}" (test_custom_steps.py:'
    )
    assert '"the pet {any}" (test_custom_steps.py:' in problem.message


def test_files_without_custom_steps_are_not_affected():
    for name in ("pets.scenario", "_fails-on-purpose/scopes.scenario", "openapi.scenario"):
        node = load_file(str(ROOT / "examples" / name))
        assert not uses_custom_steps(node)
        assert custom_diagnostics(node, Registry()) == []


# ---------------------------------------------------------------- the worked example


def test_the_example_plugin_against_the_demo_api(demo):
    registry = load_registry([str(EXAMPLE_PLUGIN)], entry_points=False)
    with httpx.Client(base_url=demo.url) as client:
        token = (client.post("/login", json={"username": "demo", "password": "demo"})).json()["token"]
    variables = {"token": token}
    ctx = StepContext(variables, variables.__setitem__, parameters={"baseUrl": demo.url, "timeout": 5})
    assert registry.run_step('a pet named "Rex" tagged dog exists', ctx) is None
    pet_id = variables["petId"]
    with httpx.Client(base_url=demo.url) as client:
        got = client.get(f"/pets/{pet_id}")
        listed = client.get("/pets")
    received = SimpleNamespace(
        status=got.status_code, headers=tuple(got.headers.items()), body=got.text, json=got.json(), json_error=None
    )
    ctx = StepContext(variables, variables.__setitem__, response=received)
    assert registry.run_assertion('the pet should be called "Rex"', ctx) is None
    assert (registry.run_assertion('the pet should be called "Max"', ctx)).startswith(
        'assertion "the pet should be called "Max"" is false (pet_steps.py:'
    )
    assert registry.run_step("I remember the pet's tag as petTag", ctx) is None
    assert variables["petTag"] == "dog"
    assert registry.run_step("I remember the pet's colour as c", ctx) == "the response has no field 'colour'"
    assert registry.run_step("I wait 0.01 seconds", ctx) is None
    many = SimpleNamespace(status=200, headers=(), body=listed.text, json=listed.json(), json_error=None)
    ctx = StepContext(variables, response=many)
    assert registry.run_assertion("the response lists at least 1 pets", ctx) is None
    assert registry.run_assertion("the response lists at least 999 pets", ctx) == (
        f"the response lists {len(listed.json())} pets, expected at least 999"
    )
    no_token = StepContext({}, parameters={"baseUrl": demo.url})
    assert (registry.run_step('a pet named "Max" tagged cat exists', no_token)).startswith("needs the baseUrl")


# ---------------------------------------------------------------- the command line


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    command = [sys.executable, "-c", "import sys; from scenario_tui.cli.main import main; sys.exit(main())", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=60, env=dict(os.environ))


SCENARIO = "scenario: s\n  when: GET http://127.0.0.1:1/x\n  then: status 200\n"


def test_check_with_a_broken_plugin_is_one_usage_line_exit_2(tmp_path):
    (tmp_path / "broken.py").write_text("import json\n\njson.no_such_function()\n")
    (tmp_path / "f.scenario").write_text(SCENARIO)
    result = cli("check", "--plugins", "broken.py", "f.scenario", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == (
        "scenario-tui: error: --plugins broken.py: cannot import: AttributeError: "
        "module 'json' has no attribute 'no_such_function' (broken.py:3)\n"
    )
    for command in (["run"], ["params"], []):  # the TUI too: it fails before opening
        result = cli(*command, "f.scenario", "--plugins", "broken.py", cwd=tmp_path)
        assert result.returncode == 2 and "Traceback" not in result.stderr
        assert result.stderr.count("\n") == 1 and "--plugins broken.py: cannot import" in result.stderr


def test_check_with_working_plugins_by_path_and_by_module_name(tmp_path):
    name = _unique("cli_steps")
    _plugin(
        tmp_path,
        name,
        """
        @step("fine")
        def fine(ctx):
            pass
    """,
    )
    (tmp_path / "f.scenario").write_text(SCENARIO)
    result = cli("check", "--plugins", f"{name}.py", "--plugins", name, "f.scenario", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "f.scenario: ok (0 features, 1 scenario, 0 fragments)\n"
    result = cli("check", "--plugins", "no_such_plugin_module", "f.scenario", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == (
        "scenario-tui: error: --plugins no_such_plugin_module: cannot import: "
        "ModuleNotFoundError: No module named 'no_such_plugin_module'\n"
    )


def test_check_of_a_file_without_custom_steps_never_looks_for_entry_points(tmp_path, monkeypatch):
    from scenario_core.custom_steps import plugins as registry
    from scenario_tui.cli import main as cli_module

    calls = []
    monkeypatch.setattr(custom_steps, "_entry_points", lambda: calls.append(1) or [])
    monkeypatch.setattr(registry, "_registries", {})
    path = tmp_path / "f.scenario"
    path.write_text(SCENARIO)
    assert cli_module.main(["check", str(path)]) == 0
    assert calls == []
    assert cli_module.main(["check", "--plugins", str(_plugin(tmp_path, _unique("p"), "")), str(path)]) == 0
    assert calls == [1]
