"""Formatting shared by every report: amounts, percentages and plain-text tables."""

from __future__ import annotations

from datetime import date
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Sequence

from ledgerkit.core.money import get_currency


def format_amount(amount: Decimal, currency: str | None = None, places: int | None = None) -> str:
    """Formats ``amount`` with the currency's decimal places, e.g. ``"-1234.50 USD"``.

    Without a currency the amount gets ``places`` (default 2) decimals and no suffix.
    Rounding is banker's rounding, like :meth:`Money.quantize`.
    """
    if places is None:
        places = get_currency(currency).exponent if currency else 2
    quantum = Decimal(1).scaleb(-places)
    text = f"{Decimal(amount).quantize(quantum, rounding=ROUND_HALF_EVEN):f}"
    if text.startswith("-") and Decimal(text) == 0:
        text = text[1:]
    return f"{text} {currency}" if currency else text


def format_percent(value: Decimal, places: int = 1) -> str:
    """``Decimal("0.1234")`` -> ``"12.3%"``."""
    scaled = (Decimal(value) * 100).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN)
    return f"{scaled:f}%"


def format_date(day: date | None) -> str:
    """ISO date, or an empty string for ``None``."""
    return day.isoformat() if day else ""


def _is_numeric(value: object) -> bool:
    if isinstance(value, (int, Decimal)) and not isinstance(value, bool):
        return True
    if isinstance(value, str):
        text = value.strip().split(" ")[0].replace(",", "").strip("()%")
        try:
            Decimal(text)
        except ArithmeticError:
            return False
        return bool(text)
    return False


def render_table(
    headers: Sequence[str],
    rows: Sequence[Sequence[object]],
    align: Sequence[str] | None = None,
) -> str:
    """Renders rows as an aligned plain-text table with a dashed rule under the header.

    ``align`` holds ``"l"`` or ``"r"`` per column; by default a column is
    right-aligned when every non-empty cell in it is numeric.
    """
    cells = [[str(value) if value is not None else "" for value in row] for row in rows]
    for row in cells:
        if len(row) != len(headers):
            raise ValueError(f"row has {len(row)} cells, expected {len(headers)}")
    if align is None:
        align = []
        for column in range(len(headers)):
            values = [row[column] for row in rows if row[column] not in (None, "")]
            align.append("r" if values and all(_is_numeric(v) for v in values) else "l")
    elif len(align) != len(headers) or any(a not in ("l", "r") for a in align):
        raise ValueError("align needs one 'l' or 'r' per column")
    widths = [len(h) for h in headers]
    for row in cells:
        widths = [max(w, len(c)) for w, c in zip(widths, row)]

    def line(values: Sequence[str]) -> str:
        parts = [v.rjust(w) if a == "r" else v.ljust(w) for v, w, a in zip(values, widths, align)]
        return "  ".join(parts).rstrip()

    out = [line(list(headers)), "  ".join("-" * w for w in widths)]
    out.extend(line(row) for row in cells)
    return "\n".join(out) + "\n"
