"""Parse INI-style text into sections of raw string values.

* ``[section]`` starts a section; keys before the first section belong to
  :data:`DEFAULT_SECTION`, whose keys every other section falls back to.
* ``key = value`` or ``key: value``; keys are case-sensitive.
* Lines starting with ``#`` or ``;`` are comments; so is `` #`` or `` ;``
  after a value, unless the value is quoted.
* An indented line continues the previous value (joined with a newline).
"""

from __future__ import annotations

import re

from textflow.config.errors import ConfigError

DEFAULT_SECTION = "DEFAULT"

_SECTION_RE = re.compile(r"^\[\s*(?P<name>[^\]]+?)\s*\]\s*(?:[#;].*)?$")
_PAIR_RE = re.compile(r"^(?P<key>[^=:\s][^=:]*?)\s*[=:]\s*(?P<value>.*)$")
_INLINE_COMMENT_RE = re.compile(r"\s+[#;].*$")


def _strip_comment(value: str) -> str:
    if value[:1] in "\"'[":
        return value.rstrip()
    return _INLINE_COMMENT_RE.sub("", value).rstrip()


def parse_ini(text: str, *, source: str = "<string>") -> dict[str, dict[str, str]]:
    """Parse ``text`` into ``{section: {key: raw value}}``.

    :raises ConfigError: for a line that is neither a section, a pair, a
        comment nor a continuation, and for a key repeated within a section.
    """
    sections: dict[str, dict[str, str]] = {DEFAULT_SECTION: {}}
    current = DEFAULT_SECTION
    last_key: str | None = None
    for lineno, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped[0] in "#;":
            continue
        if line[0] in " \t" and last_key is not None:
            previous = sections[current][last_key]
            sections[current][last_key] = f"{previous}\n{stripped}" if previous else stripped
            continue
        if match := _SECTION_RE.match(stripped):
            current = match.group("name")
            sections.setdefault(current, {})
            last_key = None
            continue
        match = _PAIR_RE.match(stripped)
        if match is None:
            raise ConfigError(f"cannot parse line {stripped!r}", source=source, lineno=lineno)
        key = match.group("key").strip()
        if key in sections[current]:
            raise ConfigError(f"duplicate key '{key}' in section [{current}]", source=source, lineno=lineno)
        sections[current][key] = _strip_comment(match.group("value"))
        last_key = key
    return sections
