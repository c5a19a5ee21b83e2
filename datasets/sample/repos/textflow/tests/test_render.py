import pytest

from textflow.markup import nodes as n
from textflow.markup import parse
from textflow.render import Markup, escape_html, is_safe_url, render_html, render_plain


def test_render_html_document():
    html = render_html(parse("# Hi\n\nSome *em* & <tags>.\n\n- a\n- b"))
    assert html == (
        "<h1>Hi</h1>\n"
        "<p>Some <em>em</em> &amp; &lt;tags&gt;.</p>\n"
        "<ul>\n<li>a</li>\n<li>b</li>\n</ul>\n"
    )


def test_render_html_code_block_and_ordered_start():
    html = render_html(parse("```sh\necho '<x>'\n```\n\n3. c\n4. d"))
    assert html == (
        '<pre><code class="language-sh">echo \'&lt;x&gt;\'\n</code></pre>\n'
        '<ol start="3">\n<li>c</li>\n<li>d</li>\n</ol>\n'
    )


def test_render_html_links_are_sanitized():
    assert render_html(parse("[x](javascript:alert)")) == '<p><a href="#">x</a></p>\n'
    assert render_html(parse('[x](https://a.b/?q="1")')) == '<p><a href="https://a.b/?q=&quot;1&quot;">x</a></p>\n'


def test_render_html_xhtml_void_elements():
    assert render_html(parse("a  \nb\n\n***"), xhtml=True) == "<p>a<br />\nb</p>\n<hr />\n"


def test_render_html_unknown_node():
    class Odd(n.Node):
        pass

    with pytest.raises(TypeError, match="cannot render node of type Odd"):
        render_html(n.Document([Odd()]))


def test_render_plain():
    text = render_plain(parse("# Title\n\nSee [docs](http://d.io) and **bold**.\n\n1. one\n2. two\n\n> quote"))
    assert text == "Title\n=====\n\nSee docs (http://d.io) and bold.\n\n1. one\n2. two\n\n> quote\n"


def test_render_plain_wraps_paragraphs():
    text = render_plain(parse("alpha beta gamma delta"), width=11)
    assert text == "alpha beta\ngamma delta\n"


def test_escape_html():
    assert escape_html("<a href='x'>&</a>") == "&lt;a href=&#x27;x&#x27;&gt;&amp;&lt;/a&gt;"
    assert escape_html('"q"', quote=False) == '"q"'
    assert escape_html(Markup("<b>")) == "<b>"


def test_is_safe_url():
    assert is_safe_url("https://example.com")
    assert is_safe_url("/relative/path")
    assert not is_safe_url("JavaScript:alert(1)")
    assert not is_safe_url(" java\tscript:alert(1)")
