"""A regular-expression tokenizer for natural-language text.

Words are runs of letters; an apostrophe or hyphen *between* letters keeps a
word together (``don't``, ``well-known``). Numbers may contain ``.`` or ``,``
group separators (``3.14``, ``1,000``). Every other non-space character is a
punctuation token of its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from textflow.lex.tokens import Token, TokenKind

_TOKEN_RE = re.compile(
    r"""
      (?P<number>\d+(?:[.,]\d+)*)
    | (?P<word>[^\W\d_]+(?:['\u2019-][^\W\d_]+)*)
    | (?P<space>\s+)
    | (?P<punct>\S)
    """,
    re.VERBOSE,
)

_KINDS = {
    "number": TokenKind.NUMBER,
    "word": TokenKind.WORD,
    "space": TokenKind.SPACE,
    "punct": TokenKind.PUNCT,
}


def iter_tokens(text: str) -> Iterator[Token]:
    """Yield every token of ``text``, whitespace included, in order."""
    if not isinstance(text, str):
        raise TypeError(f"expected str, got {type(text).__name__}")
    for match in _TOKEN_RE.finditer(text):
        group = match.lastgroup
        assert group is not None
        yield Token(_KINDS[group], match.group(), match.start(), match.end())


def tokenize(text: str, *, keep_whitespace: bool = False) -> list[Token]:
    """Split ``text`` into tokens.

    Whitespace tokens are dropped unless ``keep_whitespace`` is true, in which
    case joining the token texts gives back ``text`` exactly.
    """
    return [t for t in iter_tokens(text) if keep_whitespace or not t.is_space]


def words(text: str, *, lower: bool = False) -> list[str]:
    """Return the word tokens of ``text`` (numbers and punctuation excluded)."""
    result = [t.text for t in iter_tokens(text) if t.is_word]
    return [w.lower() for w in result] if lower else result
