"""Built-in template filters and the filter registry.

A filter is a callable taking the value as its first argument and the filter
arguments after it: ``{{ name|default("anonymous") }}`` calls
``default(name, "anonymous")``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from textflow.render.escape import Markup, escape_html
from textflow.templates.errors import TemplateError
from textflow.util.slug import slugify

Filter = Callable[..., Any]

FILTERS: dict[str, Filter] = {}


def register(name: str) -> Callable[[Filter], Filter]:
    """Decorator registering a filter under ``name`` (replacing any previous one)."""

    def decorator(func: Filter) -> Filter:
        FILTERS[name] = func
        return func

    return decorator


def get_filter(name: str) -> Filter:
    """Return the filter called ``name``.

    :raises TemplateError: if there is no such filter.
    """
    try:
        return FILTERS[name]
    except KeyError:
        raise TemplateError(f"unknown filter '{name}'") from None


def apply_filter(name: str, value: Any, args: Iterable[Any], *, lineno: int | None = None) -> Any:
    """Call filter ``name`` on ``value``; errors become :class:`TemplateError`."""
    func = get_filter(name)
    try:
        return func(value, *args)
    except TemplateError:
        raise
    except (TypeError, ValueError) as exc:
        raise TemplateError(f"filter '{name}': {exc}", lineno=lineno) from exc


def _text(value: Any) -> str:
    return "" if value is None else str(value)


@register("upper")
def upper(value: Any) -> str:
    return _text(value).upper()


@register("lower")
def lower(value: Any) -> str:
    return _text(value).lower()


@register("title")
def title(value: Any) -> str:
    return _text(value).title()


@register("capitalize")
def capitalize(value: Any) -> str:
    return _text(value).capitalize()


@register("trim")
def trim(value: Any) -> str:
    return _text(value).strip()


@register("length")
def length(value: Any) -> int:
    return 0 if value is None else len(value)


@register("join")
def join(value: Any, separator: str = ", ") -> str:
    if value is None:
        return ""
    return separator.join(_text(item) for item in value)


@register("default")
def default(value: Any, fallback: Any = "") -> Any:
    """Return ``fallback`` when ``value`` is undefined (``none``)."""
    return fallback if value is None else value


@register("replace")
def replace(value: Any, old: str, new: str) -> str:
    return _text(value).replace(old, new)


@register("first")
def first(value: Any) -> Any:
    return next(iter(value), None) if value is not None else None


@register("last")
def last(value: Any) -> Any:
    items = list(value) if value is not None else []
    return items[-1] if items else None


@register("escape")
def escape(value: Any) -> Markup:
    return escape_html(_text(value))


@register("safe")
def safe(value: Any) -> Markup:
    """Mark ``value`` as safe HTML so that autoescaping leaves it alone."""
    return Markup(_text(value))


@register("slugify")
def slug(value: Any) -> str:
    return slugify(_text(value))
