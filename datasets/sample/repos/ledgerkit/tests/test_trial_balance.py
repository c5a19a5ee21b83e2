from datetime import date
from decimal import Decimal

from ledgerkit.reports.trial_balance import render_trial_balance, trial_balance


def rows_by_account(report):
    return {row.account: row for row in report.rows}


def test_debits_and_credits(journal):
    rows = rows_by_account(trial_balance(journal))
    assert rows["Assets:Bank:Checking"].debit == Decimal("3200.00")
    assert rows["Income:Salary"].credit == Decimal("3000.00")
    assert rows["Income:Salary"].balance == Decimal("-3000.00")


def test_trial_balance_balances(journal):
    report = trial_balance(journal)
    assert report.is_balanced()
    assert report.totals() == {"USD": (Decimal("4500.00"), Decimal("4500.00"))}


def test_as_of_limits_entries(journal):
    rows = rows_by_account(trial_balance(journal, as_of=date(2024, 1, 31)))
    assert "Expenses:Housing:Rent" not in rows
    assert rows["Liabilities:CreditCard"].credit == Decimal("95.50")


def test_render_has_totals(journal):
    text = render_trial_balance(trial_balance(journal, as_of=date(2024, 2, 29)))
    assert text.startswith("Trial balance as of 2024-02-29")
    assert "Total USD" in text
    assert "4500.00 USD" in text
