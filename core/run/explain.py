"""Why a `{{NAME}}` is undefined at a step (docs/spec/steps.md#undefined-variables): what is visible, and, when the name
is extracted elsewhere in the file, the rule that keeps it out of reach here.

The index of every extract in the file is built only when a variable turns out undefined, so
runs that never hit one pay nothing for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable, Mapping, Sequence

from scenario_core.language.nodes.blocks import FeatureNode, FragmentNode, ScenarioFileNode, ScenarioNode
from scenario_core.language.nodes.steps import ExtractStep, IncludeStep
from scenario_core.language.nodes.walk import walk_steps
from scenario_core.language.parameter_keys import SHARE
from scenario_core.parameters.resolution import COMMAND_LINE, FEATURE, FILE, EffectiveParameters
from scenario_core.parameters.sharing import StoreRef, store_for
from scenario_core.run.phases import BACKGROUND_FEATURE, BACKGROUND_FILE, SCENARIO, PlannedStep
from scenario_core.support.records import dataclass, field

if TYPE_CHECKING:  # an annotation only: `check` imports this module, and needs no event class
    from scenario_core.run.events import Status


@dataclass(slots=True)
class ScenarioRecord:
    """What happened to a scenario in this run, as far as explanations need it."""

    selected: bool = True
    by_tags: bool = True  # when not selected: by the run's tags (else by its caller, e.g. pytest -k)
    status: Status | None = None  # None while running / not reached
    failed_line: int | None = None
    failed_message: str | None = None
    extracted: set[str] = field(default_factory=set)


@dataclass(frozen=True, slots=True)
class ExtractSite:
    name: str
    step: ExtractStep
    scenario: ScenarioNode | None  # None: a fragment no scenario includes
    feature: FeatureNode | None
    phase: str
    index: int  # position in the scenario's plan
    order: int  # the scenario's position in the file (source order)
    via: tuple[IncludeStep, ...] = ()
    fragment: FragmentNode | None = None


def via_text(via: Sequence[IncludeStep]) -> str:
    return "".join(f", via fragment '{inc.fragment}'" for inc in via[-1:])


def later_in_scenario(name: str, line: int, via: Sequence[IncludeStep] = ()) -> str:
    return f"'{name}' is extracted later in this scenario (line {line}{via_text(via)})."


def nowhere(name: str) -> str:
    return f"No step in this file extracts '{name}'; pass it with --var {name}=..."


def did_you_mean(name: str, known: Iterable[str]) -> str | None:
    """The one name of `known` that `name` is most likely a slip of -- the same letters in
    another case (`catid` for `catId`) first, else one typing slip away (a letter added, lost,
    changed or two swapped: `knid` for `kind`), else the closest spelling (difflib ratio at least
    0.8 between the case-folded names) -- or None. Shared by `run`'s failure, the TUI (which
    shows the engine's message) and `check`'s warning, so all three suggest the same name."""
    folded = name.casefold()
    candidates = sorted({k for k in known if isinstance(k, str) and k and k != name})
    same_letters = [k for k in candidates if k.casefold() == folded]
    if same_letters:
        return same_letters[0]
    if len(name) < 3:
        return None
    slips = [k for k in candidates if _one_slip(folded, k.casefold())]
    if slips:
        return slips[0]
    import difflib  # only for a name that is undefined: `check` of a sound file never loads it

    best: tuple[float, str] | None = None
    for candidate in candidates:
        ratio = difflib.SequenceMatcher(None, folded, candidate.casefold()).ratio()
        if ratio >= 0.8 and (best is None or ratio > best[0]):
            best = (ratio, candidate)
    return best[1] if best is not None else None


def _one_slip(a: str, b: str) -> bool:
    """Whether `b` is `a` with one letter added, lost or changed, or two neighbours swapped."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    if len(a) == len(b):
        rest_a, rest_b = a[head + 1 :], b[head + 1 :]
        swapped = a[head + 2 :] == b[head + 2 :] and a[head : head + 2] == b[head : head + 2][::-1]
        return rest_a == rest_b or swapped
    shorter, longer = (a, b) if len(a) < len(b) else (b, a)
    return shorter[head:] == longer[head + 1 :]


def nowhere_but(name: str, known: Iterable[str]) -> str:
    """`nowhere`, led by a did-you-mean when a known name is a likely slip of `name`."""
    close = did_you_mean(name, known)
    return f"Did you mean '{close}'? {nowhere(name)}" if close else nowhere(name)


