"""Exceptions raised by the template engine."""

from __future__ import annotations


class TemplateError(Exception):
    """Base class for template errors; ``lineno`` is 1-based when known."""

    def __init__(self, message: str, *, lineno: int | None = None) -> None:
        self.message = message
        self.lineno = lineno
        super().__init__(f"line {lineno}: {message}" if lineno is not None else message)


class TemplateSyntaxError(TemplateError):
    """The template source is malformed."""


class UndefinedError(TemplateError):
    """A variable is undefined and the template is strict."""
