from textflow.lex import count_sentences, split_sentences


def test_split_simple():
    assert split_sentences("It rained. We stayed in! Did you?") == ["It rained.", "We stayed in!", "Did you?"]


def test_closing_quote_stays_with_sentence():
    assert split_sentences('He said "Stop!" Then he left.') == ['He said "Stop!"', "Then he left."]


def test_lowercase_continuation_does_not_split():
    assert split_sentences("Wait... then it happened.") == ["Wait... then it happened."]


def test_whitespace_is_collapsed():
    assert split_sentences("  A line\n  broken here.  Next one.\n") == ["A line broken here.", "Next one."]


def test_empty_text_has_no_sentences():
    assert split_sentences("") == []
    assert count_sentences("   \n ") == 0


def test_text_without_terminal_punctuation():
    assert split_sentences("no punctuation here") == ["no punctuation here"]
