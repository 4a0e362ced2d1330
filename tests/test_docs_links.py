"""The documentation holds together: every relative link of README.md, CONTRIBUTING.md, docs/*.md
and docs/spec/*.md (images included) reaches a file that exists, every `#anchor` names a heading of
its target by GitHub's slug rules, the README stays a short front door with CI's test command
between its markers, and its example scenario is valid. External http(s) links are not fetched.

Code and docs cite the rules they obey: every `docs/....md#anchor` written in core/, tui/, docs/,
tests/ or bench/ names a file and a heading that exist, and nothing there cites a text the
repository does not hold (the private `semantics.md`, `seed.md`, `berrycrush.md §…`, `cli.md`, or
an issue tracker's numbers)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
SPEC = DOCS / "spec"
PAGES = [README, ROOT / "CONTRIBUTING.md", *sorted(DOCS.glob("*.md")), *sorted(SPEC.glob("*.md"))]
README_MAX_LINES = 260

FENCE = re.compile(r"^ {0,3}(```|~~~)")
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
# [text](target) and ![alt](target); the text may hold one level of brackets (`[a [b]](c)`);
# the target may be wrapped in <...> and followed by a "title".
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^()\s<>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//)", re.IGNORECASE)  # http:, https:, mailto:, //host


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) outside fenced code blocks, with inline code spans blanked out."""
    lines, fenced = [], None
    for number, line in enumerate(text.splitlines(), 1):
        fence = FENCE.match(line)
        if fence and (fenced is None or fence.group(1) == fenced):
            fenced = fence.group(1) if fenced is None else None
            continue
        if fenced is None:
            lines.append((number, CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)))
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: the rendered text lowercased, punctuation dropped (except `-`
    and `_`), each space a `-`. Code spans count as their text, links as their text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"<[^>]+>", "", text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading's anchor in a Markdown file; a repeated one gets `-1`, `-2`, ... as on GitHub."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    text = path.read_text(encoding="utf-8")
    fenced = None
    for line in text.splitlines():
        fence = FENCE.match(line)
        if fence and (fenced is None or fence.group(1) == fenced):
            fenced = fence.group(1) if fenced is None else None
            continue
        heading = HEADING.match(line) if fenced is None else None
        if heading:
            base = slug(heading.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(path: Path) -> list[tuple[int, str]]:
    """(line, target) of every relative link and image of a Markdown file, outside code."""
    return [
        (number, match.group(1))
        for number, line in prose_lines(path.read_text(encoding="utf-8"))
        for match in LINK.finditer(line)
        if not EXTERNAL.match(match.group(1))
    ]


def broken_links(path: Path) -> list[str]:
    """Every relative link of `path` that reaches no file, or names an anchor its target lacks."""
    problems = []
    for number, target in links(path):
        file_part, _, anchor = target.partition("#")
        destination = (path.parent / file_part).resolve() if file_part else path
        where = f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name}:{number}: {target}"
        if not destination.exists():
            problems.append(f"{where}: no such file")
        elif anchor and (destination.suffix != ".md" or anchor not in anchors(destination)):
            problems.append(f"{where}: no heading with anchor #{anchor} in {destination.name}")
    return problems


