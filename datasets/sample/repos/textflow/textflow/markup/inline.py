"""Inline parsing: emphasis, strong, code spans, links, escapes and line breaks."""

from __future__ import annotations

import re
import string

from textflow.markup.nodes import Code, Emphasis, LineBreak, Link, Node, Strong, Text

_ESCAPABLE = frozenset(string.punctuation)
_LINK_TARGET_RE = re.compile(r"""\(\s*(?P<href>[^\s()]*)(?:\s+"(?P<title>[^"]*)")?\s*\)""")


class _InlineParser:
    """A single-pass scanner over one block's inline text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.nodes: list[Node] = []
        self.buffer: list[str] = []

    # -- helpers ------------------------------------------------------------

    def _flush(self) -> None:
        if self.buffer:
            self.nodes.append(Text("".join(self.buffer)))
            self.buffer.clear()

    def _emit(self, node: Node) -> None:
        self._flush()
        self.nodes.append(node)

    def _find_closing(self, delim: str, start: int) -> int:
        """Index of the closing ``delim`` at or after ``start``, or -1.

        Escaped characters and code spans are skipped; the closing delimiter
        must follow a non-space character.
        """
        text = self.text
        i = start
        while i < len(text):
            ch = text[i]
            if ch == "\\":
                i += 2
                continue
            if ch == "`":
                run = len(text[i:]) - len(text[i:].lstrip("`"))
                end = text.find("`" * run, i + run)
                i = end + run if end != -1 else i + run
                continue
            if text.startswith(delim, i) and i > start and not text[i - 1].isspace():
                # a single-character delimiter must not be half of a double one
                if len(delim) == 1 and text.startswith(delim * 2, i):
                    i += 2
                    continue
                return i
            i += 1
        return -1

    # -- constructs -----------------------------------------------------------

    def _code_span(self) -> bool:
        text, pos = self.text, self.pos
        run = len(text[pos:]) - len(text[pos:].lstrip("`"))
        end = text.find("`" * run, pos + run)
        while end != -1 and text.startswith("`", end + run):
            end = text.find("`" * run, end + run + 1)
        if end == -1:
            self.buffer.append("`" * run)
            self.pos += run
            return True
        content = text[pos + run : end].replace("\n", " ")
        if len(content) >= 2 and content[0] == " " and content[-1] == " " and content.strip():
            content = content[1:-1]
        self._emit(Code(content))
        self.pos = end + run
        return True

    def _delimited(self, delim: str, factory: type[Emphasis] | type[Strong]) -> bool:
        text, pos = self.text, self.pos
        inner_start = pos + len(delim)
        if inner_start >= len(text) or text[inner_start].isspace():
            return False
        if delim[0] == "_" and pos > 0 and text[pos - 1].isalnum():
            return False  # intraword underscores are literal (snake_case)
        end = self._find_closing(delim, inner_start)
        if end == -1:
            return False
        after = end + len(delim)
        if delim[0] == "_" and after < len(text) and text[after].isalnum():
            return False
        self._emit(factory(parse_inline(text[inner_start:end])))
        self.pos = after
        return True

    def _link(self) -> bool:
        text, pos = self.text, self.pos
        depth = 0
        i = pos
        while i < len(text):
            ch = text[i]
            if ch == "\\":
                i += 2
                continue
            if ch == "[":
                depth += 1
            elif ch == "]":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        else:
            return False
        match = _LINK_TARGET_RE.match(text, i + 1)
        if match is None:
            return False
        label = text[pos + 1 : i]
        self._emit(Link(match.group("href"), parse_inline(label), match.group("title")))
        self.pos = match.end()
        return True

    # -- main loop ------------------------------------------------------------

    def parse(self) -> list[Node]:
        text = self.text
        while self.pos < len(text):
            ch = text[self.pos]
            if ch == "\\" and self.pos + 1 < len(text):
                nxt = text[self.pos + 1]
                if nxt == "\n":
                    self._emit(LineBreak())
                    self.pos += 2
                    continue
                if nxt in _ESCAPABLE:
                    self.buffer.append(nxt)
                    self.pos += 2
                    continue
            if ch == "\n":
                # two or more trailing spaces before a newline make a hard break
                stripped = "".join(self.buffer).rstrip(" ")
                if len("".join(self.buffer)) - len(stripped) >= 2:
                    self.buffer[:] = [stripped]
                    self._emit(LineBreak())
                    self.pos += 1
                    continue
            if ch == "`" and self._code_span():
                continue
            if ch in "*_":
                double = text.startswith(ch * 2, self.pos)
                if double and self._delimited(ch * 2, Strong):
                    continue
                if self._delimited(ch, Emphasis):
                    continue
                if double:
                    self.buffer.append(ch * 2)
                    self.pos += 2
                    continue
            if ch == "[" and self._link():
                continue
            self.buffer.append(ch)
            self.pos += 1
        self._flush()
        return self.nodes


def parse_inline(text: str) -> list[Node]:
    """Parse the inline content of one block into a list of nodes.

    Adjacent literal text is merged into a single :class:`~textflow.markup.nodes.Text`.
    Unmatched delimiters are kept as literal text.
    """
    return _InlineParser(text).parse()
