import pytest

from textflow.util.stats import TextStats, analyze, top_words, word_frequencies


def test_analyze_counts():
    stats = analyze("Hello world. Hello again!")
    assert stats == TextStats(characters=22, words=4, sentences=2, unique_words=3, average_word_length=5.0)


def test_analyze_empty_text():
    assert analyze("").as_dict() == {
        "characters": 0,
        "words": 0,
        "sentences": 0,
        "unique_words": 0,
        "average_word_length": 0.0,
    }


def test_word_frequencies_with_stopwords():
    counts = word_frequencies("The cat and THE hat", stopwords=["the"])
    assert counts == {"cat": 1, "and": 1, "hat": 1}


def test_top_words_breaks_ties_alphabetically():
    assert top_words("the cat and the hat and the cat", 2) == [("cat", 2), ("hat", 1)]


def test_top_words_rejects_negative():
    with pytest.raises(ValueError):
        top_words("x", -1)
