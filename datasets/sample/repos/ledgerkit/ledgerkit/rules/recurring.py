"""Recurring entries (rent, subscriptions, salaries) generated from templates."""

from __future__ import annotations

import calendar
from dataclasses import dataclass, field
from datetime import date, timedelta
from enum import Enum

from ledgerkit.core.journal import Entry, Posting


class Frequency(Enum):
    WEEKLY = "weekly"
    MONTHLY = "monthly"
    QUARTERLY = "quarterly"
    YEARLY = "yearly"


def add_months(day: date, months: int) -> date:
    """``day`` moved by ``months``; the day of month is clamped (Jan 31 + 1 -> Feb 28/29)."""
    index = day.year * 12 + (day.month - 1) + months
    year, month = divmod(index, 12)
    last = calendar.monthrange(year, month + 1)[1]
    return date(year, month + 1, min(day.day, last))


@dataclass
class RecurringTemplate:
    """An entry that repeats every ``frequency`` from ``start`` until ``end`` (inclusive)."""

    description: str
    postings: list[Posting]
    start: date
    frequency: Frequency = Frequency.MONTHLY
    end: date | None = None
    tags: frozenset[str] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        Entry(self.start, self.description, list(self.postings)).check_balanced()
        if self.end is not None and self.end < self.start:
            raise ValueError("end must not be before start")

    def _nth(self, n: int) -> date:
        if self.frequency is Frequency.WEEKLY:
            return self.start + timedelta(weeks=n)
        months = {Frequency.MONTHLY: 1, Frequency.QUARTERLY: 3, Frequency.YEARLY: 12}[self.frequency]
        # Always step from the start so that Jan 31 -> Feb 29 -> Mar 31, not Mar 29.
        return add_months(self.start, months * n)

    def dates(self, until: date) -> list[date]:
        """Every occurrence on or before ``until`` (and ``end``)."""
        limit = min(until, self.end) if self.end else until
        result: list[date] = []
        n = 0
        while (day := self._nth(n)) <= limit:
            result.append(day)
            n += 1
        return result

    def entries(self, until: date) -> list[Entry]:
        """The entries of every occurrence up to ``until``."""
        return [
            Entry(day, self.description, list(self.postings), tags=self.tags)
            for day in self.dates(until)
        ]
