"""The :class:`Config` object: typed access to parsed configuration."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from os import PathLike
from pathlib import Path
from typing import Any

from textflow.config.errors import ConfigError
from textflow.config.ini import DEFAULT_SECTION, parse_ini
from textflow.config.values import coerce, parse_bool, parse_list

_MISSING: Any = object()


class Config(Mapping[str, dict[str, Any]]):
    """Parsed configuration: a read-only mapping of section name to values.

    Lookups in a section fall back to :data:`DEFAULT_SECTION`.
    """

    def __init__(self, sections: Mapping[str, Mapping[str, str]], *, source: str = "<string>") -> None:
        self.source = source
        self._sections: dict[str, dict[str, str]] = {name: dict(values) for name, values in sections.items()}
        self._sections.setdefault(DEFAULT_SECTION, {})

    # -- construction ---------------------------------------------------------

    @classmethod
    def from_string(cls, text: str, *, source: str = "<string>") -> Config:
        """Parse INI text."""
        return cls(parse_ini(text, source=source), source=source)

    @classmethod
    def from_file(cls, path: str | PathLike[str]) -> Config:
        """Read and parse a UTF-8 file."""
        file = Path(path)
        try:
            text = file.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"cannot read file: {exc.strerror}", source=str(file)) from exc
        return cls.from_string(text, source=str(file))

    # -- mapping protocol -----------------------------------------------------

    def __getitem__(self, section: str) -> dict[str, Any]:
        if section not in self._sections:
            raise KeyError(section)
        return self.section(section)

    def __iter__(self) -> Iterator[str]:
        return iter(self._sections)

    def __len__(self) -> int:
        return len(self._sections)

    # -- lookups --------------------------------------------------------------

    def sections(self) -> list[str]:
        """Section names in file order, without :data:`DEFAULT_SECTION`."""
        return [name for name in self._sections if name != DEFAULT_SECTION]

    def has(self, section: str, key: str) -> bool:
        """True when ``key`` is set in ``section`` or in the default section."""
        return key in self._sections.get(section, {}) or key in self._sections[DEFAULT_SECTION]

    def get_raw(self, section: str, key: str, default: Any = _MISSING) -> Any:
        """The uncoerced string value of ``key`` in ``section``."""
        values = self._sections.get(section, {})
        if key in values:
            return values[key]
        if key in self._sections[DEFAULT_SECTION]:
            return self._sections[DEFAULT_SECTION][key]
        if default is not _MISSING:
            return default
        raise ConfigError(f"missing key '{key}' in section [{section}]", source=self.source)

    def get(self, section: str, key: str, default: Any = _MISSING) -> Any:  # type: ignore[override]
        """The value of ``key`` in ``section``, coerced with :func:`coerce`."""
        raw = self.get_raw(section, key, _MISSING if default is _MISSING else None)
        if raw is None and default is not _MISSING:
            return default
        return self._convert(section, key, raw, coerce, "a value")

    def get_int(self, section: str, key: str, default: Any = _MISSING) -> int:
        value = self.get(section, key, default)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"[{section}] {key}: expected an integer, got {value!r}", source=self.source)
        return value

    def get_float(self, section: str, key: str, default: Any = _MISSING) -> float:
        value = self.get(section, key, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"[{section}] {key}: expected a number, got {value!r}", source=self.source)
        return float(value)

    def get_bool(self, section: str, key: str, default: Any = _MISSING) -> bool:
        raw = self.get_raw(section, key, _MISSING if default is _MISSING else None)
        if raw is None:
            return default
        return self._convert(section, key, raw, parse_bool, "a boolean")

    def get_list(self, section: str, key: str, default: Any = _MISSING) -> list[Any]:
        raw = self.get_raw(section, key, _MISSING if default is _MISSING else None)
        if raw is None:
            return default
        return self._convert(section, key, raw, parse_list, "a list")

    def section(self, name: str) -> dict[str, Any]:
        """All coerced values of section ``name``, defaults included."""
        if name not in self._sections:
            raise ConfigError(f"no section [{name}]", source=self.source)
        keys = {**self._sections[DEFAULT_SECTION], **self._sections[name]}
        return {key: self.get(name, key) for key in keys}

    def as_dict(self) -> dict[str, dict[str, Any]]:
        """Every section (defaults merged in) as nested plain dictionaries."""
        return {name: self.section(name) for name in self._sections}

    def merged(self, other: Config) -> Config:
        """A new config with ``other``'s values overriding this one's."""
        sections = {name: dict(values) for name, values in self._sections.items()}
        for name, values in other._sections.items():
            sections.setdefault(name, {}).update(values)
        return Config(sections, source=self.source)

    # -- helpers ----------------------------------------------------------------

    def _convert(self, section: str, key: str, raw: str, convert: Any, expected: str) -> Any:
        try:
            return convert(raw)
        except ValueError as exc:
            raise ConfigError(f"[{section}] {key}: expected {expected}: {exc}", source=self.source) from exc


def load_config(path: str | PathLike[str], *, defaults: Mapping[str, Mapping[str, str]] | None = None) -> Config:
    """Load the INI file at ``path``, on top of optional ``defaults`` sections."""
    config = Config.from_file(path)
    if defaults:
        config = Config(defaults, source=config.source).merged(config)
    return config
