"""Descriptive statistics about a text."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass

from textflow.lex.sentences import split_sentences
from textflow.lex.tokenizer import words

#: A small English stop-word list for :func:`top_words`.
STOPWORDS = frozenset(
    """a an and are as at be but by for from has have he her his i in is it its
    of on or our she so that the their them they this to was we were will with
    you your""".split()
)


@dataclass(frozen=True)
class TextStats:
    """Counts computed by :func:`analyze`."""

    characters: int
    words: int
    sentences: int
    unique_words: int
    average_word_length: float

    def as_dict(self) -> dict[str, int | float]:
        """The statistics as a plain dictionary (for JSON output)."""
        return asdict(self)


def analyze(text: str) -> TextStats:
    """Count characters, words, sentences and distinct words of ``text``.

    ``characters`` excludes whitespace; ``average_word_length`` is rounded to
    two decimals (``0.0`` for a text without words).
    """
    found = words(text, lower=True)
    letters = sum(len(w) for w in found)
    return TextStats(
        characters=sum(1 for ch in text if not ch.isspace()),
        words=len(found),
        sentences=len(split_sentences(text)),
        unique_words=len(set(found)),
        average_word_length=round(letters / len(found), 2) if found else 0.0,
    )


def word_frequencies(
    text: str, *, ignore_case: bool = True, stopwords: Iterable[str] | None = None
) -> Counter[str]:
    """Count how often each word occurs, optionally ignoring ``stopwords``."""
    ignored = {w.lower() if ignore_case else w for w in stopwords or ()}
    counts: Counter[str] = Counter()
    for word in words(text, lower=ignore_case):
        if word not in ignored:
            counts[word] += 1
    return counts


def top_words(text: str, n: int = 10, *, stopwords: Iterable[str] | None = STOPWORDS) -> list[tuple[str, int]]:
    """The ``n`` most frequent words (lower-cased), ties broken alphabetically."""
    if n < 0:
        raise ValueError(f"n must not be negative, got {n}")
    counts = word_frequencies(text, stopwords=stopwords)
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:n]
