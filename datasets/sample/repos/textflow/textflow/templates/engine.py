"""Compile and render templates.

Expressions support literals (strings, numbers, ``true``/``false``/``none``),
dotted variable paths (``user.name``, ``items.0``), filters
(``name|upper|default("x")``), comparisons (``==``, ``!=``, ``<``, ``<=``,
``>``, ``>=``, ``in``), ``not``, ``and``, ``or`` and parentheses.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from textflow.render.escape import escape_html
from textflow.templates.errors import TemplateSyntaxError, UndefinedError
from textflow.templates.filters import apply_filter
from textflow.templates.lexer import TemplateToken, TokenType, lex

Context = dict[str, Any]
Expr = Callable[[Context], Any]

_EXPR_TOKEN_RE = re.compile(
    r"""\s*(?:
        (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
      | (?P<number>\d+(?:\.\d+)?)
      | (?P<op>==|!=|<=|>=|[<>|().,])
      | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
    )""",
    re.VERBOSE,
)
_LITERAL_NAMES = {"true": True, "false": False, "none": None, "True": True, "False": False, "None": None}
_COMPARISONS: dict[str, Callable[[Any, Any], bool]] = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "in": lambda a, b: a in b,
}


def _unescape(literal: str) -> str:
    body = literal[1:-1]
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body)


class _ExprParser:
    """Recursive-descent parser compiling an expression into a callable."""

    def __init__(self, source: str, lineno: int, strict: bool) -> None:
        self.source = source
        self.lineno = lineno
        self.strict = strict
        self.tokens: list[tuple[str, str]] = []
        pos = 0
        while pos < len(source):
            if source[pos:].strip() == "":
                break
            match = _EXPR_TOKEN_RE.match(source, pos)
            if match is None or match.end() == pos:
                raise self._error(f"unexpected character {source[pos:].strip()[0]!r}")
            kind = match.lastgroup
            assert kind is not None
            self.tokens.append((kind, match.group(kind)))
            pos = match.end()
        self.index = 0

    def _error(self, message: str) -> TemplateSyntaxError:
        return TemplateSyntaxError(f"{message} in expression {self.source!r}", lineno=self.lineno)

    def _peek(self) -> tuple[str, str] | None:
        return self.tokens[self.index] if self.index < len(self.tokens) else None

    def _accept(self, value: str) -> bool:
        token = self._peek()
        if token is not None and token[1] == value and token[0] in ("op", "name"):
            self.index += 1
            return True
        return False

    def _expect(self, value: str) -> None:
        if not self._accept(value):
            raise self._error(f"expected {value!r}")

    def parse(self) -> Expr:
        expr = self._or()
        if self._peek() is not None:
            raise self._error(f"unexpected {self._peek()[1]!r}")  # type: ignore[index]
        return expr

    def _or(self) -> Expr:
        left = self._and()
        while self._accept("or"):
            right = self._and()
            left = (lambda l, r: lambda ctx: l(ctx) or r(ctx))(left, right)
        return left

    def _and(self) -> Expr:
        left = self._not()
        while self._accept("and"):
            right = self._not()
            left = (lambda l, r: lambda ctx: l(ctx) and r(ctx))(left, right)
        return left

    def _not(self) -> Expr:
        if self._accept("not"):
            inner = self._not()
            return lambda ctx: not inner(ctx)
        return self._comparison()

    def _comparison(self) -> Expr:
        left = self._filtered()
        token = self._peek()
        if token is not None and token[1] in _COMPARISONS:
            self.index += 1
            right = self._filtered()
            compare = _COMPARISONS[token[1]]
            return lambda ctx: compare(left(ctx), right(ctx))
        return left

    def _filtered(self) -> Expr:
        expr = self._primary()
        while self._accept("|"):
            token = self._peek()
            if token is None or token[0] != "name":
                raise self._error("expected a filter name after '|'")
            self.index += 1
            name = token[1]
            args: list[Expr] = []
            if self._accept("("):
                if not self._accept(")"):
                    args.append(self._or())
                    while self._accept(","):
                        args.append(self._or())
                    self._expect(")")
            expr = self._bind_filter(expr, name, args)
        return expr

    def _bind_filter(self, expr: Expr, name: str, args: list[Expr]) -> Expr:
        lineno = self.lineno

        def run(ctx: Context) -> Any:
            return apply_filter(name, expr(ctx), [arg(ctx) for arg in args], lineno=lineno)

        return run

    def _primary(self) -> Expr:
        token = self._peek()
        if token is None:
            raise self._error("unexpected end")
        kind, value = token
        self.index += 1
        if kind == "string":
            text = _unescape(value)
            return lambda ctx: text
        if kind == "number":
            number = float(value) if "." in value else int(value)
            return lambda ctx: number
        if kind == "op" and value == "(":
            inner = self._or()
            self._expect(")")
            return inner
        if kind == "name" and value in _LITERAL_NAMES:
            constant = _LITERAL_NAMES[value]
            return lambda ctx: constant
        if kind == "name":
            path = [value]
            while self._accept("."):
                part = self._peek()
                if part is None or part[0] not in ("name", "number"):
                    raise self._error("expected an attribute after '.'")
                self.index += 1
                path.append(part[1])
            return self._lookup(path)
        raise self._error(f"unexpected {value!r}")

    def _lookup(self, path: list[str]) -> Expr:
        strict, lineno, dotted = self.strict, self.lineno, ".".join(path)

        def resolve(ctx: Context) -> Any:
            value: Any = ctx
            for part in path:
                value = _get_item(value, part)
                if value is _MISSING:
                    if strict:
                        raise UndefinedError(f"{dotted!r} is undefined", lineno=lineno)
                    return None
            return value

        return resolve


_MISSING = object()


def _get_item(value: Any, key: str) -> Any:
    if isinstance(value, Mapping):
        return value.get(key, _MISSING)
    if key.isdigit() and isinstance(value, (list, tuple)):
        index = int(key)
        return value[index] if index < len(value) else _MISSING
    return getattr(value, key, _MISSING)


# --- template nodes ----------------------------------------------------------


@dataclass
class _Text:
    text: str

    def render(self, ctx: Context, out: list[str], tpl: Template) -> None:
        out.append(self.text)


@dataclass
class _Output:
    expr: Expr

    def render(self, ctx: Context, out: list[str], tpl: Template) -> None:
        value = self.expr(ctx)
        if value is None:
            return
        out.append(escape_html(value) if tpl.autoescape else str(value))


@dataclass
class _If:
    branches: list[tuple[Expr, list[Any]]] = field(default_factory=list)
    otherwise: list[Any] = field(default_factory=list)

    def render(self, ctx: Context, out: list[str], tpl: Template) -> None:
        for condition, body in self.branches:
            if condition(ctx):
                _render_nodes(body, ctx, out, tpl)
                return
        _render_nodes(self.otherwise, ctx, out, tpl)


@dataclass
class _For:
    targets: list[str]
    iterable: Expr
    body: list[Any] = field(default_factory=list)
    otherwise: list[Any] = field(default_factory=list)

    def render(self, ctx: Context, out: list[str], tpl: Template) -> None:
        value = self.iterable(ctx)
        if isinstance(value, Mapping):
            value = value.items()
        items = list(value) if value is not None else []
        if not items:
            _render_nodes(self.otherwise, ctx, out, tpl)
            return
        for index, item in enumerate(items):
            scope = dict(ctx)
            if len(self.targets) == 1:
                scope[self.targets[0]] = item
            else:
                values = list(item)
                if len(values) != len(self.targets):
                    raise TemplateSyntaxError(
                        f"cannot unpack {len(values)} values into {len(self.targets)} names"
                    )
                scope.update(zip(self.targets, values))
            scope["loop"] = {
                "index": index + 1,
                "index0": index,
                "first": index == 0,
                "last": index == len(items) - 1,
                "length": len(items),
            }
            _render_nodes(self.body, scope, out, tpl)


def _render_nodes(nodes: Iterable[Any], ctx: Context, out: list[str], tpl: Template) -> None:
    for node in nodes:
        node.render(ctx, out, tpl)


_FOR_RE = re.compile(r"^for\s+([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s+in\s+(.+)$", re.DOTALL)


class _Compiler:
    def __init__(self, tokens: list[TemplateToken], strict: bool) -> None:
        self.tokens = tokens
        self.strict = strict
        self.index = 0

    def _expr(self, source: str, lineno: int) -> Expr:
        return _ExprParser(source, lineno, self.strict).parse()

    def compile(self) -> list[Any]:
        nodes, end = self._body(())
        if end is not None:
            raise TemplateSyntaxError(f"unexpected '{end.value}'", lineno=end.lineno)
        return nodes

    def _body(self, stop: tuple[str, ...]) -> tuple[list[Any], TemplateToken | None]:
        nodes: list[Any] = []
        while self.index < len(self.tokens):
            token = self.tokens[self.index]
            self.index += 1
            if token.type is TokenType.TEXT:
                nodes.append(_Text(token.value))
            elif token.type is TokenType.VAR:
                nodes.append(_Output(self._expr(token.value, token.lineno)))
            elif token.type is TokenType.BLOCK:
                keyword = token.value.split(None, 1)[0]
                if keyword in stop:
                    return nodes, token
                if keyword == "if":
                    nodes.append(self._if(token))
                elif keyword == "for":
                    nodes.append(self._for(token))
                else:
                    raise TemplateSyntaxError(f"unknown tag '{keyword}'", lineno=token.lineno)
        if stop:
            raise TemplateSyntaxError(f"missing '{stop[-1]}'", lineno=self.tokens[-1].lineno)
        return nodes, None

    def _if(self, token: TemplateToken) -> _If:
        node = _If()
        condition = token.value[2:].strip()
        while True:
            if not condition:
                raise TemplateSyntaxError("'if' needs a condition", lineno=token.lineno)
            body, end = self._body(("elif", "else", "endif"))
            node.branches.append((self._expr(condition, token.lineno), body))
            assert end is not None
            keyword = end.value.split(None, 1)[0]
            if keyword == "elif":
                token, condition = end, end.value[4:].strip()
                continue
            if keyword == "else":
                node.otherwise, _ = self._body(("endif",))
            return node

    def _for(self, token: TemplateToken) -> _For:
        match = _FOR_RE.match(token.value)
        if match is None:
            raise TemplateSyntaxError("expected 'for NAME in EXPR'", lineno=token.lineno)
        targets = [t.strip() for t in match.group(1).split(",")]
        node = _For(targets, self._expr(match.group(2), token.lineno))
        node.body, end = self._body(("else", "endfor"))
        assert end is not None
        if end.value.split(None, 1)[0] == "else":
            node.otherwise, _ = self._body(("endfor",))
        return node


class Template:
    """A compiled template.

    :param autoescape: HTML-escape every printed value that is not
        :class:`~textflow.render.escape.Markup` (see the ``safe`` filter).
    :param strict: raise :class:`UndefinedError` for undefined variables
        instead of treating them as ``none``.
    """

    def __init__(self, source: str, *, autoescape: bool = False, strict: bool = False) -> None:
        self.source = source
        self.autoescape = autoescape
        self.strict = strict
        self._nodes = _Compiler(lex(source), strict).compile()

    def render(self, context: Mapping[str, Any] | None = None, /, **kwargs: Any) -> str:
        """Render with the variables of ``context`` and ``kwargs`` (which win)."""
        ctx: Context = dict(context or {})
        ctx.update(kwargs)
        out: list[str] = []
        _render_nodes(self._nodes, ctx, out, self)
        return "".join(out)


def render_string(source: str, context: Mapping[str, Any] | None = None, **kwargs: Any) -> str:
    """Compile ``source`` and render it once."""
    return Template(source).render(context, **kwargs)
