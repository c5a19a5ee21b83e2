"""A small plain-text ledger format (a subset of the ledger/hledger syntax).

::

    2024-01-05 * Blue Bottle | Coffee with client   ; :meeting:
        Expenses:Food:Coffee        4.50 USD
        Assets:Bank:Checking

See the README for the rules. :func:`parse_ledger` reads a whole file into a
:class:`~ledgerkit.core.journal.Journal`; :func:`format_journal` writes one back.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from decimal import Decimal

from ledgerkit.core.errors import ParseError, UnbalancedEntryError
from ledgerkit.core.journal import Entry, Journal, Posting
from ledgerkit.core.money import Money

_HEADER = re.compile(
    r"^(?P<date>\d{4}-\d{2}-\d{2})(?:\s+(?P<flag>[*!]))?\s+(?P<text>[^;]*?)\s*(?:;(?P<comment>.*))?$"
)
_POSTING = re.compile(r"^\s+(?P<account>[^;\s](?:[^;]*?[^;\s])?)(?:(?:\s{2,}|\t)(?P<amount>[^;]+?))?\s*(?:;(?P<memo>.*))?$")
_TAGS = re.compile(r":([A-Za-z0-9_-]+(?::[A-Za-z0-9_-]+)*):")
_COMMENT_PREFIXES = (";", "#")


def _parse_tags(comment: str | None) -> frozenset[str]:
    if not comment:
        return frozenset()
    tags: set[str] = set()
    for match in _TAGS.finditer(comment):
        tags.update(match.group(1).split(":"))
    return frozenset(tags)


class _PendingEntry:
    def __init__(self, line: int, day: date, text: str, tags: frozenset[str]) -> None:
        self.line = line
        self.date = day
        payee, sep, description = text.partition("|")
        self.payee = payee.strip() if sep else None
        self.description = (description if sep else text).strip()
        self.tags = tags
        self.postings: list[tuple[int, str, Money | None, str]] = []

    def build(self, source: str | None) -> Entry:
        elided = [p for p in self.postings if p[2] is None]
        if len(elided) > 1:
            raise ParseError("only one posting may omit its amount", elided[1][0], source)
        totals: dict[str, Decimal] = {}
        for _, _, amount, _ in self.postings:
            if amount is not None:
                totals[amount.currency] = totals.get(amount.currency, Decimal(0)) + amount.amount
        postings: list[Posting] = []
        for line, account, amount, memo in self.postings:
            if amount is None:
                open_totals = {c: v for c, v in totals.items() if v != 0}
                if len(open_totals) > 1:
                    raise ParseError(
                        "cannot infer an amount for an entry in several currencies", line, source
                    )
                currency, value = next(iter(open_totals.items()), (next(iter(totals), "USD"), Decimal(0)))
                amount = Money(-value, currency)
            try:
                postings.append(Posting(account, amount, memo))
            except ValueError as error:
                raise ParseError(str(error), line, source) from None
        entry = Entry(self.date, self.description, postings, self.payee, self.tags)
        try:
            entry.check_balanced()
        except UnbalancedEntryError as error:
            raise ParseError(str(error), self.line, source) from None
        return entry


def parse_entries(text: str, source: str | None = None) -> list[Entry]:
    """Parses ledger text into entries (in file order)."""
    entries: list[Entry] = []
    pending: _PendingEntry | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        if not line.strip():
            if pending is not None:
                entries.append(pending.build(source))
                pending = None
            continue
        if line.lstrip().startswith(_COMMENT_PREFIXES) and (pending is None or not line[0].isspace()):
            continue
        if not line[0].isspace():
            if pending is not None:
                entries.append(pending.build(source))
            header = _HEADER.match(line)
            if header is None:
                raise ParseError(f"expected an entry header, got {line.strip()!r}", number, source)
            try:
                day = datetime.strptime(header.group("date"), "%Y-%m-%d").date()
            except ValueError:
                raise ParseError(f"invalid date {header.group('date')!r}", number, source) from None
            pending = _PendingEntry(number, day, header.group("text"), _parse_tags(header.group("comment")))
            continue
        if pending is None:
            raise ParseError("posting outside of an entry", number, source)
        if line.lstrip().startswith(_COMMENT_PREFIXES):
            continue
        posting = _POSTING.match(line)
        if posting is None:
            raise ParseError(f"cannot read posting {line.strip()!r}", number, source)
        amount: Money | None = None
        if posting.group("amount"):
            try:
                amount = Money.parse(posting.group("amount").strip())
            except ValueError as error:
                raise ParseError(str(error), number, source) from None
        pending.postings.append(
            (number, posting.group("account"), amount, (posting.group("memo") or "").strip())
        )
    if pending is not None:
        entries.append(pending.build(source))
    return entries


def parse_ledger(text: str, source: str | None = None) -> Journal:
    """Parses ledger text into a :class:`Journal`."""
    return Journal(parse_entries(text, source))


def format_entry(entry: Entry, width: int = 40) -> str:
    """Formats one entry; amounts are right-aligned so their last digit lines up."""
    header = f"{entry.date.isoformat()} "
    header += f"{entry.payee} | {entry.description}" if entry.payee else entry.description
    if entry.tags:
        header += "   ; :" + ":".join(sorted(entry.tags)) + ":"
    lines = [header]
    for posting in entry.postings:
        amount = str(posting.amount)
        pad = max(2, width - len(posting.account) - len(amount))
        line = f"    {posting.account}{' ' * pad}{amount}"
        if posting.memo:
            line += f"  ; {posting.memo}"
        lines.append(line)
    return "\n".join(lines)


def format_journal(journal: Journal | list[Entry]) -> str:
    """Formats every entry, separated by blank lines, with a trailing newline."""
    return "\n\n".join(format_entry(entry) for entry in journal) + "\n"
