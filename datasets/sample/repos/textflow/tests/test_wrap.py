import pytest

from textflow.util.wrap import dedent, fill, indent, shorten, wrap


def test_wrap_greedy():
    assert wrap("the quick brown fox jumps over the lazy dog", 10) == [
        "the quick",
        "brown fox",
        "jumps over",
        "the lazy",
        "dog",
    ]


def test_wrap_splits_long_words():
    assert wrap("a abcdefghij b", 4) == ["a", "abcd", "efgh", "ij b"]


def test_fill_collapses_whitespace():
    assert fill("one\ntwo   three", 80) == "one two three"


def test_wrap_rejects_bad_width():
    with pytest.raises(ValueError, match="width must be at least 1, got 0"):
        wrap("text", 0)


def test_shorten():
    assert shorten("Hello  world, how are you?", 18) == "Hello world [...]"
    assert shorten("short", 10) == "short"


def test_indent_and_dedent():
    assert indent("a\n\nb\n", "> ") == "> a\n\n> b\n"
    assert dedent("    x\n      y\n") == "x\n  y\n"
