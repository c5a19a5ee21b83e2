"""Hierarchical accounts (``Assets:Bank:Checking``) and the chart of accounts."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Iterator

from ledgerkit.core.errors import UnknownAccountError

SEPARATOR = ":"


class AccountType(Enum):
    """The five account classes of double-entry bookkeeping."""

    ASSET = "asset"
    LIABILITY = "liability"
    EQUITY = "equity"
    INCOME = "income"
    EXPENSE = "expense"

    @property
    def normal_balance(self) -> str:
        """``"debit"`` for assets and expenses, ``"credit"`` for the rest."""
        return "debit" if self in (AccountType.ASSET, AccountType.EXPENSE) else "credit"

    @property
    def is_balance_sheet(self) -> bool:
        """Whether accounts of this type appear on the balance sheet."""
        return self in (AccountType.ASSET, AccountType.LIABILITY, AccountType.EQUITY)


ROOT_TYPES: dict[str, AccountType] = {
    "assets": AccountType.ASSET,
    "asset": AccountType.ASSET,
    "liabilities": AccountType.LIABILITY,
    "liability": AccountType.LIABILITY,
    "equity": AccountType.EQUITY,
    "income": AccountType.INCOME,
    "revenue": AccountType.INCOME,
    "revenues": AccountType.INCOME,
    "expenses": AccountType.EXPENSE,
    "expense": AccountType.EXPENSE,
}


def split_name(name: str) -> list[str]:
    """``"Assets:Bank"`` -> ``["Assets", "Bank"]``; raises ``ValueError`` on empty segments."""
    segments = [segment.strip() for segment in name.split(SEPARATOR)]
    if not name.strip() or any(not segment for segment in segments):
        raise ValueError(f"invalid account name {name!r}")
    return segments


def join_name(segments: list[str]) -> str:
    """The inverse of :func:`split_name`."""
    return SEPARATOR.join(segments)


def account_type_for(name: str) -> AccountType:
    """The account type implied by the root segment of ``name``."""
    root = split_name(name)[0].lower()
    try:
        return ROOT_TYPES[root]
    except KeyError:
        raise ValueError(f"cannot infer the type of account {name!r} from its root {root!r}") from None


def ancestors(name: str) -> list[str]:
    """Every proper prefix of ``name``, outermost first: ``a:b:c`` -> ``[a, a:b]``."""
    segments = split_name(name)
    return [join_name(segments[:i]) for i in range(1, len(segments))]


def truncate(name: str, depth: int) -> str:
    """``name`` cut to its first ``depth`` segments (``depth`` >= 1)."""
    if depth < 1:
        raise ValueError("depth must be at least 1")
    return join_name(split_name(name)[:depth])


def is_descendant(name: str, prefix: str) -> bool:
    """Whether ``name`` is ``prefix`` itself or one of its sub-accounts."""
    return name == prefix or name.startswith(prefix + SEPARATOR)


@dataclass(frozen=True)
class Account:
    """A named account. The type defaults to the one implied by the root segment."""

    name: str
    type: AccountType

    @classmethod
    def named(cls, name: str, type: AccountType | None = None) -> "Account":
        normalized = join_name(split_name(name))
        return cls(normalized, type or account_type_for(normalized))

    @property
    def segments(self) -> list[str]:
        return split_name(self.name)

    @property
    def depth(self) -> int:
        return len(self.segments)

    @property
    def leaf(self) -> str:
        """The last segment: ``"Checking"`` for ``Assets:Bank:Checking``."""
        return self.segments[-1]

    @property
    def parent(self) -> str | None:
        """The parent account name, or ``None`` for a root account."""
        segments = self.segments
        return join_name(segments[:-1]) if len(segments) > 1 else None


class ChartOfAccounts:
    """The set of known accounts, keyed by name."""

    def __init__(self, accounts: list[Account] | None = None) -> None:
        self._accounts: dict[str, Account] = {}
        for account in accounts or []:
            self._accounts[account.name] = account

    def add(self, name: str, type: AccountType | None = None) -> Account:
        """Adds an account (idempotent when the type agrees) and returns it."""
        account = Account.named(name, type)
        existing = self._accounts.get(account.name)
        if existing is not None and existing.type != account.type:
            raise ValueError(
                f"account {account.name!r} already exists with type {existing.type.value}"
            )
        self._accounts[account.name] = account
        return account

    def get(self, name: str) -> Account:
        try:
            return self._accounts[name]
        except KeyError:
            raise UnknownAccountError(name) from None

    def __contains__(self, name: object) -> bool:
        return name in self._accounts

    def __iter__(self) -> Iterator[Account]:
        return iter(sorted(self._accounts.values(), key=lambda a: a.name))

    def __len__(self) -> int:
        return len(self._accounts)

    def children(self, name: str) -> list[Account]:
        """The direct sub-accounts of ``name``."""
        depth = len(split_name(name)) + 1
        return [a for a in self if a.depth == depth and is_descendant(a.name, name)]

    def descendants(self, prefix: str) -> list[Account]:
        """``prefix`` itself (if known) and every account below it."""
        return [a for a in self if is_descendant(a.name, prefix)]

    @classmethod
    def from_names(cls, names: list[str]) -> "ChartOfAccounts":
        chart = cls()
        for name in names:
            chart.add(name)
        return chart
