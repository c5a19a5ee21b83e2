"""Convert raw configuration strings into Python values."""

from __future__ import annotations

import re
from typing import Any

_TRUE = frozenset({"true", "yes", "on"})
_FALSE = frozenset({"false", "no", "off"})
_INT_RE = re.compile(r"^[+-]?\d[\d_]*$")
_FLOAT_RE = re.compile(r"^[+-]?(\d[\d_]*)?\.\d+([eE][+-]?\d+)?$|^[+-]?\d[\d_]*[eE][+-]?\d+$")
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "'": "'"}


def parse_bool(raw: str) -> bool:
    """``true/yes/on`` and ``false/no/off`` (any case); anything else is an error."""
    lowered = raw.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ValueError(f"not a boolean: {raw!r}")


def _unquote(raw: str) -> str:
    quote = raw[0]
    if len(raw) < 2 or raw[-1] != quote:
        raise ValueError(f"unterminated string: {raw}")
    body = raw[1:-1]
    if quote == "'":
        return body  # single quotes are literal, as in TOML
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), "\\" + m.group(1)), body)


def _split_items(body: str) -> list[str]:
    """Split a list body on commas that are not nested or quoted."""
    items: list[str] = []
    depth, quote, start = 0, "", 0
    for i, ch in enumerate(body):
        if quote:
            if ch == quote and body[i - 1] != "\\":
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(body[start:i])
            start = i + 1
    items.append(body[start:])
    return [item.strip() for item in items if item.strip()]


def parse_list(raw: str) -> list[Any]:
    """Parse ``[a, b, ...]`` (items coerced recursively) or a bare comma list."""
    text = raw.strip()
    if text.startswith("["):
        if not text.endswith("]"):
            raise ValueError(f"unterminated list: {raw}")
        text = text[1:-1]
    return [coerce(item) for item in _split_items(text)]


def coerce(raw: str) -> Any:
    """Best-effort conversion of a raw value.

    Quoted strings are unquoted, ``[...]`` becomes a list, booleans, integers
    (``1_000`` allowed) and floats are converted; anything else stays a string.
    """
    text = raw.strip()
    if not text:
        return ""
    if text[0] in "\"'":
        return _unquote(text)
    if text[0] == "[":
        return parse_list(text)
    lowered = text.lower()
    if lowered in _TRUE or lowered in _FALSE:
        return lowered in _TRUE
    if _INT_RE.match(text):
        return int(text.replace("_", ""))
    if _FLOAT_RE.match(text):
        return float(text.replace("_", ""))
    return text
