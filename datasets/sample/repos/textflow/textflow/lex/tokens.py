"""Token types produced by :mod:`textflow.lex.tokenizer`."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class TokenKind(str, Enum):
    """The category of a :class:`Token`."""

    WORD = "word"
    NUMBER = "number"
    PUNCT = "punct"
    SPACE = "space"


@dataclass(frozen=True, slots=True)
class Token:
    """One token of a text, with its half-open character span ``[start, end)``."""

    kind: TokenKind
    text: str
    start: int
    end: int

    def __post_init__(self) -> None:
        if self.start < 0 or self.end < self.start:
            raise ValueError(f"invalid token span [{self.start}, {self.end})")
        if self.end - self.start != len(self.text):
            raise ValueError(
                f"token text {self.text!r} does not match its span [{self.start}, {self.end})"
            )

    @property
    def is_word(self) -> bool:
        """True for word tokens (letters, possibly joined by apostrophes or hyphens)."""
        return self.kind is TokenKind.WORD

    @property
    def is_space(self) -> bool:
        """True for whitespace tokens."""
        return self.kind is TokenKind.SPACE
