import pytest

from textflow.util.slug import slugify, unique_slug


def test_slugify_basic():
    assert slugify("Hello, World!") == "hello-world"


def test_slugify_collapses_and_strips_separators():
    assert slugify("  --Many   spaces & symbols--  ") == "many-spaces-symbols"


def test_slugify_keeps_digits():
    assert slugify("Python 3.11 release") == "python-3-11-release"


def test_slugify_rejects_non_text():
    with pytest.raises(TypeError):
        slugify(None)  # type: ignore[arg-type]


def test_unique_slug():
    assert unique_slug("Intro", set()) == "intro"
    assert unique_slug("Intro", {"intro", "intro-2"}) == "intro-3"
