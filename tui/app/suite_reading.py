"""What the app knows of its files besides their tree: each file read and checked as `check`
checks it (parameters, custom steps), the effective parameters of every node, the method and path
of each operation call, and the warnings of static scope analysis."""

from __future__ import annotations

from typing import Mapping, Sequence

from scenario_core.analysis.scope_analysis import analyze
from scenario_core.language.errors import Diagnostic, InvalidFileError, ScenarioError
from scenario_core.language.nodes.blocks import ScenarioFileNode
from scenario_core.parameters.diagnostics import calls_operations, parameter_diagnostics, read_all_stages
from scenario_core.parameters.operation_check import operation_shapes
from scenario_core.parameters.params_report import ParameterNode, parameter_nodes
from scenario_core.parameters.resolution import RunOverrides
from scenario_core.run.stepper import Stepper
from scenario_tui.widgets.static_warnings import StaticWarnings
from scenario_tui.widgets.tree_items import BrokenFile, TreeItem, file_number


class SuiteReader:
    def __init__(
        self,
        stepper: Stepper,
        overrides: RunOverrides,
        run_variables: Mapping[str, object],
        fragments: Sequence[str],
        plugins: Sequence[str],
    ) -> None:
        self.stepper = stepper  # its OpenAPI descriptions and plugin registry are the runs' too
        self.overrides = overrides
        self.run_variables = run_variables
        self.fragments = tuple(fragments)
        self.plugins = tuple(plugins)
        self._param_nodes: dict[int, ParameterNode] = {}
        self._file_params: dict[int, ParameterNode] = {}  # a file's index -> its own parameters

    def read(self, path: str) -> ScenarioFileNode | BrokenFile:
        """The file, or what keeps it from running (every error, as `check` reports them)."""

        def later_stages(file: ScenarioFileNode) -> list[Diagnostic]:
            problems = parameter_diagnostics(file, self.overrides, self.stepper.descriptions)
            return problems + self._custom_step_problems(file)

        # errors local to a scenario end it (docs/spec/steps.md#errors-local-to-one-scenario); the file's others run
        try:
            file = read_all_stages(path, self.fragments, later_stages)
        except InvalidFileError as error:
            return BrokenFile(path, tuple(error.diagnostics))
        except ScenarioError as error:  # unreadable: gone, not UTF-8 ...
            return BrokenFile(path, (), str(error))
        return file

    def _custom_step_problems(self, file: ScenarioFileNode) -> list[Diagnostic]:
        """Custom steps no plugin matches; the plugins' registry goes to the stepper's runs."""
        from scenario_core.custom_steps.diagnostics import custom_diagnostics, uses_custom_steps
        from scenario_core.custom_steps.plugins import load_registry

        if not self.plugins and not uses_custom_steps(file):
            return []
        if self.stepper.registry is None:
            self.stepper.registry = load_registry(self.plugins)
        return custom_diagnostics(file, self.stepper.registry)

    def index(self, files: Sequence[ScenarioFileNode | BrokenFile]) -> dict[int, str]:
        """Learn every node's effective parameters; return id(step) -> `POST /pets` for calls."""
        self._param_nodes, self._file_params = {}, {}
        shapes: dict[int, str] = {}
        for index, file in enumerate(files):
            if isinstance(file, BrokenFile):
                continue
            nodes = parameter_nodes(file, self.overrides)
            self._file_params[index] = nodes[0]
            self._param_nodes.update((id(node.node), node) for node in nodes)
            if calls_operations(file):
                shapes.update(operation_shapes(file, self.overrides, self.stepper.descriptions))
        return shapes

    def parameters_for(self, item: TreeItem | None) -> ParameterNode | None:
        """The parameters in force at a tree node: its scenario's, its feature's, else its file's."""
        if item is None or not item.key:
            return next(iter(self._file_params.values()), None)
        for node in (item.node if item.kind in ("feature", "scenario") else None, item.scenario, item.feature):
            if node is not None and id(node) in self._param_nodes:
                return self._param_nodes[id(node)]
        return self._file_params.get(file_number(item.key))

    def warnings(self, files: Sequence[ScenarioFileNode | BrokenFile]) -> StaticWarnings:
        analyses = []
        for file in files:
            if isinstance(file, ScenarioFileNode):
                try:
                    analyses.append(analyze(file, self.overrides, self.run_variables))
                except ScenarioError:  # an unreadable OpenAPI description: the run reports it
                    continue
        return StaticWarnings(analyses)
