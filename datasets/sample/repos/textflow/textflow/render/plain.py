"""Render a :mod:`textflow.markup` tree as readable plain text."""

from __future__ import annotations

from textflow.markup import nodes as n
from textflow.util.wrap import fill

_UNDERLINES = {1: "=", 2: "-"}


def _inline_text(children: list[n.Node]) -> str:
    parts: list[str] = []
    for child in children:
        if isinstance(child, n.Text):
            parts.append(child.value)
        elif isinstance(child, n.Code):
            parts.append(child.value)
        elif isinstance(child, n.LineBreak):
            parts.append("\n")
        elif isinstance(child, n.Link):
            label = _inline_text(child.children)
            parts.append(f"{label} ({child.href})" if child.href and label != child.href else label)
        elif isinstance(child, (n.Emphasis, n.Strong)):
            parts.append(_inline_text(child.children))
        else:
            raise TypeError(f"cannot render inline node of type {type(child).__name__}")
    return "".join(parts)


def _wrap(text: str, width: int | None) -> str:
    if width is None:
        return text
    return "\n".join(fill(line, width) if line else "" for line in text.split("\n"))


def _prefix(text: str, first: str, rest: str) -> str:
    lines = text.split("\n")
    return "\n".join((first if i == 0 else rest) + line if line else line for i, line in enumerate(lines))


def _block(node: n.Node, width: int | None) -> str:
    if isinstance(node, n.Heading):
        text = _inline_text(node.children)
        underline = _UNDERLINES.get(node.level)
        return f"{text}\n{underline * len(text)}" if underline else text
    if isinstance(node, n.Paragraph):
        return _wrap(_inline_text(node.children), width)
    if isinstance(node, n.CodeBlock):
        return _prefix(node.code.rstrip("\n"), "    ", "    ")
    if isinstance(node, n.BlockQuote):
        inner = _blocks(node.children, None if width is None else max(width - 2, 1))
        return "\n".join("> " + line if line else ">" for line in inner.split("\n"))
    if isinstance(node, n.ListBlock):
        items = []
        for offset, item in enumerate(node.items):
            marker = f"{node.start + offset}. " if node.ordered else "- "
            inner_width = None if width is None else max(width - len(marker), 1)
            body = "\n".join(_block(child, inner_width) for child in item.children)
            items.append(_prefix(body, marker, " " * len(marker)))
        return "\n".join(items)
    if isinstance(node, n.ThematicBreak):
        return "-" * 3
    raise TypeError(f"cannot render block node of type {type(node).__name__}")


def _blocks(children: list[n.Node], width: int | None) -> str:
    return "\n\n".join(_block(child, width) for child in children)


def render_plain(document: n.Document, *, width: int | None = None) -> str:
    """Render ``document`` as plain text, optionally wrapping paragraphs at ``width``.

    Headings of level 1 and 2 are underlined with ``=`` and ``-``; links are
    written as ``label (href)``; emphasis markers are dropped.
    """
    if width is not None and width < 1:
        raise ValueError(f"width must be at least 1, got {width}")
    text = _blocks(document.children, width)
    return text + "\n" if text else ""
