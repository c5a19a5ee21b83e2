"""ledgerkit: a small double-entry bookkeeping toolkit.

The most used names are re-exported here; everything else lives in the
sub-packages :mod:`ledgerkit.core`, :mod:`ledgerkit.io`, :mod:`ledgerkit.reports`,
:mod:`ledgerkit.rules` and :mod:`ledgerkit.cli`.
"""

from ledgerkit.core.account import Account, AccountType, ChartOfAccounts
from ledgerkit.core.errors import (
    CurrencyMismatchError,
    LedgerError,
    ParseError,
    UnbalancedEntryError,
)
from ledgerkit.core.journal import Entry, Journal, Posting
from ledgerkit.core.money import Currency, Money

__version__ = "0.4.0"

__all__ = [
    "Account",
    "AccountType",
    "ChartOfAccounts",
    "Currency",
    "CurrencyMismatchError",
    "Entry",
    "Journal",
    "LedgerError",
    "Money",
    "ParseError",
    "Posting",
    "UnbalancedEntryError",
    "__version__",
]
