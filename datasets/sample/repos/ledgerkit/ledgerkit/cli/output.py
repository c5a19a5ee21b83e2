"""Rendering command results as text tables or JSON."""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal
from typing import Any, Sequence

from ledgerkit.reports.formatting import render_table

FORMATS: tuple[str, ...] = ("text", "json")


def cell_text(value: Any) -> str:
    """The text shown for one cell: dates in ISO form, ``None`` as empty."""
    if value is None:
        return ""
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return f"{value:f}"
    return str(value)


def _json_value(value: Any) -> Any:
    if isinstance(value, (Decimal, date)):
        return cell_text(value)
    return value


def render(headers: Sequence[str], rows: Sequence[Sequence[Any]], fmt: str = "text") -> str:
    """Renders a result table in ``fmt`` (one of :data:`FORMATS`)."""
    if fmt == "text":
        return render_table(headers, [[cell_text(v) for v in row] for row in rows])
    if fmt == "json":
        keys = [h.lower().replace(" ", "_") for h in headers]
        data = [{k: _json_value(v) for k, v in zip(keys, row)} for row in rows]
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    raise ValueError(f"unknown output format {fmt!r} (expected one of {', '.join(FORMATS)})")
