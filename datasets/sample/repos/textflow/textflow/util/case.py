"""Convert identifiers and phrases between naming conventions."""

from __future__ import annotations

import re

_SEPARATOR_RE = re.compile(r"[^A-Za-z0-9]+")
_BOUNDARY_RE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def split_words(text: str) -> list[str]:
    """Split an identifier or phrase into its words.

    Words are separated by any non-alphanumeric characters and by a lower-case
    letter or digit followed by an upper-case letter.

    >>> split_words("parseHTML_file-name")
    ['parse', 'HTML', 'file', 'name']
    """
    if not isinstance(text, str):
        raise TypeError(f"expected str, got {type(text).__name__}")
    result: list[str] = []
    for chunk in _SEPARATOR_RE.split(text):
        result.extend(part for part in _BOUNDARY_RE.split(chunk) if part)
    return result


def snake_case(text: str) -> str:
    """``"Hello World"`` -> ``"hello_world"``."""
    return "_".join(word.lower() for word in split_words(text))


def kebab_case(text: str) -> str:
    """``"Hello World"`` -> ``"hello-world"``."""
    return "-".join(word.lower() for word in split_words(text))


def camel_case(text: str) -> str:
    """``"hello world"`` -> ``"helloWorld"``."""
    parts = split_words(text)
    if not parts:
        return ""
    return parts[0].lower() + "".join(word.capitalize() for word in parts[1:])


def pascal_case(text: str) -> str:
    """``"hello world"`` -> ``"HelloWorld"``."""
    return "".join(word.capitalize() for word in split_words(text))


def title_case(text: str) -> str:
    """Capitalize every word of a phrase, keeping its spacing.

    >>> title_case("the  old man")
    'The  Old Man'
    """
    return re.sub(r"[A-Za-z][A-Za-z']*", lambda m: m.group(0)[0].upper() + m.group(0)[1:].lower(), text)
