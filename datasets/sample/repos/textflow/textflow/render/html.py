"""Render a :mod:`textflow.markup` tree as HTML."""

from __future__ import annotations

from collections.abc import Callable

from textflow.markup import nodes as n
from textflow.render.escape import escape_html, is_safe_url


class HtmlRenderer:
    """Turns nodes into HTML strings.

    :param xhtml: write void elements as ``<br />`` and ``<hr />``.
    :param safe_links: replace link targets with unsafe schemes
        (``javascript:`` and the like) by ``#``.
    """

    def __init__(self, *, xhtml: bool = False, safe_links: bool = True) -> None:
        self.xhtml = xhtml
        self.safe_links = safe_links
        self._handlers: dict[type[n.Node], Callable[[n.Node], str]] = {
            n.Document: self._document,
            n.Heading: self._heading,
            n.Paragraph: self._paragraph,
            n.CodeBlock: self._code_block,
            n.BlockQuote: self._block_quote,
            n.ListBlock: self._list,
            n.ListItem: self._list_item,
            n.ThematicBreak: lambda node: self._void("hr") + "\n",
            n.Text: lambda node: escape_html(node.value, quote=False),
            n.Emphasis: lambda node: f"<em>{self._inlines(node.children)}</em>",
            n.Strong: lambda node: f"<strong>{self._inlines(node.children)}</strong>",
            n.Code: lambda node: f"<code>{escape_html(node.value, quote=False)}</code>",
            n.Link: self._link,
            n.LineBreak: lambda node: self._void("br") + "\n",
        }

    def render(self, node: n.Node) -> str:
        """Render ``node`` and its descendants."""
        handler = self._handlers.get(type(node))
        if handler is None:
            raise TypeError(f"cannot render node of type {type(node).__name__}")
        return handler(node)

    # -- helpers ------------------------------------------------------------

    def _void(self, tag: str) -> str:
        return f"<{tag} />" if self.xhtml else f"<{tag}>"

    def _inlines(self, children: list[n.Node]) -> str:
        return "".join(self.render(child) for child in children)

    def _blocks(self, children: list[n.Node]) -> str:
        return "".join(self.render(child) for child in children)

    # -- blocks ---------------------------------------------------------------

    def _document(self, node: n.Document) -> str:
        return self._blocks(node.children)

    def _heading(self, node: n.Heading) -> str:
        return f"<h{node.level}>{self._inlines(node.children)}</h{node.level}>\n"

    def _paragraph(self, node: n.Paragraph) -> str:
        return f"<p>{self._inlines(node.children)}</p>\n"

    def _code_block(self, node: n.CodeBlock) -> str:
        attr = f' class="language-{escape_html(node.lang)}"' if node.lang else ""
        return f"<pre><code{attr}>{escape_html(node.code, quote=False)}</code></pre>\n"

    def _block_quote(self, node: n.BlockQuote) -> str:
        return f"<blockquote>\n{self._blocks(node.children)}</blockquote>\n"

    def _list(self, node: n.ListBlock) -> str:
        if node.ordered:
            start = f' start="{node.start}"' if node.start != 1 else ""
            open_tag, close_tag = f"<ol{start}>", "</ol>"
        else:
            open_tag, close_tag = "<ul>", "</ul>"
        items = "".join(self.render(item) for item in node.items)
        return f"{open_tag}\n{items}{close_tag}\n"

    def _list_item(self, node: n.ListItem) -> str:
        children = node.children
        if not children:
            return "<li></li>\n"
        # tight items: a leading paragraph is rendered without <p>
        first, rest = children[0], children[1:]
        if isinstance(first, n.Paragraph):
            head = self._inlines(first.children)
            tail = ("\n" + self._blocks(rest)) if rest else ""
            return f"<li>{head}{tail}</li>\n"
        return f"<li>\n{self._blocks(children)}</li>\n"

    # -- inlines --------------------------------------------------------------

    def _link(self, node: n.Link) -> str:
        href = node.href
        if self.safe_links and not is_safe_url(href):
            href = "#"
        title = f' title="{escape_html(node.title)}"' if node.title else ""
        return f'<a href="{escape_html(href)}"{title}>{self._inlines(node.children)}</a>'


def render_html(node: n.Node, *, xhtml: bool = False, safe_links: bool = True) -> str:
    """Render a document (or any node) as HTML.

    >>> from textflow.markup import parse
    >>> render_html(parse("Hello *world*"))
    '<p>Hello <em>world</em></p>\\n'
    """
    return HtmlRenderer(xhtml=xhtml, safe_links=safe_links).render(node)
