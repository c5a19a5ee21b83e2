from decimal import ROUND_HALF_UP, Decimal

import pytest

from ledgerkit.core.errors import CurrencyMismatchError
from ledgerkit.core.money import Money, get_currency, register_currency, sum_money, to_decimal


def test_amounts_are_decimals():
    assert Money("0.1", "usd") + Money("0.2", "USD") == Money(Decimal("0.3"), "USD")


def test_float_goes_through_str():
    assert to_decimal(0.1) == Decimal("0.1")


def test_bool_is_rejected():
    with pytest.raises(TypeError):
        to_decimal(True)


def test_currency_mismatch_raises():
    with pytest.raises(CurrencyMismatchError, match="USD vs EUR"):
        Money(1, "USD") + Money(1, "EUR")


def test_invalid_currency_code():
    with pytest.raises(ValueError, match="invalid currency code"):
        Money(1, "$")


def test_parse_forms():
    assert Money.parse("12.50 USD") == Money("12.50", "USD")
    assert Money.parse("EUR -3") == Money(-3, "EUR")
    assert Money.parse("1,234.5 GBP") == Money("1234.5", "GBP")
    assert Money.parse("7", default_currency="CHF") == Money(7, "CHF")
    with pytest.raises(ValueError):
        Money.parse("twelve dollars")


def test_quantize_uses_bankers_rounding_by_default():
    assert Money("2.345", "USD").quantize() == Money("2.34", "USD")
    assert Money("2.345", "USD").quantize(ROUND_HALF_UP) == Money("2.35", "USD")
    assert Money("1234.5", "JPY").quantize() == Money(1234, "JPY")


def test_minor_units_round_trip():
    assert Money("12.34", "USD").minor_units == 1234
    assert Money.from_minor_units(1234, "KWD") == Money("1.234", "KWD")


def test_str_keeps_currency_places():
    assert str(Money(5, "USD")) == "5.00 USD"
    assert str(Money("0.125", "USD")) == "0.125 USD"
    assert str(Money(500, "JPY")) == "500 JPY"


def test_sum_and_sum_money():
    items = [Money(1, "USD"), Money("2.5", "USD")]
    assert sum(items) == Money("3.5", "USD")
    assert sum_money([], "EUR") == Money.zero("EUR")


def test_multiplication_and_comparison():
    assert Money("2.50", "USD") * 3 == Money("7.50", "USD")
    assert Money(1, "USD") < Money(2, "USD")
    with pytest.raises(TypeError):
        Money(1, "USD") * Money(2, "USD")


def test_registry():
    register_currency("BTC", 8)
    assert get_currency("btc").exponent == 8
    assert get_currency("XYZ").exponent == 2
