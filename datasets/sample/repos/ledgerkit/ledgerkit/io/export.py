"""Write journals and balances as CSV or JSON."""

from __future__ import annotations

import csv
import io
import json
from decimal import Decimal
from pathlib import Path
from typing import Any, Iterable

from ledgerkit.core.journal import Balances, Entry, Journal

JOURNAL_COLUMNS = ["date", "description", "account", "amount", "currency", "memo"]


def _csv_text(header: list[str], rows: Iterable[list[Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow(row)
    return buffer.getvalue()


def journal_to_csv(journal: Journal | Iterable[Entry]) -> str:
    """One row per posting, with the columns of :data:`JOURNAL_COLUMNS`."""
    rows = (
        [
            entry.date.isoformat(),
            entry.description,
            posting.account,
            str(posting.amount.amount),
            posting.amount.currency,
            posting.memo,
        ]
        for entry in journal
        for posting in entry.postings
    )
    return _csv_text(JOURNAL_COLUMNS, rows)


def entry_to_dict(entry: Entry) -> dict[str, Any]:
    """A JSON-ready dictionary; amounts are strings so no precision is lost."""
    data: dict[str, Any] = {
        "date": entry.date.isoformat(),
        "description": entry.description,
        "postings": [
            {
                "account": p.account,
                "amount": str(p.amount.amount),
                "currency": p.amount.currency,
                **({"memo": p.memo} if p.memo else {}),
            }
            for p in entry.postings
        ],
    }
    if entry.payee:
        data["payee"] = entry.payee
    if entry.tags:
        data["tags"] = sorted(entry.tags)
    return data


def journal_to_json(journal: Journal | Iterable[Entry], indent: int | None = 2) -> str:
    """The journal as a JSON array of entries."""
    return json.dumps([entry_to_dict(e) for e in journal], indent=indent, ensure_ascii=False)


def balances_to_csv(balances: Balances, include_zero: bool = False) -> str:
    """``account,currency,balance`` rows from :meth:`Journal.balances`."""
    rows = (
        [account, currency, str(amount)]
        for account, per_currency in balances.items()
        for currency, amount in per_currency.items()
        if include_zero or amount != Decimal(0)
    )
    return _csv_text(["account", "currency", "balance"], rows)


def write_text(path: str | Path, text: str) -> None:
    """Writes ``text`` as UTF-8, creating parent directories."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
