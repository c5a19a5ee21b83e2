"""Assorted text utilities: slugs, wrapping, case conversion, statistics and diffs."""

from textflow.util.case import camel_case, kebab_case, pascal_case, snake_case, split_words, title_case
from textflow.util.diff import DiffOp, diff_lines, render_diff, similarity
from textflow.util.slug import slugify, unique_slug
from textflow.util.stats import TextStats, analyze, top_words, word_frequencies
from textflow.util.wrap import dedent, fill, indent, shorten, wrap

__all__ = [
    "DiffOp",
    "TextStats",
    "analyze",
    "camel_case",
    "dedent",
    "diff_lines",
    "fill",
    "indent",
    "kebab_case",
    "pascal_case",
    "render_diff",
    "shorten",
    "similarity",
    "slugify",
    "snake_case",
    "split_words",
    "title_case",
    "top_words",
    "unique_slug",
    "word_frequencies",
    "wrap",
]
