"""The checks on a whole file's includes, once every fragment is known: unknown fragments (with a
did-you-mean), include cycles, and the limits on what includes expand to: nesting depth
(MAX_INCLUDE_DEPTH) and steps a block runs (MAX_PLANNED_STEPS). Every pass is linear in the file:
each fragment is measured once, however often it is included (24 fragments each including the
next twice expand to 2^24 steps; none is walked twice)."""

from __future__ import annotations

from typing import Callable

from scenario_core.language.builder.context import BuildContext
from scenario_core.language.nodes.base import SourceLocation
from scenario_core.language.nodes.blocks import FeatureNode, FragmentNode, ScenarioFileNode
from scenario_core.language.nodes.steps import MAX_INCLUDE_DEPTH, MAX_PLANNED_STEPS, IncludeStep, Step
from scenario_core.language.nodes.walk import walk_steps

Report = Callable[[SourceLocation, str], None]
# name -> (nesting depth of its includes, steps it expands to (capped), its deepest include)
Measures = dict[str, tuple[int, int, str | None]]


def check_includes(ctx: BuildContext, file: ScenarioFileNode, fragments: dict[str, FragmentNode]) -> None:
    """Reports each include of the file's blocks (fragments included) that names no fragment, each
    include cycle, and each block whose includes pass a limit."""
    blocks: list[tuple[Step, ...]] = [f.steps for f in fragments.values()]
    if file.background:
        blocks.append(file.background.steps)
    for item in file.items:
        if isinstance(item, FeatureNode):
            if item.background:
                blocks.append(item.background.steps)
            blocks.extend(s.steps for s in item.scenarios)
        else:
            blocks.append(item.steps)
    names = list(fragments)
    listing = ", ".join(names[:20]) + (f" and {len(names) - 20} more" if len(names) > 20 else "")
    budget = 50_000  # names looked at for did-you-mean hints; past it, an unknown include gets the listing
    # A .fragment file may include fragments of other files: the scenario file that loads it
    # checks its includes, with every fragment known.
    for steps in blocks if not ctx.filename.endswith(".fragment") else ():
        for step in walk_steps(steps):
            if (
                isinstance(step, IncludeStep)
                and step.fragment not in fragments
                and step.fragment not in ctx.skipped_fragments
            ):
                wanted = step.fragment
                close: list[str] = []
                if budget > 0:  # once spent, an unknown include costs nothing more (no quadratic check)
                    # A close match differs in length by at most a third (difflib's 0.6 ratio).
                    candidates = [n for n in names if abs(len(n) - len(wanted)) * 3 <= max(len(n), len(wanted))]
                    budget -= len(names) + len(candidates)  # every name measured, the candidates compared
                    import difflib  # only for a hint: not imported by every start-up

                    if budget > 0:
                        close = difflib.get_close_matches(wanted, candidates, n=1, cutoff=0.6)
                hint = (
                    f"; did you mean '{close[0]}'?"
                    if close
                    else (f"; fragments in this file: {listing}" if fragments else "; this file defines no fragments")
                )
                ctx.error(step.location, f"include of unknown fragment '{step.fragment}'{hint}")
    cyclic = _report_cycles(ctx.error, fragments)
    measures = _measure_fragments(fragments, cyclic)
    for steps in blocks:
        _check_expansion(ctx.error, steps, measures)


def _includes(fragment: FragmentNode, fragments: dict[str, FragmentNode]) -> list[str]:
    return [s.fragment for s in walk_steps(fragment.steps) if isinstance(s, IncludeStep) and s.fragment in fragments]


def _report_cycles(error: Report, fragments: dict[str, FragmentNode]) -> set[str]:
    """A fragment that includes itself, directly or not, would never end: each cycle is
    reported once, at its first fragment. Iterative depth-first search, linear."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    cyclic: set[str] = set()
    for root in fragments:
        if root in state:
            continue
        path: list[str] = [root]
        pending: list[list[str]] = [_includes(fragments[root], fragments)]
        state[root] = 1
        while path:
            if not pending[-1]:
                state[path.pop()] = 2
                pending.pop()
                continue
            child = pending[-1].pop(0)
            if state.get(child) == 1:
                cycle = path[path.index(child) :] + [child]
                if not cyclic.intersection(cycle):
                    error(fragments[cycle[0]].location, "fragment includes itself: " + " → ".join(cycle))
                cyclic.update(cycle)
            elif child not in state:
                state[child] = 1
                path.append(child)
                pending.append(_includes(fragments[child], fragments))
    return cyclic


def _measure_fragments(fragments: dict[str, FragmentNode], cyclic: set[str]) -> Measures:
    """name -> (nesting depth of its includes, steps it expands to (capped), its deepest
    include), each computed once (children first, iteratively). Cyclic ones are left out."""
    measures: Measures = {}
    cap = MAX_PLANNED_STEPS + 1
    for root in fragments:
        if root in measures or root in cyclic:
            continue
        stack = [root]
        while stack:
            name = stack[-1]
            children = [c for c in _includes(fragments[name], fragments) if c not in cyclic]
            waiting = [c for c in children if c not in measures]
            if waiting:
                stack.extend(waiting)
                continue
            stack.pop()
            if name in measures:
                continue
            depth, deepest, count = 0, None, 0
            for step in walk_steps(fragments[name].steps):
                if isinstance(step, IncludeStep):
                    found = measures.get(step.fragment)
                    if found is not None:
                        count += found[1]
                        if found[0] + 1 > depth:
                            depth, deepest = found[0] + 1, step.fragment
                else:
                    count += 1
            measures[name] = (depth, min(count, cap), deepest)
    return measures


def _check_expansion(error: Report, steps: tuple[Step, ...], measures: Measures) -> None:
    """The limits a block's includes must stay within, as located errors: the executor
    never drops or cuts what a limit would stop (no silent pass)."""
    total = 0
    for step in walk_steps(steps):
        if not isinstance(step, IncludeStep):
            total += 1
            continue
        found = measures.get(step.fragment)
        if found is None:
            continue
        depth, count, _ = found
        if depth + 1 > MAX_INCLUDE_DEPTH:
            chain, deepest = [step.fragment], measures[step.fragment][2]
            while deepest is not None and len(chain) <= MAX_INCLUDE_DEPTH:
                chain.append(deepest)
                deepest = measures[deepest][2]
            shown = " → ".join(chain[:4]) + (" → …" if len(chain) > 4 else "")
            error(
                step.location,
                f"includes nest {depth + 1} levels deep here ({shown}); the limit is {MAX_INCLUDE_DEPTH}",
            )
            return
        total += count
        if total > MAX_PLANNED_STEPS:
            amount = f"{count:,}" if count <= MAX_PLANNED_STEPS else f"over {MAX_PLANNED_STEPS:,}"
            error(
                step.location,
                f"include of '{step.fragment}' expands to {amount} steps "
                f"(includes inside fragments multiply); a block runs at most "
                f"{MAX_PLANNED_STEPS:,} steps",
            )
            return
