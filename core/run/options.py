"""A run's options as one frozen value (docs/architecture.md#the-model): what runs and with what
(the engine reads these), and what a headless run prints and writes (`scenario-tui run` reads
the rest). Built once -- from the command line, the pytest plugin's options, or a test -- and
passed down unchanged; nothing below the front end takes these as loose parameters."""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Callable, Literal, Mapping

from scenario_core.parameters.resolution import RunOverrides
from scenario_core.support.records import dataclass, field, replace

if TYPE_CHECKING:
    from scenario_core.custom_steps.registry import Registry

# --verbose: 0 none, 1 every request and response, 2 and where each connection went.
Verbosity = Literal[0, 1, 2]
# --dist: `file` runs files at once; `scope` the units the scope rules keep apart.
Distribution = Literal["file", "scope"]
NO_VARIABLES: Mapping[str, object] = MappingProxyType({})


@dataclass(frozen=True, slots=True, kw_only=True)
class RunOptions:
    # ---- what runs, and with what (the engine)
    overrides: RunOverrides = field(default_factory=RunOverrides)
    run_variables: Mapping[str, object] = NO_VARIABLES  # --var and --variables-file; read-only
    tags: frozenset[str] | None = None  # plain tags (the TUI's and the API's); None: every scenario
    selected: Callable[[frozenset[str]], bool] | None = None  # a --tags expression; wins over `tags`
    registry: Registry | None = None  # custom steps and assertions (--plugins, the files' own)
    resource_roots: tuple[str, ...] = ()  # --resource-root: where bodyFile names are looked up first
    # ---- what the run read (no report may replace them), as given on the command line
    fragments: tuple[str, ...] = ()
    variables_files: tuple[str, ...] = ()
    plugins: tuple[str, ...] = ()
    # ---- what a headless run prints and writes
    report_json: str | None = None
    report_junit: str | None = None
    report_html: str | None = None
    show_secrets: bool = False
    fail_fast: bool = False
    verbose: Verbosity = 0
    jobs: int = 1
    dist: Distribution = "file"
    coverage: bool = False
    coverage_min: float | None = None  # implies coverage
    compare: str | None = None  # an earlier JSON report to compare each response with

    @property
    def collects_coverage(self) -> bool:
        return self.coverage or self.coverage_min is not None

    def with_variables(self, run_variables: Mapping[str, object]) -> RunOptions:
        """The same options with these run variables (kept read-only)."""
        return replace(self, run_variables=MappingProxyType(dict(run_variables)))


def run_options(**given: Any) -> RunOptions:
    """RunOptions from keywords, with sequences made tuples and run variables read-only (the
    front ends pass lists and dicts as argparse gives them)."""
    for name in ("resource_roots", "fragments", "variables_files", "plugins"):
        if name in given:
            given[name] = tuple(given[name] or ())
    if "run_variables" in given:
        given["run_variables"] = MappingProxyType(dict(given["run_variables"] or {}))
    if given.get("tags") is not None:
        given["tags"] = frozenset(t.lstrip("@") for t in given["tags"])
    return RunOptions(**given)
