"""The income statement (profit and loss) over a period."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from ledgerkit.core.account import AccountType, account_type_for
from ledgerkit.core.journal import Journal
from ledgerkit.reports.formatting import format_amount, render_table

Line = tuple[str, Decimal]


@dataclass
class IncomeStatement:
    """Income and expense lines of one currency for ``start``..``end`` (inclusive).

    Income lines are shown positive (the natural credit balance negated).
    """

    start: date
    end: date
    currency: str
    income: list[Line] = field(default_factory=list)
    expenses: list[Line] = field(default_factory=list)

    @property
    def total_income(self) -> Decimal:
        return sum((amount for _, amount in self.income), Decimal(0))

    @property
    def total_expenses(self) -> Decimal:
        return sum((amount for _, amount in self.expenses), Decimal(0))

    @property
    def net_income(self) -> Decimal:
        """Income minus expenses; negative for a loss."""
        return self.total_income - self.total_expenses


def income_statement(
    journal: Journal, start: date, end: date, currency: str = "USD"
) -> IncomeStatement:
    """Sums income and expense accounts over ``start``..``end`` in ``currency``.

    Accounts whose type cannot be inferred from their name are ignored, as are
    accounts with a zero total for the period.
    """
    statement = IncomeStatement(start, end, currency)
    for account, per_currency in journal.balances(as_of=end, start=start).items():
        amount = per_currency.get(currency, Decimal(0))
        if amount == 0:
            continue
        try:
            kind = account_type_for(account)
        except ValueError:
            continue
        if kind is AccountType.INCOME:
            statement.income.append((account, -amount))
        elif kind is AccountType.EXPENSE:
            statement.expenses.append((account, amount))
    return statement


def render_income_statement(statement: IncomeStatement) -> str:
    """Renders the statement as a text table with section totals and the net result."""
    cur = statement.currency
    rows: list[list[str]] = [["Income", ""]]
    rows += [[f"  {account}", format_amount(amount, cur)] for account, amount in statement.income]
    rows.append(["Total income", format_amount(statement.total_income, cur)])
    rows.append(["Expenses", ""])
    rows += [[f"  {account}", format_amount(amount, cur)] for account, amount in statement.expenses]
    rows.append(["Total expenses", format_amount(statement.total_expenses, cur)])
    rows.append(["Net income", format_amount(statement.net_income, cur)])
    title = f"Income statement {statement.start.isoformat()} to {statement.end.isoformat()}"
    return title + "\n\n" + render_table(["Account", "Amount"], rows, align=["l", "r"])
