import json

from ledgerkit.io.export import balances_to_csv, journal_to_csv, journal_to_json, write_text


def test_journal_to_csv(journal):
    lines = journal_to_csv(journal).splitlines()
    assert lines[0] == "date,description,account,amount,currency,memo"
    assert lines[1] == "2024-01-01,Opening balance,Assets:Bank:Checking,1000.00,USD,"
    assert len(lines) == 1 + 2 * len(journal)


def test_journal_to_json(journal):
    data = json.loads(journal_to_json(journal))
    assert data[1]["payee"] == "Blue Bottle"
    assert data[1]["tags"] == ["meeting"]
    assert data[1]["postings"][0] == {"account": "Expenses:Food:Coffee", "amount": "4.50", "currency": "USD"}


def test_balances_to_csv_skips_zero(journal):
    text = balances_to_csv(journal.balances())
    assert "Liabilities:CreditCard" not in text
    assert "Assets:Bank:Checking,USD,3200.00" in text
    assert "Liabilities:CreditCard" in balances_to_csv(journal.balances(), include_zero=True)


def test_write_text_creates_dirs(tmp_path):
    target = tmp_path / "out" / "x.csv"
    write_text(target, "a\n")
    assert target.read_text() == "a\n"
