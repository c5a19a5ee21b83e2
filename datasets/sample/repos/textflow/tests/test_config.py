import pytest

from textflow.config import Config, ConfigError, coerce, load_config, parse_ini

SAMPLE = """
# global settings
name = app
debug = yes

[server]
host = localhost  ; inline comment
port = 8080
tags = [a, "b c", 3]
motd = "hi # there"
banner = first
   second
"""


def test_parse_ini_sections_and_comments():
    sections = parse_ini(SAMPLE)
    assert sections["DEFAULT"] == {"name": "app", "debug": "yes"}
    assert sections["server"]["host"] == "localhost"
    assert sections["server"]["motd"] == '"hi # there"'
    assert sections["server"]["banner"] == "first\nsecond"


def test_parse_ini_errors_have_locations():
    with pytest.raises(ConfigError, match=r"cfg\.ini:2: cannot parse line 'oops'"):
        parse_ini("[a]\noops", source="cfg.ini")
    with pytest.raises(ConfigError, match=r"duplicate key 'x' in section \[a\]"):
        parse_ini("[a]\nx = 1\nx = 2")


def test_coerce_values():
    assert coerce("42") == 42
    assert coerce("1_000") == 1000
    assert coerce("2.5") == 2.5
    assert coerce("off") is False
    assert coerce("[1, 'two', [3]]") == [1, "two", [3]]
    assert coerce('"a\\tb"') == "a\tb"
    assert coerce("plain text") == "plain text"


def test_typed_getters_and_defaults():
    config = Config.from_string(SAMPLE)
    assert config.get_int("server", "port") == 8080
    assert config.get_bool("server", "debug") is True  # falls back to DEFAULT
    assert config.get_list("server", "tags") == ["a", "b c", 3]
    assert config.get("server", "timeout", 30) == 30
    assert config.sections() == ["server"]


def test_missing_and_mistyped_values():
    config = Config.from_string(SAMPLE)
    with pytest.raises(ConfigError, match=r"missing key 'timeout' in section \[server\]"):
        config.get("server", "timeout")
    with pytest.raises(ConfigError, match=r"\[server\] host: expected an integer, got 'localhost'"):
        config.get_int("server", "host")


def test_section_includes_defaults():
    config = Config.from_string(SAMPLE)
    assert config["server"]["name"] == "app"
    assert config.section("server")["port"] == 8080


def test_load_config_with_defaults(tmp_path):
    path = tmp_path / "app.ini"
    path.write_text("[server]\nport = 9000\n", encoding="utf-8")
    config = load_config(path, defaults={"server": {"port": "80", "host": "0.0.0.0"}})
    assert config.get("server", "port") == 9000
    assert config.get("server", "host") == "0.0.0.0"


def test_load_config_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="cannot read file"):
        load_config(tmp_path / "nope.ini")
