"""A Markdown-subset parser.

Supported blocks: ATX headings, paragraphs, fenced code, block quotes,
ordered and unordered (nested) lists and thematic breaks. Supported inlines:
emphasis, strong emphasis, code spans, links, backslash escapes and hard line
breaks.
"""

from textflow.markup.blocks import parse
from textflow.markup.inline import parse_inline
from textflow.markup.nodes import Document, Node, text_content, walk

__all__ = ["Document", "Node", "parse", "parse_inline", "text_content", "walk"]
