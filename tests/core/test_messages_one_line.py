"""Every error is one line in file order (docs/spec/cli.md#error-lines), whatever the file holds: a quoted triple-quoted
block is cut at its first line break, and errors of different stages come out sorted."""

from __future__ import annotations

from scenario_tui.cli.main import main

BLOCK_AS_STATUS = '''\
scenario: s
  when I log in
    call ^login
    assert status """200
    extract $.token => token
    """
'''


def test_an_error_quoting_a_block_is_one_line_and_errors_come_in_file_order(write_scenario, capsys):
    # Found by the BerryCrush fuzz: the status error quoted the block's text with its line breaks.
    path = write_scenario(BLOCK_AS_STATUS)
    assert main(["check", str(path)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(":")[1:3] for line in lines] == [["3", "10"], ["4", "19"]]
    assert lines[1].endswith("""got '\"\"\"200…'""")


def test_any_syntax_error_quoting_a_line_break_stays_one_line(write_scenario, capsys):
    # Found by the fuzz budget too: 'equals' quoted what followed it, a block across lines.
    path = write_scenario('scenario: s\n  when I look\n    call ^x\n    if $.name equals "a" """\n      b\n      """\n')
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert all(line.startswith(str(path)) for line in err.splitlines())
    assert "⏎" in err
