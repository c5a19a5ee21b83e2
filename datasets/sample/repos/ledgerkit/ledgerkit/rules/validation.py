"""Checks that find problems in a journal without stopping at the first one."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Callable, Iterable, Sequence

from ledgerkit.core.account import ChartOfAccounts, account_type_for
from ledgerkit.core.errors import UnbalancedEntryError
from ledgerkit.core.journal import Entry

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True)
class Issue:
    """A problem found in one entry."""

    severity: str
    message: str
    entry: Entry | None = None

    def __str__(self) -> str:
        where = f"{self.entry.date} {self.entry.description!r}: " if self.entry else ""
        return f"{self.severity}: {where}{self.message}"


Check = Callable[[Entry], list[Issue]]


def check_balanced(entry: Entry) -> list[Issue]:
    """Error when the entry does not balance."""
    try:
        entry.check_balanced()
    except UnbalancedEntryError as error:
        return [Issue(ERROR, str(error), entry)]
    return []


def check_description(entry: Entry) -> list[Issue]:
    """Warning when the entry has no description."""
    return [] if entry.description.strip() else [Issue(WARNING, "empty description", entry)]


def check_account_types(entry: Entry) -> list[Issue]:
    """Error for accounts whose root is not a known account class."""
    issues = []
    for account in entry.accounts():
        try:
            account_type_for(account)
        except ValueError as error:
            issues.append(Issue(ERROR, str(error), entry))
    return issues


def known_accounts(chart: ChartOfAccounts) -> Check:
    """A check that reports accounts missing from ``chart``."""

    def check(entry: Entry) -> list[Issue]:
        return [
            Issue(ERROR, f"unknown account {account!r}", entry)
            for account in entry.accounts()
            if account not in chart
        ]

    return check


def date_range(start: date | None, end: date | None) -> Check:
    """A check that warns about entries dated outside ``start``..``end``."""

    def check(entry: Entry) -> list[Issue]:
        if (start and entry.date < start) or (end and entry.date > end):
            return [Issue(WARNING, f"date {entry.date} is outside the period", entry)]
        return []

    return check


DEFAULT_CHECKS: tuple[Check, ...] = (check_balanced, check_description, check_account_types)


def validate(entries: Iterable[Entry], checks: Sequence[Check] = DEFAULT_CHECKS) -> list[Issue]:
    """Runs every check on every entry and returns all issues, errors first."""
    issues = [issue for entry in entries for check in checks for issue in check(entry)]
    return sorted(issues, key=lambda issue: 0 if issue.severity == ERROR else 1)


def has_errors(issues: Iterable[Issue]) -> bool:
    return any(issue.severity == ERROR for issue in issues)
