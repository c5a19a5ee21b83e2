"""Rule-based sentence splitting.

A sentence ends at a run of terminal punctuation (``.``, ``!``, ``?``),
optionally followed by closing quotes or brackets, when the next non-space
character starts a new sentence (an upper-case letter, a digit or an opening
quote or bracket).
"""

from __future__ import annotations

import re

_BOUNDARY_RE = re.compile(
    r"""
    (?P<terminal>[.!?]+)              # terminal punctuation
    (?P<closing>["'\u201d\u2019)\]]*) # closing quotes or brackets stay with the sentence
    \s+
    (?=["'\u201c\u2018(\[]?[A-Z0-9])  # the next sentence starts with a capital or digit
    """,
    re.VERBOSE,
)


def _normalize(sentence: str) -> str:
    return " ".join(sentence.split())


def split_sentences(text: str) -> list[str]:
    """Split ``text`` into sentences.

    Internal whitespace (including line breaks) of each sentence is collapsed to
    single spaces. Text without terminal punctuation is one sentence; empty or
    blank text has none.

    >>> split_sentences("It rained. We stayed in!")
    ['It rained.', 'We stayed in!']
    """
    if not isinstance(text, str):
        raise TypeError(f"expected str, got {type(text).__name__}")
    sentences: list[str] = []
    start = 0
    for match in _BOUNDARY_RE.finditer(text):
        sentence = _normalize(text[start : match.end("closing")])
        if sentence:
            sentences.append(sentence)
        start = match.end()
    tail = _normalize(text[start:])
    if tail:
        sentences.append(tail)
    return sentences


def count_sentences(text: str) -> int:
    """Return the number of sentences :func:`split_sentences` finds in ``text``."""
    return len(split_sentences(text))
