"""URL slugs: lower-case ASCII words joined by hyphens."""

from __future__ import annotations

import re
from collections.abc import Collection

_NON_ALNUM_RE = re.compile(r"[^a-z0-9]+")


def slugify(text: str) -> str:
    """Turn ``text`` into a URL slug.

    The text is lower-cased, every run of characters other than ASCII letters
    and digits becomes one hyphen, and leading and trailing hyphens are removed.

    >>> slugify("Hello, World!")
    'hello-world'
    """
    if not isinstance(text, str):
        raise TypeError(f"slugify() expects str, got {type(text).__name__}")
    return _NON_ALNUM_RE.sub("-", text.lower()).strip("-")


def unique_slug(text: str, taken: Collection[str]) -> str:
    """Return a slug for ``text`` that is not in ``taken``.

    When the plain slug is taken, ``-2``, ``-3``, ... is appended until the
    result is free.

    >>> unique_slug("Intro", {"intro"})
    'intro-2'
    """
    base = slugify(text)
    if base not in taken:
        return base
    counter = 2
    while f"{base}-{counter}" in taken:
        counter += 1
    return f"{base}-{counter}"
