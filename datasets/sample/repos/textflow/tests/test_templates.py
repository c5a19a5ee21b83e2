import pytest

from textflow.templates import FILTERS, Template, TemplateError, TemplateSyntaxError, UndefinedError, render_string


def test_variables_and_paths():
    out = render_string("Hi {{ user.name }} ({{ items.1 }})", user={"name": "Ann"}, items=["a", "b"])
    assert out == "Hi Ann (b)"


def test_undefined_renders_empty_unless_strict():
    assert render_string("[{{ missing }}]") == "[]"
    with pytest.raises(UndefinedError, match="'user.name' is undefined"):
        Template("{{ user.name }}", strict=True).render(user={})


def test_filters_chain_with_arguments():
    out = render_string('{{ names|join(" & ")|upper }} {{ nothing|default("n/a") }}', names=["a", "b"])
    assert out == "A & B n/a"


def test_if_elif_else():
    tpl = Template("{% if n > 10 %}big{% elif n > 0 and not quiet %}small{% else %}none{% endif %}")
    assert [tpl.render(n=v, quiet=False) for v in (20, 5, 0)] == ["big", "small", "none"]
    assert tpl.render(n=5, quiet=True) == "none"


def test_for_loop_with_loop_variable_and_else():
    tpl = Template("{% for k, v in data %}{{ loop.index }}.{{ k }}={{ v }}{% if not loop.last %}, {% endif %}{% else %}empty{% endfor %}")
    assert tpl.render(data={"a": 1, "b": 2}) == "1.a=1, 2.b=2"
    assert tpl.render(data=[]) == "empty"


def test_autoescape_and_safe():
    tpl = Template("{{ html }} {{ html|safe }}", autoescape=True)
    assert tpl.render(html="<b>") == "&lt;b&gt; <b>"


def test_comments_are_dropped():
    assert render_string("a{# note #}b") == "ab"


def test_unknown_filter():
    with pytest.raises(TemplateError, match="unknown filter 'shout'"):
        render_string("{{ x|shout }}", x=1)


def test_syntax_errors_report_line():
    with pytest.raises(TemplateSyntaxError, match="line 2: unclosed variable tag"):
        Template("ok\n{{ oops")
    with pytest.raises(TemplateSyntaxError, match="missing 'endif'"):
        Template("{% if x %}yes")


def test_builtin_filters():
    assert FILTERS["title"]("hello world") == "Hello World"
    assert FILTERS["slugify"]("Hello World!") == "hello-world"
    assert FILTERS["length"]([1, 2, 3]) == 3
    assert FILTERS["first"]("abc") == "a" and FILTERS["last"]("abc") == "c"
