"""Journal entries, postings and the journal that holds them in date order."""

from __future__ import annotations

import bisect
import dataclasses
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Iterable, Iterator

from ledgerkit.core.account import is_descendant, join_name, split_name
from ledgerkit.core.errors import UnbalancedEntryError
from ledgerkit.core.money import Money

Balances = dict[str, dict[str, Decimal]]


@dataclass(frozen=True)
class Posting:
    """One line of an entry: an amount booked to an account (positive = debit)."""

    account: str
    amount: Money
    memo: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "account", join_name(split_name(self.account)))


@dataclass
class Entry:
    """A dated transaction whose postings must balance in every currency."""

    date: date
    description: str
    postings: list[Posting] = field(default_factory=list)
    payee: str | None = None
    tags: frozenset[str] = frozenset()

    def totals(self) -> dict[str, Decimal]:
        """The sum of the postings per currency (all zero when balanced)."""
        totals: dict[str, Decimal] = defaultdict(Decimal)
        for posting in self.postings:
            totals[posting.amount.currency] += posting.amount.amount
        return dict(totals)

    def is_balanced(self) -> bool:
        return len(self.postings) >= 2 and all(v == 0 for v in self.totals().values())

    def check_balanced(self) -> None:
        """Raises :class:`UnbalancedEntryError` with a readable message if unbalanced."""
        if len(self.postings) < 2:
            raise UnbalancedEntryError(
                f"entry {self.date} {self.description!r} needs at least two postings"
            )
        off = {c: v for c, v in sorted(self.totals().items()) if v != 0}
        if off:
            detail = ", ".join(f"{amount} {currency}" for currency, amount in off.items())
            raise UnbalancedEntryError(
                f"entry {self.date} {self.description!r} does not balance: off by {detail}"
            )

    def accounts(self) -> list[str]:
        """The accounts this entry touches, in posting order without repeats."""
        return list(dict.fromkeys(p.account for p in self.postings))

    def with_postings(self, postings: list[Posting]) -> "Entry":
        """A copy of this entry with other postings."""
        return dataclasses.replace(self, postings=list(postings))


class Journal:
    """Balanced entries kept in date order (entries of one day keep insertion order)."""

    def __init__(self, entries: Iterable[Entry] = ()) -> None:
        self._entries: list[Entry] = []
        self._keys: list[date] = []
        self.extend(entries)

    def add(self, entry: Entry) -> Entry:
        """Checks that ``entry`` balances and inserts it after entries of the same date."""
        entry.check_balanced()
        index = bisect.bisect_right(self._keys, entry.date)
        self._keys.insert(index, entry.date)
        self._entries.insert(index, entry)
        return entry

    def extend(self, entries: Iterable[Entry]) -> None:
        for entry in entries:
            self.add(entry)

    @property
    def entries(self) -> tuple[Entry, ...]:
        return tuple(self._entries)

    def __iter__(self) -> Iterator[Entry]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def between(self, start: date | None = None, end: date | None = None) -> "Journal":
        """A journal of the entries dated from ``start`` to ``end``, both inclusive."""
        return Journal(
            e
            for e in self._entries
            if (start is None or e.date >= start) and (end is None or e.date <= end)
        )

    def accounts(self) -> list[str]:
        """Every account that has at least one posting, sorted."""
        return sorted({p.account for e in self._entries for p in e.postings})

    def postings(
        self, account: str | None = None, include_children: bool = True
    ) -> Iterator[tuple[Entry, Posting]]:
        """``(entry, posting)`` pairs, optionally limited to ``account`` (and its children)."""
        for entry in self._entries:
            for posting in entry.postings:
                if account is None:
                    yield entry, posting
                elif posting.account == account or (
                    include_children and is_descendant(posting.account, account)
                ):
                    yield entry, posting

    def balances(self, as_of: date | None = None, start: date | None = None) -> Balances:
        """Per-account, per-currency sums of postings dated within ``[start, as_of]``.

        Accounts whose postings cancel out are kept with a zero balance.
        """
        result: Balances = defaultdict(lambda: defaultdict(Decimal))
        for entry in self.between(start, as_of):
            for posting in entry.postings:
                result[posting.account][posting.amount.currency] += posting.amount.amount
        return {account: dict(sorted(per.items())) for account, per in sorted(result.items())}

    def balance(
        self,
        account: str,
        currency: str,
        as_of: date | None = None,
        include_children: bool = True,
    ) -> Decimal:
        """The balance of ``account`` in ``currency`` (children included by default)."""
        total = Decimal(0)
        for entry, posting in self.postings(account, include_children):
            if as_of is not None and entry.date > as_of:
                continue
            if posting.amount.currency == currency:
                total += posting.amount.amount
        return total
