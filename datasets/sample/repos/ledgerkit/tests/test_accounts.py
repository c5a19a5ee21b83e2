import pytest

from ledgerkit.core.account import (
    Account,
    AccountType,
    ChartOfAccounts,
    account_type_for,
    ancestors,
    truncate,
)
from ledgerkit.core.errors import UnknownAccountError


def test_type_is_inferred_from_root():
    assert account_type_for("Assets:Bank") is AccountType.ASSET
    assert account_type_for("revenue:Sales") is AccountType.INCOME
    with pytest.raises(ValueError, match="cannot infer"):
        account_type_for("Stuff:Things")


def test_normal_balance():
    assert AccountType.EXPENSE.normal_balance == "debit"
    assert AccountType.LIABILITY.normal_balance == "credit"


def test_account_parts():
    account = Account.named("Assets : Bank : Checking")
    assert account.name == "Assets:Bank:Checking"
    assert account.depth == 3
    assert account.leaf == "Checking"
    assert account.parent == "Assets:Bank"
    assert Account.named("Assets").parent is None


def test_invalid_names():
    with pytest.raises(ValueError):
        Account.named("Assets::Bank")


def test_ancestors_and_truncate():
    assert ancestors("A:B:C") == ["A", "A:B"]
    assert truncate("Expenses:Food:Coffee", 2) == "Expenses:Food"
    assert truncate("Expenses", 3) == "Expenses"


def test_chart_children_and_lookup():
    chart = ChartOfAccounts.from_names(
        ["Assets:Bank", "Assets:Bank:Checking", "Assets:Cash", "Assets:Bank:Savings"]
    )
    assert [a.name for a in chart.children("Assets:Bank")] == ["Assets:Bank:Checking", "Assets:Bank:Savings"]
    assert len(chart.descendants("Assets:Bank")) == 3
    with pytest.raises(UnknownAccountError, match="unknown account 'Income'"):
        chart.get("Income")


def test_chart_rejects_conflicting_types():
    chart = ChartOfAccounts()
    chart.add("Assets:Loan")
    with pytest.raises(ValueError, match="already exists"):
        chart.add("Assets:Loan", AccountType.LIABILITY)
