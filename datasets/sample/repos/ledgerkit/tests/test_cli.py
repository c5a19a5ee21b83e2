import io
import json

from ledgerkit.cli.main import main


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_balance_text(ledger_file):
    code, out, _ = run("balance", str(ledger_file), "Assets")
    assert code == 0
    assert out.splitlines()[2].split() == ["Assets:Bank:Checking", "3200.00", "USD"]


def test_balance_json_as_of(ledger_file):
    code, out, _ = run("--format", "json", "balance", str(ledger_file), "--as-of", "2024-01-31")
    rows = {r["account"]: r["balance"] for r in json.loads(out)}
    assert code == 0
    assert rows["Liabilities:CreditCard"] == "-95.50"
    assert "Expenses:Housing:Rent" not in rows


def test_trial_balance_command(ledger_file):
    code, out, _ = run("trial-balance", str(ledger_file))
    assert code == 0
    assert "Income:Salary" in out


def test_income_command(ledger_file):
    code, out, _ = run("--format", "json", "income", str(ledger_file), "--start", "2024-01-01", "--end", "2024-01-31")
    rows = json.loads(out)
    assert rows[-1] == {"section": "net", "account": "", "amount": "2900.00"}


def test_bad_date_is_a_usage_error(ledger_file):
    code, _, err = run("balance", str(ledger_file), "--as-of", "yesterday")
    assert code == 2
    assert err == "ledgerkit: error: invalid date 'yesterday' (expected YYYY-MM-DD)\n"


def test_missing_file(tmp_path):
    code, _, err = run("balance", str(tmp_path / "nope.ledger"))
    assert code == 2 and "cannot read" in err


def test_import_csv_command(tmp_path):
    path = tmp_path / "bank.csv"
    path.write_text("date,description,amount\n2024-03-01,Coffee,-4.75\n")
    code, out, _ = run("import-csv", str(path), "--account", "Assets:Bank")
    assert code == 0
    assert out.startswith("2024-03-01 Coffee\n    Assets:Bank")


def test_check_command_flags_errors(tmp_path):
    path = tmp_path / "bad.ledger"
    path.write_text("2024-01-01 x\n    Stuff:A   1 USD\n    Assets:B\n")
    code, out, _ = run("check", str(path))
    assert code == 1
    assert "cannot infer the type" in out
