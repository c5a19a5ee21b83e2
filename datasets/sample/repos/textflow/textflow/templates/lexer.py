"""Split template source into text, variable, block and comment tokens."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from textflow.templates.errors import TemplateSyntaxError

_TAG_RE = re.compile(r"(\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\})", re.DOTALL)
_OPENERS = {"{{": ("}}", "variable"), "{%": ("%}", "block"), "{#": ("#}", "comment")}


class TokenType(str, Enum):
    TEXT = "text"
    VAR = "var"
    BLOCK = "block"
    COMMENT = "comment"


@dataclass(frozen=True, slots=True)
class TemplateToken:
    """A lexical unit of a template; ``value`` is stripped of its delimiters."""

    type: TokenType
    value: str
    lineno: int


def lex(source: str) -> list[TemplateToken]:
    """Tokenize ``source``.

    :raises TemplateSyntaxError: for a tag that is opened but never closed.
    """
    tokens: list[TemplateToken] = []
    lineno = 1
    for part in _TAG_RE.split(source):
        if not part:
            continue
        opener = part[:2]
        if opener in _OPENERS and part.endswith(_OPENERS[opener][0]) and len(part) >= 4:
            inner = part[2:-2].strip()
            kind = {"{{": TokenType.VAR, "{%": TokenType.BLOCK, "{#": TokenType.COMMENT}[opener]
            if kind is not TokenType.COMMENT and not inner:
                raise TemplateSyntaxError(f"empty {_OPENERS[opener][1]} tag", lineno=lineno)
            tokens.append(TemplateToken(kind, inner, lineno))
        else:
            for op, (_, name) in _OPENERS.items():
                index = part.find(op)
                if index != -1:
                    line = lineno + part.count("\n", 0, index)
                    raise TemplateSyntaxError(f"unclosed {name} tag", lineno=line)
            tokens.append(TemplateToken(TokenType.TEXT, part, lineno))
        lineno += part.count("\n")
    return tokens
