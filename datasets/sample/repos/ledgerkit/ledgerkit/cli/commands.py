"""The implementation of each ``ledgerkit`` sub-command.

Every command takes the parsed arguments and returns a :class:`CommandResult`;
``main`` renders it. Commands raise :class:`CommandError` for user errors.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from ledgerkit.core.errors import LedgerError
from ledgerkit.core.journal import Journal
from ledgerkit.io.csv_import import CsvFormat, read_csv_file
from ledgerkit.io.ledger_text import format_journal, parse_ledger
from ledgerkit.reports.income_statement import income_statement
from ledgerkit.reports.trial_balance import trial_balance
from ledgerkit.rules.validation import has_errors, validate


class CommandError(Exception):
    """A user error: bad arguments, unreadable files. Reported without a traceback."""


@dataclass
class CommandResult:
    """Rows to render, or raw text to print as is, and the process exit code."""

    headers: list[str] = field(default_factory=list)
    rows: list[list[Any]] = field(default_factory=list)
    text: str | None = None
    exit_code: int = 0


def parse_date(text: str) -> date:
    """Parses a ``YYYY-MM-DD`` command-line date."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise CommandError(f"invalid date {text!r} (expected YYYY-MM-DD)") from None


def load_journal(path: str) -> Journal:
    """Reads a ledger text file, turning I/O and parse errors into :class:`CommandError`."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise CommandError(f"cannot read {path}: {error.strerror or error}") from None
    try:
        return parse_ledger(text, source=path)
    except LedgerError as error:
        raise CommandError(str(error)) from None


def cmd_balance(args: argparse.Namespace) -> CommandResult:
    """Balances of every account (optionally under a prefix) as of a date."""
    journal = load_journal(args.file)
    as_of = parse_date(args.as_of) if args.as_of else None
    rows = []
    for account, per_currency in journal.balances(as_of=as_of).items():
        if args.account and not (account == args.account or account.startswith(args.account + ":")):
            continue
        for currency, amount in per_currency.items():
            if amount != 0:
                rows.append([account, amount, currency])
    return CommandResult(["Account", "Balance", "Currency"], rows)


def cmd_trial_balance(args: argparse.Namespace) -> CommandResult:
    """The trial balance as of a date."""
    journal = load_journal(args.file)
    report = trial_balance(journal, parse_date(args.as_of) if args.as_of else None)
    rows = [[r.account, r.debit or "", r.credit or "", r.currency] for r in report.rows]
    return CommandResult(["Account", "Debit", "Credit", "Currency"], rows)


def cmd_income(args: argparse.Namespace) -> CommandResult:
    """The income statement for a period."""
    journal = load_journal(args.file)
    statement = income_statement(journal, parse_date(args.start), parse_date(args.end), args.currency)
    rows: list[list[Any]] = [["income", a, v] for a, v in statement.income]
    rows += [["expense", a, v] for a, v in statement.expenses]
    rows.append(["net", "", statement.net_income])
    return CommandResult(["Section", "Account", "Amount"], rows)


def cmd_import_csv(args: argparse.Namespace) -> CommandResult:
    """Converts a CSV statement to ledger text."""
    fmt = CsvFormat(delimiter=args.delimiter, date_format=args.date_format, currency=args.currency)
    try:
        entries = read_csv_file(args.csv, args.account, args.counter_account, fmt)
    except OSError as error:
        raise CommandError(f"cannot read {args.csv}: {error.strerror or error}") from None
    except LedgerError as error:
        raise CommandError(str(error)) from None
    return CommandResult(text=format_journal(entries) if entries else "")


def cmd_check(args: argparse.Namespace) -> CommandResult:
    """Validates a ledger file; exit code 1 when an error is found."""
    journal = load_journal(args.file)
    issues = validate(journal)
    rows = [[i.severity, i.entry.date if i.entry else "", i.message] for i in issues]
    return CommandResult(["Severity", "Date", "Message"], rows, exit_code=1 if has_errors(issues) else 0)
