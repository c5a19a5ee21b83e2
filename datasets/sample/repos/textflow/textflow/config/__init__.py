"""An INI/TOML-ish configuration loader with typed getters."""

from textflow.config.errors import ConfigError
from textflow.config.ini import DEFAULT_SECTION, parse_ini
from textflow.config.loader import Config, load_config
from textflow.config.values import coerce

__all__ = ["DEFAULT_SECTION", "Config", "ConfigError", "coerce", "load_config", "parse_ini"]
