from datetime import date
from decimal import Decimal

import pytest

from ledgerkit.core.money import Money
from ledgerkit.reports.aging import Invoice, aging_report, bucket_for, days_overdue, render_aging

AS_OF = date(2024, 6, 30)


def inv(number, customer, due, amount, paid=None, issued=date(2024, 1, 1), currency="USD"):
    return Invoice(
        number,
        customer,
        issued,
        due,
        Money(amount, currency),
        Money(paid, currency) if paid is not None else None,
    )


INVOICES = [
    inv("1", "Acme", date(2024, 7, 15), "100"),
    inv("2", "Acme", date(2024, 6, 10), "200"),
    inv("3", "Beta", date(2024, 5, 1), "300", paid="50"),
    inv("4", "Beta", date(2024, 2, 1), "400"),
    inv("5", "Gamma", date(2024, 4, 15), "500", paid="500"),
    inv("6", "Delta", date(2024, 4, 20), "70", currency="EUR"),
]


def test_bucket_boundaries():
    assert [bucket_for(d) for d in (0, 1, 30, 31, 60, 61, 90, 91)] == [
        "current", "1-30", "1-30", "31-60", "31-60", "61-90", "61-90", "90+",
    ]


def test_days_overdue():
    assert days_overdue(INVOICES[0], AS_OF) == 0
    assert days_overdue(INVOICES[1], AS_OF) == 20


def test_report_groups_by_customer():
    report = aging_report(INVOICES, AS_OF)
    assert [r.customer for r in report.rows] == ["Acme", "Beta"]
    acme = report.row("Acme")
    assert acme.buckets["current"] == Decimal("100")
    assert acme.buckets["1-30"] == Decimal("200")
    beta = report.row("Beta")
    assert beta.buckets["31-60"] == Decimal("250")
    assert beta.buckets["90+"] == Decimal("400")
    assert report.total == Decimal("950")


def test_fully_paid_and_other_currency_left_out():
    report = aging_report(INVOICES, AS_OF)
    with pytest.raises(KeyError):
        report.row("Gamma")
    eur = aging_report(INVOICES, AS_OF, currency="EUR")
    assert eur.row("Delta").buckets["61-90"] == Decimal("70")


def test_invoice_validation():
    with pytest.raises(ValueError, match="due date is before"):
        inv("x", "c", date(2023, 1, 1), "1")


def test_render():
    text = render_aging(aging_report(INVOICES, AS_OF))
    assert text.startswith("Receivables aging as of 2024-06-30")
    assert "950.00 USD" in text
