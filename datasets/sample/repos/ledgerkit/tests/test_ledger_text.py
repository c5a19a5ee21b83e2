from datetime import date
from decimal import Decimal

import pytest

from ledgerkit.core.errors import ParseError
from ledgerkit.io.ledger_text import format_journal, parse_entries, parse_ledger


def test_parse_header_payee_tags(journal):
    coffee = journal.entries[1]
    assert coffee.date == date(2024, 1, 5)
    assert coffee.payee == "Blue Bottle"
    assert coffee.description == "Coffee with client"
    assert coffee.tags == frozenset({"meeting"})


def test_elided_amount_is_inferred(journal):
    opening = journal.entries[0]
    assert opening.postings[1].amount.amount == Decimal("-1000.00")


def test_round_trip(sample_text):
    journal = parse_ledger(sample_text)
    again = parse_ledger(format_journal(journal))
    assert [e.postings for e in again] == [e.postings for e in journal]


def test_two_elided_amounts_is_an_error():
    text = "2024-01-01 x\n    Assets:A\n    Assets:B\n"
    with pytest.raises(ParseError, match="line 3: only one posting"):
        parse_entries(text)


def test_unbalanced_entry_reports_header_line():
    text = "\n2024-01-01 x\n    Assets:A   1 USD\n    Assets:B   -2 USD\n"
    with pytest.raises(ParseError, match="line 2: .*does not balance"):
        parse_entries(text, source=None)


def test_bad_header_names_source_and_line():
    with pytest.raises(ParseError) as info:
        parse_entries("hello\n", source="books.ledger")
    assert str(info.value) == "books.ledger:1: expected an entry header, got 'hello'"


def test_posting_memo_and_comments():
    text = (
        "# file comment\n"
        "2024-01-01 Lunch\n"
        "    ; a comment inside the entry\n"
        "    Expenses:Food    12 EUR   ; team lunch\n"
        "    Assets:Cash\n"
    )
    (entry,) = parse_entries(text)
    assert entry.postings[0].memo == "team lunch"
    assert entry.postings[1].amount.currency == "EUR"
