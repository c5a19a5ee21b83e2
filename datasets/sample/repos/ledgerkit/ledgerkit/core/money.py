"""Exact money arithmetic on top of :class:`decimal.Decimal`.

Amounts are never floats: every value that enters a :class:`Money` is converted
with :func:`to_decimal`, and rounding to a currency's minor unit is explicit
(:meth:`Money.quantize`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from typing import Iterable, Union

from ledgerkit.core.errors import CurrencyMismatchError

Number = Union[int, str, Decimal]

_CODE = re.compile(r"^[A-Z][A-Z0-9]{2,9}$")


@dataclass(frozen=True)
class Currency:
    """A currency (or commodity) and the number of decimal places of its minor unit."""

    code: str
    exponent: int = 2
    symbol: str = ""

    @property
    def quantum(self) -> Decimal:
        """The smallest representable amount, e.g. ``Decimal("0.01")`` for USD."""
        return Decimal(1).scaleb(-self.exponent)


CURRENCIES: dict[str, Currency] = {
    c.code: c
    for c in (
        Currency("USD", 2, "$"),
        Currency("EUR", 2, "€"),
        Currency("GBP", 2, "£"),
        Currency("CHF", 2),
        Currency("CAD", 2),
        Currency("JPY", 0, "¥"),
        Currency("KWD", 3),
    )
}


def validate_code(code: str) -> str:
    """Returns ``code`` upper-cased, or raises ``ValueError`` if it is not a valid code."""
    normalized = str(code).strip().upper()
    if not _CODE.match(normalized):
        raise ValueError(f"invalid currency code {code!r}")
    return normalized


def register_currency(code: str, exponent: int = 2, symbol: str = "") -> Currency:
    """Adds (or replaces) a currency in the registry and returns it."""
    if exponent < 0:
        raise ValueError("exponent must be non-negative")
    currency = Currency(validate_code(code), exponent, symbol)
    CURRENCIES[currency.code] = currency
    return currency


def get_currency(code: str) -> Currency:
    """The registered currency ``code``; unknown codes default to two decimal places."""
    normalized = validate_code(code)
    return CURRENCIES.get(normalized, Currency(normalized, 2))


def to_decimal(value: Number | float) -> Decimal:
    """Converts ``value`` to a finite ``Decimal``; floats go through ``str`` to avoid binary noise."""
    if isinstance(value, bool):
        raise TypeError("booleans are not amounts")
    if isinstance(value, Decimal):
        result = value
    elif isinstance(value, float):
        result = Decimal(str(value))
    elif isinstance(value, (int, str)):
        try:
            result = Decimal(value.strip() if isinstance(value, str) else value)
        except InvalidOperation:
            raise ValueError(f"not a number: {value!r}") from None
    else:
        raise TypeError(f"cannot convert {type(value).__name__} to an amount")
    if not result.is_finite():
        raise ValueError(f"amount must be finite, got {value!r}")
    return result


@dataclass(frozen=True)
class Money:
    """An exact amount in one currency. Arithmetic across currencies raises."""

    amount: Decimal
    currency: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "amount", to_decimal(self.amount))
        object.__setattr__(self, "currency", validate_code(self.currency))

    # -- construction -----------------------------------------------------

    @classmethod
    def zero(cls, currency: str) -> "Money":
        """Zero in ``currency``."""
        return cls(Decimal(0), currency)

    @classmethod
    def from_minor_units(cls, units: int, currency: str) -> "Money":
        """``Money.from_minor_units(1234, "USD")`` is 12.34 USD."""
        exponent = get_currency(currency).exponent
        return cls(Decimal(units).scaleb(-exponent), currency)

    @classmethod
    def parse(cls, text: str, default_currency: str | None = None) -> "Money":
        """Parses ``"12.50 USD"``, ``"USD 12.50"`` or (with a default currency) ``"12.50"``."""
        parts = text.split()
        if len(parts) == 2:
            first, second = parts
            if _CODE.match(second.upper()) and not _looks_numeric(second):
                return cls(_parse_number(first, text), second)
            if _CODE.match(first.upper()) and not _looks_numeric(first):
                return cls(_parse_number(second, text), first)
        if len(parts) == 1 and default_currency is not None:
            return cls(_parse_number(parts[0], text), default_currency)
        raise ValueError(f"cannot parse money from {text!r}")

    # -- arithmetic -------------------------------------------------------

    def _check(self, other: object) -> "Money":
        if not isinstance(other, Money):
            raise TypeError(f"expected Money, got {type(other).__name__}")
        if other.currency != self.currency:
            raise CurrencyMismatchError(self.currency, other.currency)
        return other

    def __add__(self, other: "Money") -> "Money":
        return Money(self.amount + self._check(other).amount, self.currency)

    def __radd__(self, other: object) -> "Money":
        # Makes sum() work: sum(moneys) starts from the integer 0.
        if other == 0:
            return self
        return self._check(other) + self

    def __sub__(self, other: "Money") -> "Money":
        return Money(self.amount - self._check(other).amount, self.currency)

    def __neg__(self) -> "Money":
        return Money(-self.amount, self.currency)

    def __abs__(self) -> "Money":
        return Money(abs(self.amount), self.currency)

    def __mul__(self, factor: Number) -> "Money":
        if isinstance(factor, Money):
            raise TypeError("cannot multiply Money by Money")
        return Money(self.amount * to_decimal(factor), self.currency)

    __rmul__ = __mul__

    def __lt__(self, other: "Money") -> bool:
        return self.amount < self._check(other).amount

    def __le__(self, other: "Money") -> bool:
        return self.amount <= self._check(other).amount

    def __gt__(self, other: "Money") -> bool:
        return self.amount > self._check(other).amount

    def __ge__(self, other: "Money") -> bool:
        return self.amount >= self._check(other).amount

    # -- queries ----------------------------------------------------------

    def is_zero(self) -> bool:
        return self.amount == 0

    def is_positive(self) -> bool:
        return self.amount > 0

    def is_negative(self) -> bool:
        return self.amount < 0

    @property
    def exponent(self) -> int:
        """Decimal places of this currency's minor unit."""
        return get_currency(self.currency).exponent

    def quantize(self, rounding: str = ROUND_HALF_EVEN) -> "Money":
        """This amount rounded to the currency's minor unit (banker's rounding by default)."""
        quantum = get_currency(self.currency).quantum
        return Money(self.amount.quantize(quantum, rounding=rounding), self.currency)

    @property
    def minor_units(self) -> int:
        """The amount in minor units after rounding, e.g. 1234 for 12.34 USD."""
        return int(self.quantize().amount.scaleb(self.exponent))

    def __str__(self) -> str:
        places = max(self.exponent, -self.amount.as_tuple().exponent)
        return f"{self.amount:.{places}f} {self.currency}"


def _looks_numeric(text: str) -> bool:
    return bool(re.match(r"^[-+]?[\d.,]+$", text))


def _parse_number(text: str, whole: str) -> Decimal:
    try:
        return to_decimal(text.replace(",", ""))
    except ValueError:
        raise ValueError(f"cannot parse money from {whole!r}") from None


def sum_money(items: Iterable[Money], currency: str) -> Money:
    """Adds ``items`` (all in ``currency``); an empty iterable gives zero."""
    total = Money.zero(currency)
    for item in items:
        total = total + item
    return total
