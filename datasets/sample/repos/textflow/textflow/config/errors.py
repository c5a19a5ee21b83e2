"""The exception raised for malformed or incomplete configuration."""

from __future__ import annotations


class ConfigError(Exception):
    """A configuration problem, located by ``source`` and ``lineno`` when known."""

    def __init__(self, message: str, *, source: str | None = None, lineno: int | None = None) -> None:
        self.message = message
        self.source = source
        self.lineno = lineno
        location = ""
        if source is not None:
            location = f"{source}:{lineno}: " if lineno is not None else f"{source}: "
        super().__init__(location + message)
