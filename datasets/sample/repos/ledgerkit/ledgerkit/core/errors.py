"""Exception types shared by every ledgerkit module."""

from __future__ import annotations


class LedgerError(Exception):
    """Base class of every error raised on purpose by ledgerkit."""


class CurrencyMismatchError(LedgerError, ValueError):
    """Two amounts in different currencies were combined or compared."""

    def __init__(self, left: str, right: str) -> None:
        super().__init__(f"currency mismatch: {left} vs {right}")
        self.left = left
        self.right = right


class UnbalancedEntryError(LedgerError, ValueError):
    """A journal entry's postings do not sum to zero in every currency."""


class UnknownAccountError(LedgerError, KeyError):
    """An account name was looked up that is not in the chart of accounts."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name

    def __str__(self) -> str:
        return f"unknown account {self.name!r}"


class ParseError(LedgerError, ValueError):
    """Input text (a ledger file, a CSV statement, a rule file) could not be read.

    The message is prefixed with the location when it is known:
    ``"bank.csv:3: bad date"``, ``"line 3: bad date"`` or just ``"bad date"``.
    """

    def __init__(self, message: str, line: int | None = None, source: str | None = None) -> None:
        self.message = message
        self.line = line
        self.source = source
        super().__init__(f"{self.location()}{message}")

    def location(self) -> str:
        """The ``"source:line: "`` prefix of the message (may be empty)."""
        if self.source is not None and self.line is not None:
            return f"{self.source}:{self.line}: "
        if self.line is not None:
            return f"line {self.line}: "
        if self.source is not None:
            return f"{self.source}: "
        return ""
