"""A small template engine.

``{{ expr|filter|filter(arg) }}`` prints a value, ``{% if %}``/``{% elif %}``/
``{% else %}``/``{% endif %}`` and ``{% for x in xs %}``/``{% endfor %}``
control output, ``{# ... #}`` is a comment.
"""

from textflow.templates.engine import Template, render_string
from textflow.templates.errors import TemplateError, TemplateSyntaxError, UndefinedError
from textflow.templates.filters import FILTERS, get_filter, register

__all__ = [
    "FILTERS",
    "Template",
    "TemplateError",
    "TemplateSyntaxError",
    "UndefinedError",
    "get_filter",
    "register",
    "render_string",
]
