from datetime import date
from decimal import Decimal

import pytest

from ledgerkit.reports.formatting import format_amount, format_date, format_percent, render_table


def test_format_amount_uses_currency_places():
    assert format_amount(Decimal("1234.5"), "USD") == "1234.50 USD"
    assert format_amount(Decimal("1234.5"), "JPY") == "1234 JPY"
    assert format_amount(Decimal("-0.001")) == "0.00"
    assert format_amount(Decimal("2.5"), places=0) == "2"


def test_format_amount_negative():
    assert format_amount(Decimal("-1234.5"), "EUR") == "-1234.50 EUR"


def test_format_percent_and_date():
    assert format_percent(Decimal("0.1234")) == "12.3%"
    assert format_date(date(2024, 2, 29)) == "2024-02-29"
    assert format_date(None) == ""


def test_render_table_aligns_numeric_columns():
    text = render_table(["Name", "Amount"], [["a", "1.00"], ["long name", "100.00"]])
    assert text.splitlines() == [
        "Name       Amount",
        "---------  ------",
        "a            1.00",
        "long name  100.00",
    ]


def test_render_table_checks_row_width():
    with pytest.raises(ValueError, match="expected 2"):
        render_table(["a", "b"], [["only one"]])
