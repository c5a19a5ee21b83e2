"""textflow: a small, dependency-free text processing toolkit.

The package is organised in sub-packages that can be used on their own:

* :mod:`textflow.lex` -- tokenizer and sentence splitter
* :mod:`textflow.markup` -- Markdown-subset parser
* :mod:`textflow.render` -- HTML and plain-text renderers
* :mod:`textflow.templates` -- template engine with filters
* :mod:`textflow.util` -- slugs, wrapping, case conversion, statistics, diffs
* :mod:`textflow.config` -- INI/TOML-ish configuration loader
"""

__version__ = "0.4.0"

__all__ = ["__version__"]
