"""Renderers for :mod:`textflow.markup` documents."""

from textflow.render.escape import Markup, escape_html, is_safe_url
from textflow.render.html import HtmlRenderer, render_html
from textflow.render.plain import render_plain

__all__ = ["HtmlRenderer", "Markup", "escape_html", "is_safe_url", "render_html", "render_plain"]
