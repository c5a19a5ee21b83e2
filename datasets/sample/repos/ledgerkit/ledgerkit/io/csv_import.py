"""Import bank statements exported as CSV into journal entries.

Every row becomes one entry with two postings: the statement amount on the bank
account and its negation on a counter account (``Expenses:Uncategorized`` by
default) that categorization rules can refine later.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

from ledgerkit.core.errors import ParseError
from ledgerkit.core.journal import Entry, Posting
from ledgerkit.core.money import Money, to_decimal

DEFAULT_COUNTER_ACCOUNT = "Expenses:Uncategorized"

_SYMBOLS = "$€£¥"


@dataclass(frozen=True)
class CsvFormat:
    """Describes the columns and conventions of one bank's CSV export."""

    date_column: str = "date"
    description_column: str = "description"
    amount_column: str = "amount"
    payee_column: str | None = None
    date_format: str = "%Y-%m-%d"
    delimiter: str = ","
    currency: str = "USD"

    def required_columns(self) -> list[str]:
        """The header names that must be present in the file."""
        columns = [self.date_column, self.description_column, self.amount_column]
        if self.payee_column:
            columns.append(self.payee_column)
        return columns


def parse_amount(text: str) -> Decimal:
    """Reads a statement amount: ``"1,234.56"``, ``"-12"``, ``"(12.00)"`` (negative), ``"$5"``."""
    cleaned = text.strip().replace(" ", "")
    negative = False
    if cleaned.startswith("(") and cleaned.endswith(")"):
        negative = True
        cleaned = cleaned[1:-1]
    cleaned = cleaned.strip(_SYMBOLS)
    if cleaned.startswith("-"):
        negative = not negative
        cleaned = cleaned[1:].lstrip(_SYMBOLS)
    elif cleaned.startswith("+"):
        cleaned = cleaned[1:].lstrip(_SYMBOLS)
    cleaned = cleaned.replace(",", "")
    if not cleaned:
        raise ValueError(f"not an amount: {text!r}")
    value = to_decimal(cleaned)
    return -value if negative else value


def _parse_date(text: str, fmt: str) -> date:
    return datetime.strptime(text.strip(), fmt).date()


def _row_amount(row: dict[str, str], fmt: CsvFormat, line: int) -> Decimal:
    raw = (row.get(fmt.amount_column) or "").strip()
    if not raw:
        raise ParseError(f"missing amount in column {fmt.amount_column!r}", line)
    try:
        return parse_amount(raw)
    except ValueError:
        raise ParseError(f"invalid amount {raw!r}", line) from None


def import_csv(
    text: str,
    account: str,
    counter_account: str = DEFAULT_COUNTER_ACCOUNT,
    fmt: CsvFormat | None = None,
) -> list[Entry]:
    """Turns the rows of a CSV statement into balanced entries.

    A positive amount is money coming into ``account`` (a debit of ``account``).
    Rows whose cells are all empty are skipped. Errors are :class:`ParseError`
    with the line number of the offending row.
    """
    fmt = fmt or CsvFormat()
    reader = csv.DictReader(io.StringIO(text), delimiter=fmt.delimiter)
    header = [name.strip() for name in reader.fieldnames or []]
    reader.fieldnames = header
    missing = [name for name in fmt.required_columns() if name not in header]
    if missing:
        raise ParseError(f"missing column {missing[0]!r} (found: {', '.join(header) or 'nothing'})", 1)
    entries: list[Entry] = []
    for row in reader:
        line = reader.line_num
        if all(not (value or "").strip() for value in row.values() if isinstance(value, str)):
            continue
        raw_date = (row.get(fmt.date_column) or "").strip()
        try:
            day = _parse_date(raw_date, fmt.date_format)
        except ValueError:
            raise ParseError(f"invalid date {raw_date!r} (expected format {fmt.date_format})", line) from None
        amount = _row_amount(row, fmt, line)
        description = (row.get(fmt.description_column) or "").strip()
        payee = ((row.get(fmt.payee_column) or "").strip() or None) if fmt.payee_column else None
        money = Money(amount, fmt.currency)
        entries.append(
            Entry(
                day,
                description,
                [Posting(account, money), Posting(counter_account, -money)],
                payee=payee,
            )
        )
    return entries


def read_csv_file(
    path: str | Path,
    account: str,
    counter_account: str = DEFAULT_COUNTER_ACCOUNT,
    fmt: CsvFormat | None = None,
) -> list[Entry]:
    """:func:`import_csv` on a file; errors name the file."""
    path = Path(path)
    try:
        return import_csv(path.read_text(encoding="utf-8-sig"), account, counter_account, fmt)
    except ParseError as error:
        raise ParseError(error.message, error.line, str(path)) from None
