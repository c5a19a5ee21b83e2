from datetime import date

from ledgerkit.core.account import ChartOfAccounts
from ledgerkit.core.journal import Entry, Posting
from ledgerkit.core.money import Money
from ledgerkit.rules.validation import (
    ERROR,
    WARNING,
    date_range,
    has_errors,
    known_accounts,
    validate,
)


def make(description="x", debit="Expenses:Food", credit="Assets:Cash", amounts=(5, -5), day=date(2024, 1, 1)):
    return Entry(day, description, [Posting(debit, Money(amounts[0], "USD")), Posting(credit, Money(amounts[1], "USD"))])


def test_clean_entries_have_no_issues(journal):
    assert validate(journal) == []


def test_issues_are_sorted_errors_first():
    issues = validate([make(description=""), make(amounts=(5, -4))])
    assert [i.severity for i in issues] == [ERROR, WARNING]
    assert has_errors(issues)
    assert "does not balance" in issues[0].message


def test_unknown_root_is_an_error():
    (issue,) = validate([make(debit="Stuff:Things")])
    assert "cannot infer the type" in str(issue)


def test_known_accounts_and_date_range():
    chart = ChartOfAccounts.from_names(["Assets:Cash"])
    checks = [known_accounts(chart), date_range(date(2024, 2, 1), None)]
    issues = validate([make()], checks)
    assert [i.message for i in issues] == ["unknown account 'Expenses:Food'", "date 2024-01-01 is outside the period"]
