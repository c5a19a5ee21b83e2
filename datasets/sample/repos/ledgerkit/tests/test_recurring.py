from datetime import date

import pytest

from ledgerkit.core.errors import UnbalancedEntryError
from ledgerkit.core.journal import Posting
from ledgerkit.core.money import Money
from ledgerkit.rules.recurring import Frequency, RecurringTemplate, add_months

RENT = [Posting("Expenses:Rent", Money(900, "USD")), Posting("Assets:Bank", Money(-900, "USD"))]


def test_add_months_clamps():
    assert add_months(date(2024, 1, 31), 1) == date(2024, 2, 29)
    assert add_months(date(2023, 11, 15), 3) == date(2024, 2, 15)


def test_monthly_from_month_end_keeps_day():
    template = RecurringTemplate("Rent", RENT, date(2024, 1, 31))
    assert template.dates(date(2024, 4, 30)) == [
        date(2024, 1, 31), date(2024, 2, 29), date(2024, 3, 31), date(2024, 4, 30),
    ]


def test_weekly_with_end():
    template = RecurringTemplate("Gym", RENT, date(2024, 1, 1), Frequency.WEEKLY, end=date(2024, 1, 20))
    assert len(template.entries(date(2024, 12, 31))) == 3


def test_template_must_balance():
    with pytest.raises(UnbalancedEntryError):
        RecurringTemplate("Bad", RENT[:1], date(2024, 1, 1))
