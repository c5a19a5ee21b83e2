from datetime import date
from decimal import Decimal

import pytest

from ledgerkit.core.errors import UnbalancedEntryError
from ledgerkit.core.journal import Entry, Journal, Posting
from ledgerkit.core.money import Money


def entry(day, amount, debit="Expenses:Misc", credit="Assets:Cash", currency="USD"):
    return Entry(
        day,
        "test",
        [Posting(debit, Money(amount, currency)), Posting(credit, Money(-Decimal(amount), currency))],
    )


def test_unbalanced_entry_is_rejected():
    bad = Entry(date(2024, 1, 1), "oops", [Posting("A:B", Money(1, "USD")), Posting("C:D", Money(-2, "USD"))])
    with pytest.raises(UnbalancedEntryError, match="off by -1 USD"):
        Journal([bad])


def test_single_posting_is_rejected():
    with pytest.raises(UnbalancedEntryError, match="at least two"):
        Entry(date(2024, 1, 1), "x", [Posting("A", Money(0, "USD"))]).check_balanced()


def test_entries_are_kept_in_date_order():
    journal = Journal([entry(date(2024, 3, 1), 1), entry(date(2024, 1, 1), 2)])
    journal.add(entry(date(2024, 1, 1), 3))
    assert [e.postings[0].amount.amount for e in journal] == [2, 3, 1]


def test_between_is_inclusive():
    journal = Journal([entry(date(2024, 1, d), d) for d in (1, 2, 3)])
    assert len(journal.between(date(2024, 1, 2), date(2024, 1, 3))) == 2


def test_balances_and_balance(journal):
    balances = journal.balances()
    assert balances["Assets:Bank:Checking"] == {"USD": Decimal("3200.00")}
    assert balances["Liabilities:CreditCard"] == {"USD": Decimal("0.00")}
    assert journal.balance("Expenses:Food", "USD") == Decimal("100.00")
    assert journal.balance("Assets:Bank:Checking", "USD", as_of=date(2024, 1, 31)) == Decimal("3995.50")


def test_postings_filter_by_account(journal):
    found = [p.amount.amount for _, p in journal.postings("Expenses:Food")]
    assert found == [Decimal("4.50"), Decimal("95.50")]
