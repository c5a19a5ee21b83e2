from datetime import date
from decimal import Decimal

from ledgerkit.reports.income_statement import income_statement, render_income_statement


def test_totals_for_january(journal):
    stmt = income_statement(journal, date(2024, 1, 1), date(2024, 1, 31))
    assert stmt.income == [("Income:Salary", Decimal("3000.00"))]
    assert stmt.total_expenses == Decimal("100.00")
    assert stmt.net_income == Decimal("2900.00")


def test_period_is_inclusive(journal):
    stmt = income_statement(journal, date(2024, 2, 1), date(2024, 2, 20))
    assert stmt.total_income == Decimal("500.00")
    assert stmt.expenses == [("Expenses:Housing:Rent", Decimal("1200.00"))]
    assert stmt.net_income == Decimal("-700.00")


def test_other_currency_is_empty(journal):
    stmt = income_statement(journal, date(2024, 1, 1), date(2024, 12, 31), currency="EUR")
    assert stmt.income == [] and stmt.expenses == []


def test_render(journal):
    text = render_income_statement(income_statement(journal, date(2024, 1, 1), date(2024, 2, 29)))
    assert text.startswith("Income statement 2024-01-01 to 2024-02-29")
    assert "Net income" in text and "2200.00 USD" in text
