"""Greedy word wrapping and related helpers."""

from __future__ import annotations


def _check_width(width: int) -> None:
    if not isinstance(width, int) or isinstance(width, bool):
        raise TypeError(f"width must be an int, got {type(width).__name__}")
    if width < 1:
        raise ValueError(f"width must be at least 1, got {width}")


def wrap(text: str, width: int = 70) -> list[str]:
    """Wrap ``text`` into lines of at most ``width`` characters.

    Whitespace (including line breaks) is collapsed; words are packed greedily.
    A word longer than ``width`` is split into ``width``-sized pieces.

    >>> wrap("the quick brown fox", 10)
    ['the quick', 'brown fox']
    """
    _check_width(width)
    lines: list[str] = []
    current = ""
    for word in text.split():
        while len(word) > width:
            if current:
                lines.append(current)
                current = ""
            lines.append(word[:width])
            word = word[width:]
        if not word:
            continue
        if not current:
            current = word
        elif len(current) + 1 + len(word) <= width:
            current = f"{current} {word}"
        else:
            lines.append(current)
            current = word
    if current:
        lines.append(current)
    return lines


def fill(text: str, width: int = 70) -> str:
    """Like :func:`wrap`, but return a single string with ``\\n`` between lines."""
    return "\n".join(wrap(text, width))


def shorten(text: str, width: int, placeholder: str = " [...]") -> str:
    """Collapse whitespace and truncate ``text`` at a word boundary to fit ``width``.

    When words have to be dropped, ``placeholder`` is appended; if not even the
    first word fits alongside it, only the placeholder (stripped) is returned.

    >>> shorten("Hello  world, how are you?", 18)
    'Hello world [...]'
    """
    _check_width(width)
    collapsed = " ".join(text.split())
    if len(collapsed) <= width:
        return collapsed
    if len(placeholder) > width:
        raise ValueError("placeholder is longer than width")
    kept: list[str] = []
    for word in collapsed.split(" "):
        candidate = " ".join([*kept, word])
        if len(candidate) + len(placeholder) > width:
            break
        kept.append(word)
    result = " ".join(kept).rstrip(",;:.") + placeholder
    return result if kept else placeholder.strip()


def indent(text: str, prefix: str, *, skip_blank: bool = True) -> str:
    """Prefix every line of ``text`` with ``prefix`` (blank lines skipped by default)."""
    return "".join(
        line if skip_blank and not line.strip() else prefix + line
        for line in text.splitlines(keepends=True)
    )


def dedent(text: str) -> str:
    """Remove the whitespace prefix common to all non-blank lines of ``text``."""
    lines = text.splitlines(keepends=True)
    margins = [len(line) - len(line.lstrip(" \t")) for line in lines if line.strip()]
    margin = min(margins, default=0)
    return "".join(line[margin:] if line.strip() else line.lstrip(" \t") for line in lines)
