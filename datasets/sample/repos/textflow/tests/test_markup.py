from textflow.markup import parse, parse_inline, text_content, walk
from textflow.markup import nodes as n


def test_headings_and_paragraphs():
    doc = parse("# Title #\n\nFirst line\nsecond line\n\n### Third")
    assert doc.children == [
        n.Heading(1, [n.Text("Title")]),
        n.Paragraph([n.Text("First line\nsecond line")]),
        n.Heading(3, [n.Text("Third")]),
    ]


def test_emphasis_strong_and_code():
    assert parse_inline("a *b* **c** `d*e`") == [
        n.Text("a "),
        n.Emphasis([n.Text("b")]),
        n.Text(" "),
        n.Strong([n.Text("c")]),
        n.Text(" "),
        n.Code("d*e"),
    ]


def test_intraword_underscores_are_literal():
    assert parse_inline("snake_case_name and _em_") == [n.Text("snake_case_name and "), n.Emphasis([n.Text("em")])]


def test_unmatched_delimiters_are_literal():
    assert parse_inline("2 * 3 and **open") == [n.Text("2 * 3 and **open")]


def test_links_with_title():
    assert parse_inline('see [the *docs*](https://x.org/a "Docs")') == [
        n.Text("see "),
        n.Link("https://x.org/a", [n.Text("the "), n.Emphasis([n.Text("docs")])], "Docs"),
    ]


def test_backslash_escapes():
    assert parse_inline(r"\*not em\* \[x]") == [n.Text("*not em* [x]")]


def test_hard_line_break():
    assert parse_inline("one  \ntwo") == [n.Text("one"), n.LineBreak(), n.Text("two")]


def test_nested_lists():
    doc = parse("- a\n- b\n  - c\n\n1. x\n2. y")
    outer, ordered = doc.children
    assert isinstance(outer, n.ListBlock) and not outer.ordered
    assert len(outer.items) == 2
    nested = outer.items[1].children[1]
    assert isinstance(nested, n.ListBlock)
    assert text_content(nested) == "c"
    assert isinstance(ordered, n.ListBlock) and ordered.ordered and len(ordered.items) == 2


def test_fenced_code_and_quote():
    doc = parse("> quoted *text*\n\n```py\nx = 1\n```\n\n---")
    quote, code, rule = doc.children
    assert isinstance(quote, n.BlockQuote)
    assert text_content(quote) == "quoted text"
    assert code == n.CodeBlock("x = 1\n", "py")
    assert isinstance(rule, n.ThematicBreak)


def test_walk_visits_all_nodes():
    doc = parse("# A\n\nb *c*")
    kinds = [type(node).__name__ for node in walk(doc)]
    assert kinds == ["Document", "Heading", "Text", "Paragraph", "Text", "Emphasis", "Text"]
