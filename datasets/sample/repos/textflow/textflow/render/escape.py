"""HTML escaping helpers shared by the renderers and the template engine."""

from __future__ import annotations

from urllib.parse import urlsplit

_SAFE_SCHEMES = frozenset({"", "http", "https", "mailto", "ftp", "tel"})

_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;"}


class Markup(str):
    """A string that is already safe to insert into HTML unescaped."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Markup({str.__repr__(self)})"


def escape_html(text: object, *, quote: bool = True) -> Markup:
    """Escape ``&``, ``<`` and ``>`` (and quotes when ``quote`` is true).

    :class:`Markup` values are returned unchanged; other objects are converted
    with :func:`str` first.
    """
    if isinstance(text, Markup):
        return text
    value = str(text)
    out = []
    for ch in value:
        if ch in "\"'" and not quote:
            out.append(ch)
        else:
            out.append(_ESCAPES.get(ch, ch))
    return Markup("".join(out))


def is_safe_url(url: str) -> bool:
    """True when ``url`` is relative or uses a scheme that cannot run script."""
    candidate = "".join(url.split()).lower()
    try:
        scheme = urlsplit(candidate).scheme
    except ValueError:
        return False
    return scheme in _SAFE_SCHEMES
