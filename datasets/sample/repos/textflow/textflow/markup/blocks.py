"""Block-level parsing: turns source text into a :class:`Document`."""

from __future__ import annotations

import re

from textflow.markup.inline import parse_inline
from textflow.markup.nodes import (
    BlockQuote,
    CodeBlock,
    Document,
    Heading,
    ListBlock,
    ListItem,
    Node,
    Paragraph,
    ThematicBreak,
)

_HEADING_RE = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*([^`\s]*)[ \t]*$")
_BREAK_RE = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_QUOTE_RE = re.compile(r"^ {0,3}> ?(.*)$")
_BULLET_RE = re.compile(r"^( {0,3})([-*+])[ \t]+(.*)$")
_ORDERED_RE = re.compile(r"^( {0,3})(\d{1,9})([.)])[ \t]+(.*)$")


def _is_blank(line: str) -> bool:
    return not line.strip()


def _list_marker(line: str) -> tuple[bool, int, str, int] | None:
    """Return ``(ordered, start, text, content_indent)`` for a list item line."""
    match = _ORDERED_RE.match(line)
    if match:
        indent, number, delim, rest = match.groups()
        return True, int(number), rest, len(indent) + len(number) + len(delim) + 1
    match = _BULLET_RE.match(line)
    if match:
        indent, _bullet, rest = match.groups()
        return False, 1, rest, len(indent) + 2
    return None


def _starts_block(line: str) -> bool:
    """True when ``line`` interrupts a paragraph."""
    return bool(
        _HEADING_RE.match(line)
        or _FENCE_RE.match(line)
        or _BREAK_RE.match(line)
        or _QUOTE_RE.match(line)
        or _list_marker(line)
    )


class _BlockParser:
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.i = 0

    def parse(self) -> list[Node]:
        blocks: list[Node] = []
        while self.i < len(self.lines):
            line = self.lines[self.i]
            if _is_blank(line):
                self.i += 1
            elif match := _FENCE_RE.match(line):
                blocks.append(self._fenced_code(match.group(1), match.group(2)))
            elif match := _HEADING_RE.match(line):
                blocks.append(Heading(len(match.group(1)), parse_inline((match.group(2) or "").strip())))
                self.i += 1
            elif _BREAK_RE.match(line):
                blocks.append(ThematicBreak())
                self.i += 1
            elif _QUOTE_RE.match(line):
                blocks.append(self._block_quote())
            elif marker := _list_marker(line):
                blocks.append(self._list(marker[0]))
            else:
                blocks.append(self._paragraph())
        return blocks

    def _fenced_code(self, fence: str, info: str) -> CodeBlock:
        self.i += 1
        body: list[str] = []
        while self.i < len(self.lines):
            line = self.lines[self.i]
            self.i += 1
            stripped = line.strip()
            if stripped.startswith(fence[0] * len(fence)) and not stripped.strip(fence[0]):
                break
            body.append(line)
        code = "\n".join(body) + ("\n" if body else "")
        return CodeBlock(code, info or None)

    def _block_quote(self) -> BlockQuote:
        inner: list[str] = []
        while self.i < len(self.lines):
            match = _QUOTE_RE.match(self.lines[self.i])
            if match:
                inner.append(match.group(1))
            elif inner and not _is_blank(self.lines[self.i]) and not _starts_block(self.lines[self.i]):
                inner.append(self.lines[self.i])  # lazy continuation
            else:
                break
            self.i += 1
        return BlockQuote(_BlockParser(inner).parse())

    def _list(self, ordered: bool) -> ListBlock:
        marker = _list_marker(self.lines[self.i])
        assert marker is not None
        block = ListBlock(ordered=ordered, start=marker[1])
        while self.i < len(self.lines):
            marker = _list_marker(self.lines[self.i])
            if marker is None or marker[0] != ordered:
                break
            _, _, first, indent = marker
            body = [first]
            self.i += 1
            while self.i < len(self.lines):
                line = self.lines[self.i]
                if _is_blank(line):
                    nxt = self.lines[self.i + 1] if self.i + 1 < len(self.lines) else ""
                    if nxt.startswith(" " * indent) and not _is_blank(nxt):
                        body.append("")
                        self.i += 1
                        continue
                    break
                if line.startswith(" " * indent):
                    body.append(line[indent:])
                elif not _starts_block(line) and not _is_blank(body[-1]):
                    body.append(line.strip())  # lazy paragraph continuation
                else:
                    break
                self.i += 1
            block.items.append(ListItem(_BlockParser(body).parse()))
            # a blank line between items keeps the list going
            if (
                self.i + 1 < len(self.lines)
                and _is_blank(self.lines[self.i])
                and (nxt_marker := _list_marker(self.lines[self.i + 1]))
                and nxt_marker[0] == ordered
            ):
                self.i += 1
        return block

    def _paragraph(self) -> Paragraph:
        body: list[str] = []
        while self.i < len(self.lines):
            line = self.lines[self.i]
            if _is_blank(line) or (body and _starts_block(line)):
                break
            body.append(line.lstrip())
            self.i += 1
        return Paragraph(parse_inline("\n".join(body).rstrip()))


def parse(text: str) -> Document:
    """Parse Markdown-subset ``text`` into a :class:`~textflow.markup.nodes.Document`."""
    if not isinstance(text, str):
        raise TypeError(f"expected str, got {type(text).__name__}")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").expandtabs(4).split("\n")
    return Document(_BlockParser(lines).parse())
