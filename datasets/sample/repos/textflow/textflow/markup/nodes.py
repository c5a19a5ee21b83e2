"""The node tree produced by :func:`textflow.markup.parse`.

Block nodes hold other blocks or inline nodes in ``children``; leaf nodes hold
their text in ``value`` (or ``code``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field


@dataclass
class Node:
    """Base class of all nodes."""

    @property
    def child_nodes(self) -> list[Node]:
        """The direct children of this node (empty for leaves)."""
        return list(getattr(self, "children", []))


# --- inline nodes ---------------------------------------------------------


@dataclass
class Text(Node):
    """Literal text."""

    value: str


@dataclass
class Emphasis(Node):
    """``*emphasis*`` or ``_emphasis_``."""

    children: list[Node] = field(default_factory=list)


@dataclass
class Strong(Node):
    """``**strong**`` or ``__strong__``."""

    children: list[Node] = field(default_factory=list)


@dataclass
class Code(Node):
    """A ``code span``."""

    value: str


@dataclass
class Link(Node):
    """``[text](href "title")``."""

    href: str
    children: list[Node] = field(default_factory=list)
    title: str | None = None


@dataclass
class LineBreak(Node):
    """A hard line break (two trailing spaces or a trailing backslash)."""


# --- block nodes ----------------------------------------------------------


@dataclass
class Heading(Node):
    """An ATX heading, ``#`` to ``######``."""

    level: int
    children: list[Node] = field(default_factory=list)


@dataclass
class Paragraph(Node):
    """A paragraph of inline content."""

    children: list[Node] = field(default_factory=list)


@dataclass
class CodeBlock(Node):
    """A fenced code block; ``lang`` is the info string, if any."""

    code: str
    lang: str | None = None


@dataclass
class BlockQuote(Node):
    """A ``>`` block quote holding blocks."""

    children: list[Node] = field(default_factory=list)


@dataclass
class ListItem(Node):
    """One item of a :class:`ListBlock`, holding blocks."""

    children: list[Node] = field(default_factory=list)


@dataclass
class ListBlock(Node):
    """An ordered or unordered list."""

    ordered: bool
    items: list[ListItem] = field(default_factory=list)
    start: int = 1

    @property
    def child_nodes(self) -> list[Node]:
        return list(self.items)


@dataclass
class ThematicBreak(Node):
    """A ``---`` horizontal rule."""


@dataclass
class Document(Node):
    """The root of a parsed document."""

    children: list[Node] = field(default_factory=list)


def walk(node: Node) -> Iterator[Node]:
    """Yield ``node`` and all of its descendants, depth first, in document order."""
    yield node
    for child in node.child_nodes:
        yield from walk(child)


def text_content(node: Node) -> str:
    """Concatenate the literal text below ``node`` (markup removed)."""
    if isinstance(node, (Text, Code)):
        return node.value
    if isinstance(node, CodeBlock):
        return node.code
    if isinstance(node, LineBreak):
        return "\n"
    return "".join(text_content(child) for child in node.child_nodes)
