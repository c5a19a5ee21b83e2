import pytest

from textflow.lex import Token, TokenKind, tokenize, words


def test_tokenize_kinds():
    tokens = tokenize("Hi, 3 cats!")
    assert [(t.kind, t.text) for t in tokens] == [
        (TokenKind.WORD, "Hi"),
        (TokenKind.PUNCT, ","),
        (TokenKind.NUMBER, "3"),
        (TokenKind.WORD, "cats"),
        (TokenKind.PUNCT, "!"),
    ]


def test_tokenize_spans_roundtrip_with_whitespace():
    text = "one  two\nthree."
    tokens = tokenize(text, keep_whitespace=True)
    assert "".join(t.text for t in tokens) == text
    assert all(text[t.start : t.end] == t.text for t in tokens)


def test_contractions_and_hyphens_stay_together():
    assert words("Don't re-enter the well-known hall") == ["Don't", "re-enter", "the", "well-known", "hall"]


def test_numbers_with_separators():
    tokens = tokenize("pi is 3.14 and 1,000 people")
    assert [t.text for t in tokens if t.kind is TokenKind.NUMBER] == ["3.14", "1,000"]


def test_words_lower():
    assert words("The Cat sat", lower=True) == ["the", "cat", "sat"]


def test_token_span_is_validated():
    with pytest.raises(ValueError):
        Token(TokenKind.WORD, "abc", 0, 2)


def test_tokenize_rejects_non_text():
    with pytest.raises(TypeError):
        tokenize(42)  # type: ignore[arg-type]
