"""Accounts-receivable aging: outstanding invoices grouped by how overdue they are."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Iterable

from ledgerkit.core.money import Money
from ledgerkit.reports.formatting import format_amount, render_table

BUCKET_LABELS: tuple[str, ...] = ("current", "1-30", "31-60", "61-90", "90+")


@dataclass(frozen=True)
class Invoice:
    """An issued invoice and what has been paid against it so far."""

    number: str
    customer: str
    issue_date: date
    due_date: date
    amount: Money
    paid: Money | None = None

    def __post_init__(self) -> None:
        if self.due_date < self.issue_date:
            raise ValueError(f"invoice {self.number}: due date is before the issue date")
        if self.paid is not None and self.paid.currency != self.amount.currency:
            raise ValueError(f"invoice {self.number}: payment currency differs from invoice currency")

    @property
    def outstanding(self) -> Money:
        """The amount still to be paid (negative when overpaid)."""
        return self.amount - self.paid if self.paid is not None else self.amount


def days_overdue(invoice: Invoice, as_of: date) -> int:
    """Days past the due date on ``as_of`` (0 when not yet due)."""
    return max(0, (as_of - invoice.due_date).days)


def bucket_for(days: int) -> str:
    """The aging bucket label for an invoice ``days`` overdue."""
    if days <= 0:
        return "current"
    if days <= 30:
        return "1-30"
    if days <= 60:
        return "31-60"
    if days <= 90:
        return "61-90"
    return "90+"


@dataclass
class AgingRow:
    """One customer's outstanding amounts per bucket."""

    customer: str
    buckets: dict[str, Decimal]

    @property
    def total(self) -> Decimal:
        return sum(self.buckets.values(), Decimal(0))


@dataclass
class AgingReport:
    """Outstanding receivables as of a date, one row per customer (sorted by name)."""

    as_of: date
    currency: str
    labels: tuple[str, ...] = BUCKET_LABELS
    rows: list[AgingRow] = field(default_factory=list)

    def totals(self) -> dict[str, Decimal]:
        """The sum of every bucket over all customers."""
        totals = {label: Decimal(0) for label in self.labels}
        for row in self.rows:
            for label, amount in row.buckets.items():
                totals[label] += amount
        return totals

    @property
    def total(self) -> Decimal:
        return sum(self.totals().values(), Decimal(0))

    def row(self, customer: str) -> AgingRow:
        for row in self.rows:
            if row.customer == customer:
                return row
        raise KeyError(customer)


def aging_report(invoices: Iterable[Invoice], as_of: date, currency: str = "USD") -> AgingReport:
    """Groups the outstanding amounts of ``invoices`` by customer and bucket.

    Invoices in other currencies, invoices issued after ``as_of`` and invoices
    with nothing outstanding are left out.
    """
    report = AgingReport(as_of, currency)
    by_customer: dict[str, AgingRow] = {}
    for invoice in invoices:
        if invoice.amount.currency != currency or invoice.issue_date > as_of:
            continue
        outstanding = invoice.outstanding.amount
        if outstanding <= 0:
            continue
        label = bucket_for(days_overdue(invoice, as_of))
        row = by_customer.setdefault(
            invoice.customer,
            AgingRow(invoice.customer, {lab: Decimal(0) for lab in report.labels}),
        )
        row.buckets[label] += outstanding
    report.rows = [by_customer[name] for name in sorted(by_customer)]
    return report


def render_aging(report: AgingReport) -> str:
    """Renders the report as a text table with a totals row."""
    headers = ["Customer", *report.labels, "Total"]
    cur = report.currency
    rows = [
        [row.customer, *(format_amount(row.buckets[lab], cur) for lab in report.labels), format_amount(row.total, cur)]
        for row in report.rows
    ]
    totals = report.totals()
    rows.append(["Total", *(format_amount(totals[lab], cur) for lab in report.labels), format_amount(report.total, cur)])
    return f"Receivables aging as of {report.as_of.isoformat()}\n\n" + render_table(headers, rows)
