"""Shared fixtures: a small journal used by the report and CLI tests."""

import pytest

from ledgerkit.io.ledger_text import parse_ledger

SAMPLE_LEDGER = """\
; Sample books for January and February 2024
2024-01-01 Opening balance
    Assets:Bank:Checking        1000.00 USD
    Equity:Opening

2024-01-05 * Blue Bottle | Coffee with client   ; :meeting:
    Expenses:Food:Coffee           4.50 USD
    Assets:Bank:Checking

2024-01-15 Groceries
    Expenses:Food:Groceries       95.50 USD
    Liabilities:CreditCard

2024-01-31 ACME Corp | January salary
    Assets:Bank:Checking        3000.00 USD
    Income:Salary

2024-02-01 Rent
    Expenses:Housing:Rent       1200.00 USD
    Assets:Bank:Checking

2024-02-10 Pay credit card
    Liabilities:CreditCard        95.50 USD
    Assets:Bank:Checking

2024-02-20 Consulting
    Assets:Bank:Checking         500.00 USD
    Income:Consulting
"""


@pytest.fixture
def sample_text() -> str:
    return SAMPLE_LEDGER


@pytest.fixture
def journal():
    return parse_ledger(SAMPLE_LEDGER)


@pytest.fixture
def ledger_file(tmp_path):
    path = tmp_path / "books.ledger"
    path.write_text(SAMPLE_LEDGER, encoding="utf-8")
    return path