def page_id(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_every_relative_link_reaches_an_existing_file_and_heading(page):
    assert broken_links(page) == []


def test_the_pages_checked_include_the_readme_contributing_and_every_docs_page():
    names = {page_id(page) for page in PAGES}
    assert {"README.md", "CONTRIBUTING.md", "docs/README.md", "docs/architecture.md"} <= names
    assert all(page.exists() for page in PAGES)


def test_the_docs_index_links_every_docs_page():
    linked = {(DOCS / target.partition("#")[0]).resolve() for _, target in links(DOCS / "README.md")}
    missing = [
        page.name for page in sorted(DOCS.glob("*.md")) if page.name != "README.md" and page.resolve() not in linked
    ]
    assert missing == []


def test_the_readme_is_a_front_door_of_at_most_260_lines():
    assert len(README.read_text(encoding="utf-8").splitlines()) <= README_MAX_LINES


def test_the_readme_holds_the_test_command_between_its_markers_for_ci():
    text = README.read_text(encoding="utf-8")
    assert text.count("<!-- test-command -->") == 1 and text.count("<!-- /test-command -->") == 1
    between = text.split("<!-- test-command -->")[1].split("<!-- /test-command -->")[0]
    commands = [line for line in between.splitlines() if re.match(r"^\s*python3 ", line)]
    assert len(commands) == 1 and "pytest" in commands[0]  # what .ci/run extracts and runs


def test_the_readme_example_scenario_is_a_valid_file():
    from scenario_core.language.parser import parse_text

    text = README.read_text(encoding="utf-8")
    example = re.search(r"## A scenario\n.*?```text\n(.*?)```", text, re.DOTALL)
    assert example is not None
    node = parse_text(example.group(1), "README.scenario")  # raises InvalidFileError on any error
    assert node is not None


@pytest.mark.parametrize(
    "heading, anchor",
    [
        ("Commands", "commands"),
        ("In your editor: `scenario-tui lsp`", "in-your-editor-scenario-tui-lsp"),
        ("With pytest (and pytest-xdist)", "with-pytest-and-pytest-xdist"),
        ("`params FILE --json`", "params-file---json"),
        ("The JSON report (`run --report-json PATH`)", "the-json-report-run---report-json-path"),
        ("Layers of `scenario_core`", "layers-of-scenario_core"),
    ],
)
def test_anchors_follow_githubs_slug_rules(heading, anchor):
    assert slug(heading) == anchor


def test_a_repeated_heading_gets_a_numbered_anchor_and_fenced_hashes_are_no_headings(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Title\n## Notes\n```sh\n# not a heading\n```\n## Notes\n", encoding="utf-8")
    assert anchors(page) == {"title", "notes", "notes-1"}


def test_a_missing_file_or_anchor_is_reported_and_code_and_external_links_are_not(tmp_path):
    (tmp_path / "other.md").write_text("# Other page\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n"
        "[ok](other.md#other-page) [self](#page) ![img](other.md) [web](https://example.com/x#y)\n"
        "[gone](missing.md) [bad anchor](other.md#nowhere) [bad self](#nowhere)\n"
        "`[code](missing.md)`\n"
        "```text\n[fenced](missing.md)\n```\n",
        encoding="utf-8",
    )
    assert [problem.split(": ", 1)[1] for problem in broken_links(page)] == [
        "missing.md: no such file",
        "other.md#nowhere: no heading with anchor #nowhere in other.md",
        "#nowhere: no heading with anchor #nowhere in page.md",
    ]


# ---------------------------------------------------------------- citations in code and docs

CITING_TREES = ("core", "tui", "docs", "tests", "bench")
# This file names the private forms on purpose, to test the check.
_SELF = Path(__file__).resolve()
CITING_SUFFIXES = {".py", ".md", ".scenario", ".toml", ".txt", ".lark", ".tcss"}
# `docs/spec/scopes.md#feature-scope`, `docs/limits.md`: a page of the repository, maybe a heading.
CITATION = re.compile(r"(?<![\w/.-])(docs/[\w./-]+\.md)(?:#([\w-]+))?")
# What the repository does not hold: the private specification files, and an issue tracker outside
# it. `docs/berrycrush.md` and `docs/cli.md` (and links between docs pages) are fine; a bare
# `berrycrush.md §5` or `cli.md` in code means the private texts.
PRIVATE = [
    (re.compile(r"(?<![\w/.-])(?:semantics|seed)\.md"), "a private specification file"),
    (re.compile(r"(?<![\w/.-])(?:berrycrush|cli)\.md\s*§"), "the private berrycrush.md or cli.md"),
    (re.compile(r"\b[Ii]ssues?\s*#?\d+|\(#\d+\)|(?<![\w&])#\d+\s*§"), "an issue tracker outside the repository"),
    # (a standard's own section, `RFC 9110 §5.5`, is a public text: not this)
    (re.compile(r"(?<!\.md )(?<!\.md)(?<!RFC \d{4} )§\s*\d+"), "a section of a private specification (`(§5 v3)`)"),
]
BARE_PRIVATE_PAGE = (re.compile(r"(?<![\w/.-])(?:berrycrush|cli)\.md\b(?!\s*§)"), "the private berrycrush.md or cli.md")
MARKDOWN_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\([^()]*\)")

# Files left out of the citation check while other work rewrote them: none now. A path ending in
# `/` would stand for every file under it.
_PENDING_FILES: tuple[str, ...] = ()


def citing_files() -> list[Path]:
    """Every text file of core/, tui/, docs/, tests/ and bench/ that may cite a rule (caches left out)."""
    return sorted(
        path
        for tree in CITING_TREES
        for path in (ROOT / tree).rglob("*")
        if path.suffix in CITING_SUFFIXES
        and path.is_file()
        and "__pycache__" not in path.parts
        and path.resolve() != _SELF
    )


def is_pending(path: Path) -> bool:
    name = path.relative_to(ROOT).as_posix()
    return any(name.startswith(pending) if pending.endswith("/") else name == pending for pending in _PENDING_FILES)


def unresolved_citations(path: Path, root: Path = ROOT) -> list[str]:
    """Every `docs/....md[#anchor]` that `path` cites and that names no file, or no heading of it."""
    problems = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        for match in CITATION.finditer(line):
            page, anchor = root / match.group(1), match.group(2)
            where = f"{path.relative_to(root).as_posix()}:{number}: {match.group(0)}"
            if not page.is_file():
                problems.append(f"{where}: no such file")
            elif anchor and anchor not in anchors(page):
                problems.append(f"{where}: no heading with anchor #{anchor} in {match.group(1)}")
    return problems


def private_citations(path: Path, root: Path = ROOT) -> list[str]:
    """Every citation in `path` of a text the repository does not hold."""
    problems = []
    markdown = path.suffix == ".md"
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        checks = list(PRIVATE)
        if markdown:
            line = MARKDOWN_LINK.sub(" ", line)  # links between docs pages are the link check's
        checks.append(BARE_PRIVATE_PAGE)
        for pattern, what in checks:
            for match in pattern.finditer(line):
                problems.append(f"{path.relative_to(root).as_posix()}:{number}: {match.group(0)!r} cites {what}")
    return problems


def test_every_cited_docs_page_and_heading_exists():
    problems = [problem for path in citing_files() for problem in unresolved_citations(path)]
    assert problems == []


def test_nothing_cites_a_text_the_repository_does_not_hold():
    problems = [problem for path in citing_files() if not is_pending(path) for problem in private_citations(path)]
    assert problems == []


def test_the_pending_files_exist_so_the_list_stays_honest():
    for pending in _PENDING_FILES:
        assert (ROOT / pending).exists(), pending


def test_the_citation_checks_catch_a_bad_anchor_a_missing_page_and_private_texts(tmp_path):
    (tmp_path / "docs" / "spec").mkdir(parents=True)
    (tmp_path / "docs" / "spec" / "scopes.md").write_text("# Scopes\n## Feature scope\n", encoding="utf-8")
    for guide in ("berrycrush.md", "cli.md"):
        (tmp_path / "docs" / guide).write_text("# Guide\n", encoding="utf-8")
    code = tmp_path / "code.py"
    code.write_text(
        "# ok (docs/spec/scopes.md#feature-scope), docs/spec/scopes.md\n"
        "# bad anchor docs/spec/scopes.md#file-scope, no page docs/spec/nowhere.md\n"
        "# semantics.md §3, seed.md, berrycrush.md §5, cli.md, issue 22, (issue 23), issue #14 §1, (#21)\n"
        "# fine: docs/berrycrush.md, docs/cli.md, row #2, color: #222\n",
        encoding="utf-8",
    )
    assert [p.split(": ", 1)[1] for p in unresolved_citations(code, tmp_path)] == [
        "docs/spec/scopes.md#file-scope: no heading with anchor #file-scope in docs/spec/scopes.md",
        "docs/spec/nowhere.md: no such file",
    ]
    found = [p.split(": ", 1)[1].split(" cites")[0] for p in private_citations(code, tmp_path)]
    assert found == [
        "'semantics.md'",
        "'seed.md'",
        "'berrycrush.md §'",
        "'issue 22'",
        "'issue 23'",
        "'issue #14'",
        "'(#21)'",
        "'§1'",
        "'cli.md'",
    ]
    page = tmp_path / "page.md"
    page.write_text("See [the guide](cli.md#x) and [berrycrush.md](berrycrush.md); not cli.md §2.\n", encoding="utf-8")
    assert [p.split(": ", 2)[1] for p in private_citations(page, tmp_path)] == [
        "'cli.md §' cites the private berrycrush.md or cli.md"
    ]
