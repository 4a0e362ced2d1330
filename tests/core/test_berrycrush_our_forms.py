"""Our forms in a BerryCrush file (docs/spec/berrycrush.md#our-forms-in-a-berrycrush-file): they
run, and `check --strict` warns once per file that BerryCrush itself cannot read them."""

from __future__ import annotations

import textwrap

from scenario_tui.cli.main import main

BERRYCRUSH_WITH_OURS = textwrap.dedent(
    """\
    scenario: sign in
      given I sign in
        call using auth ^login
        extract $.token => token
      when: POST /form/login
        form:
          user: ann
          password: secret
      then: cookie session exists
      extract: session from cookie session
      extract: csrf from regex "name=\\"csrf\\" value=\\"([^\\"]+)\\""
    """
)


def check(capsys, tmp_path, text: str, *flags: str) -> tuple[int, list[str]]:
    path = tmp_path / "f.scenario"
    path.write_text(text, encoding="utf-8")
    status = main(["check", *flags, str(path)])
    out, err = capsys.readouterr()
    return status, [line for line in (out + err).splitlines() if "dialect" in line]


def test_our_forms_in_a_berrycrush_file_warn_once_under_strict(capsys, tmp_path):
    status, lines = check(capsys, tmp_path, BERRYCRUSH_WITH_OURS, "--strict")
    assert status == 2
    assert len(lines) == 1
    assert lines[0].endswith(
        "f.scenario:5:3: error: this file is written in BerryCrush's dialect, but `form:` on this line "
        "(and 3 more lines) is a form only scenario-tui reads: BerryCrush itself cannot run the file as written"
    )


def test_our_forms_in_a_berrycrush_file_say_nothing_without_strict(capsys, tmp_path):
    path = tmp_path / "f.scenario"
    path.write_text(BERRYCRUSH_WITH_OURS, encoding="utf-8")
    main(["check", str(path)])
    out, err = capsys.readouterr()
    assert "dialect" not in out + err


def test_our_forms_in_our_own_dialect_are_no_warning(capsys, tmp_path):
    ours = "scenario: s\n  when: POST /form/login\n    form:\n      user: ann\n  then: cookie session exists\n"
    status, lines = check(capsys, tmp_path, ours, "--strict")
    assert lines == []


def test_our_forms_in_a_fragment_file_beside_a_berrycrush_file_are_that_files_own(capsys, tmp_path):
    # the .fragment file is in our dialect; the scenario file in BerryCrush's: nothing to say
    (tmp_path / "fragments").mkdir()
    (tmp_path / "fragments" / "token.fragment").write_text(
        "fragment: token\n  when: POST /oauth/token\n    form:\n      grant_type: client_credentials\n"
    )
    text = "scenario: s\n  given the API\n    assert status 200\n"
    status, lines = check(capsys, tmp_path, text, "--strict")
    assert lines == []
