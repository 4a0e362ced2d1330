"""pytest plugin (entry point `pytest11`): `pytest path/` collects `*.scenario` files and runs them
through the same `Execution` as `scenario-tui run`, so pytest-xdist can spread files over workers.

Collection: a File node per file, a node per feature, an item per scenario (outline rows are
scenarios of their own); tags become markers (`-m smoke`), `-k` matches names.

Running: a file runs once per session, as one Execution in source order with its stores intact.
The first of its items to run starts it and pulls events until its own scenario finishes; each
later item pulls on from there (or finds its outcome already recorded, in any order). Scenarios
whose items were deselected (-k, -m) are not run: the Execution's `selected` says so, and a
reader of what they would have extracted is told the extractor was not selected.

xdist: every item carries `xdist_group(<file>)`, and `-n N` without `--dist` means
`--dist loadgroup`, so one worker runs a whole file (nothing is shared between files). With
`--scenario-dist scope` the groups are the file's scope units instead (run.units: an isolated
scenario alone, a sharing feature or a sharing file whole), each run as an Execution of its own,
so a file's independent scenarios spread over the workers while shared variables stay on one.

Never imports textual or rich: workers stay light, and a failure is plain text, not a traceback.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generator, Iterator, Literal, Protocol

import pytest

if TYPE_CHECKING:  # this module loads in every pytest session: the engine only where it runs
    from _pytest._code.code import TerminalRepr, TracebackStyle

    from scenario_core.custom_steps.registry import Registry
    from scenario_core.language.nodes.blocks import FeatureNode, ScenarioFileNode, ScenarioNode
    from scenario_core.report.coverage_collector import CoverageCollector
    from scenario_core.report.masking import Masker
    from scenario_core.report.records import ScenarioRecord
    from scenario_core.run.events import Event, ScenarioFinished
    from scenario_core.run.units import Unit

    Outcome = tuple[ScenarioFinished | None, ScenarioRecord | None, Masker]

SUFFIX = ".scenario"
GROUP_PREFIX = ""  # xdist group names: the file's node id (`path/to/file.scenario`)
_SETTINGS = pytest.StashKey["_Settings"]()
_DEFAULT_LOADGROUP = pytest.StashKey[bool]()

# (command-line option, ini key, help); list options append to their ini lines.
_OPTIONS = (
    ("--scenario-base-url", "scenario_base_url", "URL", "override baseUrl for the whole run"),
    ("--scenario-param", "scenario_param", "KEY=VALUE", "override a parameter for the whole run (repeatable)"),
    (
        "--scenario-var",
        "scenario_var",
        "NAME=VALUE",
        "a run variable visible to every scenario; VALUE is JSON when it parses as JSON (repeatable)",
    ),
    (
        "--scenario-openapi",
        "scenario_openapi",
        "[NAME=]PATH",
        "an OpenAPI description: PATH is the 'default' one, NAME=PATH names another (repeatable)",
    ),
    (
        "--scenario-plugins",
        "scenario_plugins",
        "MODULE",
        "a module name or .py file of custom steps and assertions (repeatable)",
    ),
    ("--scenario-fragments", "scenario_fragments", "PATH|GLOB", "more .fragment files (repeatable)"),
    (
        "--scenario-resource-root",
        "scenario_resource_root",
        "DIR",
        "where bodyFile: names are looked up first (repeatable)",
    ),
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("scenario", "scenario-tui: run .scenario files")
    for option, ini, metavar, text in _OPTIONS:
        single = option == "--scenario-base-url"
        # (named: pytest 9's addini takes a type too, and mypy would read a bare string as one)
        kind: Literal["string", "linelist"] = "string" if single else "linelist"
        group.addoption(
            option, dest=ini, metavar=metavar, help=text, **({} if single else {"action": "append", "default": []})
        )
        parser.addini(
            ini,
            f"{text} (the same as {option})",
            type=kind,
            default=None if single else [],
        )
    text = "do not mask tokens, passwords and auth headers in failure reports"
    group.addoption("--scenario-show-secrets", dest="scenario_show_secrets", action="store_true", help=text)
    parser.addini("scenario_show_secrets", f"{text} (the same as --scenario-show-secrets)", type="bool", default=False)
    text = "after the run, show which OpenAPI operations, responses and parameters the scenarios exercised"
    group.addoption("--scenario-coverage", dest="scenario_coverage", action="store_true", help=text)
    text = (
        "what one xdist worker runs together: whole files (default), or scope units -- isolated "
        "scenarios alone, sharing features and files whole -- as `run --dist scope`"
    )
    group.addoption("--scenario-dist", dest="scenario_dist", choices=("file", "scope"), default=None, help=text)
    parser.addini("scenario_dist", f"{text} (the same as --scenario-dist)", type="string", default="file")


@pytest.hookimpl(wrapper=True)
def pytest_cmdline_main(config: pytest.Config) -> Iterator[None]:
    # Before xdist turns `-n N` without --dist into `--dist load`: group by file instead, so that
    # a file's scenarios (which share stores) run on one worker. An explicit --dist is kept.
    option = config.option
    if (
        getattr(option, "numprocesses", None)
        and getattr(option, "dist", None) == "no"
        and not getattr(option, "distload", False)
    ):
        option.dist = "loadgroup"
        config.stash[_DEFAULT_LOADGROUP] = True
    return (yield)


class _WorkerNode(Protocol):
    """What this plugin reads of an xdist WorkerController (xdist is optional: not imported)."""

    config: pytest.Config
    workerinput: dict[str, object]


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: _WorkerNode) -> None:
    # Workers parse the original command line again (no --dist there): tell them, so that they
    # suffix grouped node ids as xdist's loadgroup scheduler expects.
    if node.config.stash.get(_DEFAULT_LOADGROUP, False):
        node.workerinput["scenario_loadgroup"] = True


class _Settings:
    """The options and ini keys, read once per session into what the CLI would build."""

    def __init__(self, config: pytest.Config):
        from scenario_core.language.errors import UsageError

        def values(ini: str) -> list[str]:
            return [line for line in config.getini(ini) or [] if line.strip()] + list(config.getoption(ini) or [])

        base_url = config.getoption("scenario_base_url") or config.getini("scenario_base_url") or None
        try:
            from scenario_core.parameters.run_inputs import command_line_overrides, run_variables_from

            self.overrides = command_line_overrides(values("scenario_param"), base_url, values("scenario_openapi"))
            self.variables = run_variables_from(values("scenario_var"))
        except UsageError as error:  # the CLI's own words, with this plugin's option names
            message = str(error)
            for name in ("param", "var", "openapi", "base-url"):
                message = message.replace(f"--{name}", f"--scenario-{name}")
            raise pytest.UsageError(message) from None
        self.plugins = tuple(values("scenario_plugins"))
        self.fragments = tuple(values("scenario_fragments"))
        self.resource_roots = tuple(values("scenario_resource_root"))
        self.show_secrets = bool(config.getoption("scenario_show_secrets") or config.getini("scenario_show_secrets"))
        self.coverage = bool(config.getoption("scenario_coverage", False))
        self.dist = config.getoption("scenario_dist", None) or config.getini("scenario_dist") or "file"
        if self.dist not in ("file", "scope"):
            raise pytest.UsageError(f"scenario_dist: expected file or scope, got {self.dist!r}")
        self.files: dict[Path, "ScenarioFile"] = {}  # file runs opened this session
        self._selection: dict["ScenarioFile", set[int]] | None = None

    def selection(self, session: pytest.Session) -> dict["ScenarioFile", set[int]]:
        """The scenarios each file runs: its items left after -k, -m and other deselection
        (on an xdist worker: every selected item, whichever worker runs it)."""
        if self._selection is None:
            self._selection = {}
            for item in session.items:
                if isinstance(item, ScenarioItem):
                    self._selection.setdefault(item.scenario_file, set()).add(id(item.scenario))
        return self._selection

    def registry(self, node: ScenarioFileNode) -> Registry | None:
        from scenario_core.custom_steps.diagnostics import uses_custom_steps
        from scenario_core.custom_steps.plugins import plugin_registry

        return plugin_registry(self.plugins) if self.plugins or uses_custom_steps(node) else None


def pytest_configure(config: pytest.Config) -> None:
    if getattr(config, "workerinput", {}).get("scenario_loadgroup"):
        config.option.loadgroup = True
    config.stash[_SETTINGS] = settings = _Settings(config)
    if getattr(config.option, "xmlpath", None) and not hasattr(config, "workerinput"):  # --junitxml
        from scenario_tui.integrations.pytest_junit import JunitClassnames

        config.pluginmanager.register(JunitClassnames(config), "scenario-junit-classnames")
    if settings.coverage:
        from scenario_tui.integrations.pytest_coverage import CoverageHooks

        def collectors() -> list[CoverageCollector]:
            return [run.coverage for f in settings.files.values() for run in f.runs() if run.coverage]

        config.pluginmanager.register(CoverageHooks(collectors), "scenario-coverage")


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> "ScenarioFile | None":
    if file_path.suffix == SUFFIX:
        return ScenarioFile.from_parent(parent, path=file_path)
    return None


def pytest_sessionfinish(session: pytest.Session) -> None:
    settings = session.config.stash.get(_SETTINGS, None)
    for file in list(settings.files.values()) if settings is not None else ():
        file.close()


# ---------------------------------------------------------------- collection


class ScenarioCollectError(Exception):
    """A file that does not load: its `file:line:col: error:` lines, shown as they are."""


def unique_names(names: list[str]) -> list[str]:
    """Node names, one per node: the second of a name is `name [2]`, the third `name [3]` (as the
    TUI's tree counts duplicates), skipping a suffix another node already has. xdist reports by
    node id, and two nodes with one id are one result: the other would be lost. The same on
    every worker, since each collects the same file."""
    taken = set(names)
    seen: dict[str, int] = {}
    unique = []
    for name in names:
        count = seen[name] = seen.get(name, 0) + 1
        if count > 1:
            while f"{name} [{count}]" in taken:
                count += 1
            seen[name] = count
            name = f"{name} [{count}]"
            taken.add(name)
        unique.append(name)
    return unique


def _marker(config: pytest.Config, tag: str) -> pytest.MarkDecorator:
    # Registered first, so --strict-markers accepts a tag the file uses.
    config.addinivalue_line("markers", f"{tag}: scenario tag @{tag}")
    marker: pytest.MarkDecorator = getattr(pytest.mark, tag)  # (MarkGenerator.__getattr__)
    return marker


class ScenarioFile(pytest.File):
    """One .scenario file; runs as a whole, once, when its first item runs."""

    node: ScenarioFileNode  # set by collect
    _runs: dict[int, _FileRun]  # by unit: one, the whole file, unless --scenario-dist scope
    _unit_of: dict[int, int]  # scenario id -> its unit's index
    _units: list[Unit | None]  # None: the whole file

    def _display_path(self) -> str:
        try:
            return os.path.relpath(self.path, self.config.invocation_params.dir)
        except ValueError:  # another drive (Windows)
            return str(self.path)

    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        from scenario_core.custom_steps.plugins import PluginError
        from scenario_core.language.errors import InvalidFileError, UsageError
        from scenario_core.language.nodes.blocks import FeatureNode
        from scenario_core.parameters.diagnostics import load_valid
        from scenario_core.support.printable import visible

        settings = self.config.stash[_SETTINGS]
        try:
            (self.node,) = load_valid([self._display_path()], settings.overrides, settings.plugins, settings.fragments)
        except InvalidFileError as error:
            raise ScenarioCollectError("\n".join(visible(str(d)) for d in error.diagnostics)) from None
        except (UsageError, PluginError) as error:
            raise ScenarioCollectError(f"{self._display_path()}: error: {visible(str(error))}") from None
        self._runs, self._unit_of, self._units = {}, {}, [None]
        if settings.dist == "scope":
            from scenario_core.run.units import scope_units

            units = scope_units([self.node], settings.overrides)
            self._units = [*units]
            for index, unit in enumerate(units):  # (a whole-file unit: 0, the default)
                for node_id in unit.nodes or ():
                    self._unit_of.setdefault(node_id, index)
        for item, name in zip(self.node.items, unique_names([item.name for item in self.node.items])):
            if isinstance(item, FeatureNode):
                yield FeatureCollector.from_parent(self, name=name, feature=item)
            else:
                yield ScenarioItem.from_parent(self, name=name, scenario=item, feature=None)

    def group_of(self, scenario: ScenarioNode) -> str:
        """The xdist group of a scenario's item: its file, or with --scenario-dist scope its unit."""
        index = self._unit_of.get(id(scenario), 0)
        return GROUP_PREFIX + self.nodeid + (f"::unit-{index}" if len(self._units) > 1 else "")

    def runs(self) -> list["_FileRun"]:
        return list(getattr(self, "_runs", {}).values())

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: TracebackStyle | None = None
    ) -> str | TerminalRepr:
        if excinfo.errisinstance(ScenarioCollectError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    # ---- the file's one run

    def outcome(self, item: ScenarioItem) -> Outcome:
        index = self._unit_of.get(id(item.scenario), 0)
        run = self._runs.get(index)
        if run is None:
            settings = self.config.stash[_SETTINGS]
            wanted = settings.selection(self.session).get(self, set())
            unit = self._units[index]
            if unit is not None and unit.nodes is not None:
                wanted = wanted & unit.nodes
            run = self._runs[index] = _FileRun(self.node, settings, wanted, unit.nodes if unit is not None else None)
            settings.files[self.path] = self
        result = run.outcome(item.scenario)
        if run.finished_all():
            run.close(stop=False)
        return result

    def close(self) -> None:
        for run in self.runs():
            run.close(stop=True)


class FeatureCollector(pytest.Collector):
    def __init__(self, *, feature: FeatureNode, **kwargs: Any):  # kwargs: pytest's from_parent
        super().__init__(**kwargs)
        self.feature = feature
        for tag in sorted(feature.tags):
            self.add_marker(_marker(self.config, tag))

    def collect(self) -> Iterator[pytest.Item]:
        scenarios = self.feature.scenarios
        for scenario, name in zip(scenarios, unique_names([scenario.name for scenario in scenarios])):
            yield ScenarioItem.from_parent(self, name=name, scenario=scenario, feature=self.feature)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.feature.location.line - 1, f"feature: {self.feature.name}"


class ScenarioFailure(Exception):
    """A scenario that failed: its report is this text (step, message, request/response)."""


class ScenarioItem(pytest.Item):
    def __init__(
        self, *, scenario: ScenarioNode, feature: FeatureNode | None, **kwargs: Any
    ):  # kwargs: pytest's from_parent
        super().__init__(**kwargs)
        self.scenario, self.feature = scenario, feature
        scenario_file = self.getparent(ScenarioFile)
        if scenario_file is None:  # (from_parent under a ScenarioFile, always)
            raise TypeError(f"{self.nodeid}: not collected from a .scenario file")
        self.scenario_file = scenario_file
        if self.config.pluginmanager.hasplugin("xdist"):  # without xdist the marker is unknown (--strict-markers)
            self.add_marker(pytest.mark.xdist_group(self.scenario_file.group_of(scenario)))
        for tag in sorted(scenario.tags):
            self.add_marker(_marker(self.config, tag))

    def runtest(self) -> None:
        from scenario_core.report.failures import failure_details
        from scenario_core.run.events import FAILED, PASSED

        try:
            finished, record, masker = self.scenario_file.outcome(self)
        except Exception as error:  # a bug must still be one line, not a traceback
            raise ScenarioFailure(f"internal error: {type(error).__name__}: {' '.join(str(error).split())}") from None
        if finished is None:
            raise ScenarioFailure("did not run: the file's run ended before this scenario")
        if finished.status == PASSED:
            return
        if finished.status == FAILED:
            lines: list[str | None] = [
                *(failure_details(record, masker) if record is not None else [masker.text(finished.message)])
            ]
            lines.append(refused_hint(record, masker))
            raise ScenarioFailure("\n".join(line for line in lines if line) or "failed")
        pytest.skip(masker.text(finished.message) or "skipped")

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: TracebackStyle | None = None
    ) -> str | TerminalRepr:
        if excinfo.errisinstance(ScenarioFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.scenario.location.line - 1, f"scenario: {self.scenario.name}"


def refused_hint(record: ScenarioRecord | None, masker: Masker) -> str | None:
    """For a scenario whose request found no server (connection refused): one line naming the
    base URL it was sent to and how to point the run elsewhere; else None. `pytest examples/`
    with no API running fails every scenario so, and the hint says which server it expects."""
    from urllib.parse import urlsplit

    step = record.failed_step if record is not None else None
    exchange = record.exchange if record is not None else None
    if step is None or exchange is None or "connection refused" not in (step.message or ""):
        return None
    url = urlsplit(exchange.url)
    base = masker.text(f"{url.scheme}://{url.netloc}")
    return (
        f"hint: nothing answers at {base}, the base URL this scenario sends to: start the API there, "
        "or pass --scenario-base-url URL (or set scenario_base_url in the pytest ini)"
    )


# ---------------------------------------------------------------- running


class _FileRun:
    """A file's Execution, pulled event by event across items, as `scenario-tui run` pulls it."""

    def __init__(
        self, node: ScenarioFileNode, settings: _Settings, wanted: set[int], only: frozenset[int] | None = None
    ):
        from scenario_core.report.masking import Masker
        from scenario_core.report.recorder import RunRecorder
        from scenario_core.run.events import ScenarioFinished
        from scenario_core.run.executor import Execution
        from scenario_core.run.options import run_options

        self.masker = Masker(enabled=not settings.show_secrets)
        self.recorder = RunRecorder(every_step=False)  # an item's failure is all pytest shows
        options = run_options(
            overrides=settings.overrides,
            run_variables=settings.variables,
            registry=settings.registry(node),
            resource_roots=settings.resource_roots,
        )
        self.execution = Execution([node], options, include=lambda scenario, feature: id(scenario) in wanted, only=only)
        # --scenario-coverage: this file's collector (pytest_coverage.py)
        self.coverage: CoverageCollector | None = None
        if settings.coverage:
            from scenario_core.report.coverage_collector import CoverageCollector

            self.coverage = CoverageCollector()
        self.events: Generator[Event, None, None] = self.execution.events()
        self.outcomes: dict[int, tuple[ScenarioFinished, ScenarioRecord | None]] = {}
        self.done = False
        self.closed = False
        self.wanted = wanted
        self.reported: set[int] = set()
        self._finished = ScenarioFinished  # (this module loads in every pytest session: the engine only here)

    def _take(self, event: Event, key: int | None) -> bool:
        """Feed one event to the masker, recorder and coverage; True once scenario `key` finished."""
        self.masker.feed(event)  # first: a report of this event may hold its secrets
        self.recorder.feed(event)
        if self.coverage is not None:
            self.coverage.feed(event)
        if type(event) is self._finished:
            self.outcomes[id(event.scenario)] = (event, self.recorder.last)
            return id(event.scenario) == key
        return False

    def _until(self, key: int | None) -> None:
        """Pull events until scenario `key` has finished (None: to the end)."""
        for event in self.events:
            if self._take(event, key):
                return
        self.done = True

    def outcome(self, scenario: ScenarioNode) -> Outcome:
        if id(scenario) not in self.outcomes and not self.done:
            self._until(id(scenario))
        self.reported.add(id(scenario))
        if id(scenario) not in self.outcomes:
            return None, None, self.masker
        event, record = self.outcomes[id(scenario)]
        return event, record, self.masker

    def finished_all(self) -> bool:
        """Whether every selected item of this file has had its outcome."""
        return self.wanted <= self.reported

    def close(self, stop: bool) -> None:
        """Let the run finish: after the file's last item only deselected scenarios and closing
        events are left; when the session ends early (-x, Ctrl+C) `stop` the run first. Idempotent."""
        if self.closed:
            return
        self.closed = True
        try:
            if stop and not self.done:
                self.execution.stop()
            if not self.done:
                self._until(None)
        except BaseException:  # a run interrupted mid-request: nothing left to report
            pass
        finally:
            try:
                self.events.close()
            except BaseException:
                pass
