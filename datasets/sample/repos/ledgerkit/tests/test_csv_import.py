from datetime import date
from decimal import Decimal

import pytest

from ledgerkit.core.errors import ParseError
from ledgerkit.io.csv_import import CsvFormat, import_csv, parse_amount, read_csv_file

STATEMENT = """date,description,amount
2024-03-01,STARBUCKS 1234,-4.75
2024-03-02,Salary ACME,"2,500.00"
,,
2024-03-03,Refund,(10.00)
"""


def test_parse_amount_forms():
    assert parse_amount("1,234.56") == Decimal("1234.56")
    assert parse_amount("(12.00)") == Decimal("-12.00")
    assert parse_amount("-$5") == Decimal("-5")
    assert parse_amount("+3") == Decimal("3")
    with pytest.raises(ValueError):
        parse_amount("")


def test_import_rows_become_balanced_entries():
    entries = import_csv(STATEMENT, "Assets:Bank:Checking")
    assert len(entries) == 3
    first = entries[0]
    assert first.date == date(2024, 3, 1)
    assert first.postings[0].amount.amount == Decimal("-4.75")
    assert first.postings[1].account == "Expenses:Uncategorized"
    assert all(e.is_balanced() for e in entries)
    assert entries[2].postings[0].amount.amount == Decimal("-10.00")


def test_custom_format():
    text = "Datum;Text;Betrag;Empfaenger\n05.03.2024;Miete;-900;Hausverwaltung\n"
    fmt = CsvFormat("Datum", "Text", "Betrag", payee_column="Empfaenger", date_format="%d.%m.%Y", delimiter=";", currency="EUR")
    (entry,) = import_csv(text, "Assets:Bank", "Expenses:Rent", fmt)
    assert entry.payee == "Hausverwaltung"
    assert entry.postings[0].amount.currency == "EUR"
    assert entry.postings[1].account == "Expenses:Rent"


def test_missing_column():
    with pytest.raises(ParseError, match="line 1: missing column 'amount'"):
        import_csv("date,description\n2024-01-01,x\n", "Assets:Bank")


def test_bad_date_reports_line():
    with pytest.raises(ParseError, match="line 3: invalid date '2024-13-01'"):
        import_csv("date,description,amount\n2024-01-01,a,1\n2024-13-01,b,2\n", "Assets:Bank")


def test_missing_amount_reports_line():
    with pytest.raises(ParseError, match="line 2: missing amount"):
        import_csv("date,description,amount\n2024-01-01,a,\n", "Assets:Bank")


def test_read_file_names_the_file(tmp_path):
    path = tmp_path / "bank.csv"
    path.write_text("date,description,amount\nnope,a,1\n")
    with pytest.raises(ParseError, match="bank.csv:2: invalid date"):
        read_csv_file(path, "Assets:Bank")
