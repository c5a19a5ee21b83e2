"""The trial balance: every account's balance split into debit and credit columns."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from ledgerkit.core.journal import Journal
from ledgerkit.reports.formatting import format_amount, format_date, render_table


@dataclass(frozen=True)
class TrialBalanceRow:
    """One account in one currency. Exactly one of ``debit``/``credit`` is non-zero."""

    account: str
    currency: str
    debit: Decimal
    credit: Decimal

    @property
    def balance(self) -> Decimal:
        """Debit minus credit (positive for a debit balance)."""
        return self.debit - self.credit


@dataclass
class TrialBalance:
    """The rows of a trial balance as of a date (``None`` = all entries)."""

    as_of: date | None
    rows: list[TrialBalanceRow] = field(default_factory=list)

    def currencies(self) -> list[str]:
        return sorted({row.currency for row in self.rows})

    def totals(self) -> dict[str, tuple[Decimal, Decimal]]:
        """``{currency: (total debit, total credit)}``."""
        totals: dict[str, tuple[Decimal, Decimal]] = {}
        for row in self.rows:
            debit, credit = totals.get(row.currency, (Decimal(0), Decimal(0)))
            totals[row.currency] = (debit + row.debit, credit + row.credit)
        return totals

    def is_balanced(self) -> bool:
        """Whether debits equal credits in every currency."""
        return all(debit == credit for debit, credit in self.totals().values())


def trial_balance(journal: Journal, as_of: date | None = None) -> TrialBalance:
    """Computes the trial balance of ``journal`` from entries dated up to ``as_of``."""
    rows: list[TrialBalanceRow] = []
    for account, per_currency in journal.balances(as_of=as_of).items():
        for currency, amount in per_currency.items():
            debit = amount if amount > 0 else Decimal(0)
            credit = -amount if amount < 0 else Decimal(0)
            rows.append(TrialBalanceRow(account, currency, debit, credit))
    return TrialBalance(as_of, rows)


def render_trial_balance(report: TrialBalance) -> str:
    """Renders the report as a text table followed by one total line per currency."""
    rows = [
        [
            row.account,
            format_amount(row.debit, row.currency) if row.debit else "",
            format_amount(row.credit, row.currency) if row.credit else "",
        ]
        for row in report.rows
    ]
    for currency, (debit, credit) in sorted(report.totals().items()):
        rows.append([f"Total {currency}", format_amount(debit, currency), format_amount(credit, currency)])
    title = f"Trial balance as of {format_date(report.as_of)}" if report.as_of else "Trial balance"
    return title + "\n\n" + render_table(["Account", "Debit", "Credit"], rows, align=["l", "r", "r"])
