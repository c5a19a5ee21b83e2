from textflow.util.diff import DiffOp, diff_lines, render_diff, similarity


def test_diff_lines_opcodes():
    ops = diff_lines("a\nb\nc", "a\nB\nc\nd")
    assert [op.tag for op in ops] == ["equal", "replace", "equal", "insert"]
    assert ops[1] == DiffOp("replace", 1, 1, ("b",), ("B",))


def test_diff_lines_accepts_sequences():
    assert [op.tag for op in diff_lines(["x", "y"], ["y"])] == ["delete", "equal"]


def test_render_diff():
    assert render_diff(diff_lines("a\nb", "a\nc")) == "  a\n- b\n+ c\n"
    assert render_diff([]) == ""


def test_similarity():
    assert similarity("a\nb", "a\nb") == 1.0
    assert similarity("a\nb", "a\nc") == 0.5
    assert similarity("", "") == 1.0