class Explainer:
    """Explains undefined variables for one file; `records` is updated by the executor as it runs."""

    def __init__(
        self,
        file: ScenarioFileNode,
        scenarios: Sequence[tuple[ScenarioNode, FeatureNode | None]],
        plan: Callable[[FeatureNode | None, ScenarioNode], tuple[PlannedStep, ...]],
        parameters: Callable[[FeatureNode | None], EffectiveParameters],
        records: Mapping[int, ScenarioRecord],
    ):
        self.file = file
        self.scenarios = scenarios
        self.plan = plan
        self.parameters = parameters
        self.records = records
        self._sites: dict[str, list[ExtractSite]] | None = None
        self._orders: dict[int, int] | None = None

    # ------------------------------------------------------------ the static index

    def sites(self) -> dict[str, list[ExtractSite]]:
        if self._sites is None:
            sites: dict[str, list[ExtractSite]] = {}
            included: set[str] = set()
            for order, (scenario, feature) in enumerate(self.scenarios):
                for planned in self.plan(feature, scenario):
                    included.update(inc.fragment for inc in planned.via)
                    # an extract of its own, or one in the branches of an if (run inside that step)
                    for step in walk_steps((planned.step,)):
                        if isinstance(step, ExtractStep):
                            sites.setdefault(step.name, []).append(
                                ExtractSite(
                                    step.name, step, scenario, feature, planned.phase, planned.index, order, planned.via
                                )
                            )
            for fragment in self.file.fragments:
                if fragment.name in included:
                    continue
                for step in self._fragment_extracts(fragment, set()):
                    sites.setdefault(step.name, []).append(
                        ExtractSite(step.name, step, None, None, SCENARIO, 0, len(self.scenarios), (), fragment)
                    )
            self._sites = sites
        return self._sites

    def _fragment_extracts(self, fragment: FragmentNode, seen: set[str]) -> Iterable[ExtractStep]:
        seen.add(fragment.name)
        for step in walk_steps(fragment.steps):  # directives of described steps, branches of ifs too
            if isinstance(step, ExtractStep):
                yield step
            elif isinstance(step, IncludeStep) and step.fragment not in seen:
                inner = self.file.fragment(step.fragment)
                if inner is not None:
                    yield from self._fragment_extracts(inner, seen)

    # ------------------------------------------------------------ the message

    def explain(
        self,
        name: str,
        where: str,
        visible: Iterable[str],
        scenario: ScenarioNode,
        feature: FeatureNode | None,
        index: int,
        store: StoreRef | None,
    ) -> str:
        names = sorted(visible)
        message = f"undefined variable '{name}' in {where}; visible here: {', '.join(names) if names else 'nothing'}."
        try:
            reason = self.reason(name, scenario, feature, index, store)
            if reason == nowhere(name):  # extracted nowhere: perhaps a slip of a name that is
                reason = nowhere_but(name, [*names, *self.sites()])
        except Exception:  # an explanation must never turn a failed step into a crash
            reason = None
        return f"{message} {reason}" if reason else message

    def _order_of(self, scenario: ScenarioNode) -> int:
        if self._orders is None:  # one pass, not one per question: static analysis asks many
            self._orders = {id(s): order for order, (s, _) in enumerate(self.scenarios)}
        return self._orders.get(id(scenario), -1)

    def reason(
        self, name: str, scenario: ScenarioNode, feature: FeatureNode | None, index: int, store: StoreRef | None
    ) -> str:
        """Why `name` is not visible at plan step `index` of `scenario`, as one sentence ("" when
        nothing in the file explains it). Shared by a run's failure and static analysis's warning
        (scope_analysis.py), which passes no records: what it says holds for every run."""
        sites = self.sites().get(name)
        if not sites:
            return nowhere(name)
        here = self._order_of(scenario)

        same = [s for s in sites if s.scenario is scenario]
        later_here = [s for s in same if s.index > index]
        if later_here:
            site = later_here[0]
            return later_in_scenario(name, site.step.line, site.via)

        own = [s for s in sites if s.scenario is not None and s.scenario is not scenario and s.phase == SCENARIO]
        if own:
            return self._other_scenario(name, own, here, feature, store)

        backgrounds = [
            (s, s.feature)
            for s in sites
            if s.scenario is not None
            and s.phase == BACKGROUND_FEATURE
            and s.feature is not None  # always, in a feature's background
            and s.feature is not feature
        ]
        if backgrounds:
            site, its_feature = backgrounds[0]
            return (
                f"'{name}' is extracted only by the background of feature '{its_feature.name}' "
                f"(line {site.step.line}): what a background extracts stays in its own scenario."
            )

        fragments = [(s, s.fragment) for s in sites if s.fragment is not None]
        if fragments:
            site, fragment = fragments[0]
            return (
                f"'{name}' is extracted only in fragment '{fragment.name}' (line {site.step.line}), "
                "which no scenario includes."
            )

        if same:  # extracted earlier in this very scenario but not there: its step did not run
            site = same[0]
            return f"'{name}' is extracted at line {site.step.line}, but that step did not extract it."
        if any(s.phase == BACKGROUND_FILE for s in sites):
            return f"'{name}' is extracted by the file background, which did not extract it here."
        return ""

    def _other_scenario(
        self, name: str, sites: list[ExtractSite], here: int, feature: FeatureNode | None, store: StoreRef | None
    ) -> str:
        stores = {id(s): self._store_of(s.feature) for s in sites}
        # Prefer a site sharing this scenario's store, the nearest earlier one first.
        sharing = [s for s in sites if store is not None and stores[id(s)] == store]
        if sharing:
            earlier = [s for s in sharing if s.order < here]
            site = earlier[-1] if earlier else sharing[0]
        else:
            earlier = [s for s in sites if s.order < here]
            site = earlier[-1] if earlier else sites[0]
        head = f"'{name}' is extracted by {self._scenario_label(site)} (line {site.step.line}{via_text(site.via)})"
        their = stores[id(site)]
        if store is None:
            reason = f"{head}, but {self._isolation(feature)}"
            if their is not None and their.feature is not None:
                # Both sides matter: opting in here would still not reach a feature's own store.
                reason += (
                    f"; and it is shared only within feature '{their.feature}' "
                    f"(shareVariablesAcrossScenarios: true{self._share_line(site.feature)})"
                )
            return reason + "."
        if their is None:
            return f"{head}, but that scenario is isolated: {self._isolation(site.feature)}."
        if their != store:
            if store.feature is not None:
                line = self._share_line(feature)
                return (
                    f"{head}, but feature '{store.feature}' has its own store "
                    f"(shareVariablesAcrossScenarios: true{line}) and does not see "
                    f"{'the file store' if their.feature is None else f'the store of feature {their.feature!r}'}."
                )
            line = self._share_line(site.feature)
            return (
                f"{head}, but feature '{their.feature}' has its own store "
                f"(shareVariablesAcrossScenarios: true{line}), cleared when it ends."
            )
        assert site.scenario is not None  # every site here is in another scenario (see explain)
        if site.order > here:
            return f"{head}, but that scenario runs later in the file (line {site.scenario.line})."
        record = self.records.get(id(site.scenario))
        if record is not None and not record.selected:
            if record.by_tags:
                return f"{head}, but that scenario was not selected by tags."
            return f"{head}, which was not selected."
        if record is not None and record.status == "failed":
            detail = f" (line {record.failed_line}: {record.failed_message})" if record.failed_line else ""
            return f"{head}, but that scenario failed before extracting it{detail}."
        return f"{head}, but that scenario did not extract it in this run."

    @staticmethod
    def _scenario_label(site: ExtractSite) -> str:
        assert site.scenario is not None
        return f"scenario '{site.scenario.name}'"

    def _store_of(self, feature: FeatureNode | None) -> StoreRef | None:
        return store_for(self.parameters(feature), feature.line if feature is not None else None)

    def _share_line(self, feature: FeatureNode | None) -> str:
        line = self.parameters(feature)[SHARE].line
        return f", line {line}" if line else ""

    def _isolation(self, feature: FeatureNode | None) -> str:
        """Why scenarios of `feature` (None: standalone) share nothing."""
        share = self.parameters(feature)[SHARE]
        if share.source == FEATURE:
            return f"feature '{share.winner.feature}' sets shareVariablesAcrossScenarios: false (line {share.line})"
        if share.source == FILE:
            return f"the file sets shareVariablesAcrossScenarios: false (line {share.line})"
        if share.source == COMMAND_LINE:
            return "the command line sets shareVariablesAcrossScenarios=false"
        who = f"feature '{feature.name}'" if feature is not None else "standalone scenarios"
        return f"{who} {'does' if feature is not None else 'do'} not share variables (shareVariablesAcrossScenarios is false by default)"


def undefined_refs(refs: Sequence[tuple[str, str]], visible: Mapping[str, object]) -> tuple[str, str] | None:
    """The first (name, where) whose name is not visible, or None."""
    for ref in refs:
        if ref[0] not in visible:
            return ref
    return None
