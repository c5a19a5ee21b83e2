# switch-swe: pytest's own reading of configuration files, for the verifier (run with `python -I`).
#   locate ROOT          -> {"inifile": path or null}: the file pytest would read in ROOT, in pytest's order
#   sections FILE...     -> {"FILE": {"digest": sha256 of the pytest configuration that file gives} or null, or {"unparsable": msg}}
# Digests, not the values: an artifact's configuration may be huge, and its size must not become the
# verifier's problem (the output of this helper stays small whatever the file holds).
# Only parses files (tomllib, iniconfig); never imports code from them.
import hashlib
import json
import sys
from pathlib import Path

try:
    from _pytest.config.findpaths import load_config_dict_from_file
except Exception:  # pytest missing or its internals moved: every change counts as a change
    load_config_dict_from_file = None

ORDER = ["pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg"]


def section(path):
    if load_config_dict_from_file is None:
        return {"unparsable": "pytest is not importable"}
    try:
        cfg = load_config_dict_from_file(Path(path))
    except BaseException as e:  # UsageError, fail(), decode errors
        return {"unparsable": f"{type(e).__name__}: {e}"[:300]}
    if cfg is None:
        return None
    text = json.dumps({k: repr(getattr(v, "value", v)) for k, v in sorted(cfg.items())})
    return {"digest": hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()}


def main():
    mode = sys.argv[1]
    if mode == "locate":
        root = Path(sys.argv[2])
        for name in ORDER:
            p = root / name
            if p.is_file() and section(p) is not None:
                print(json.dumps({"inifile": str(p)}))
                return
        print(json.dumps({"inifile": None}))
    elif mode == "sections":
        print(json.dumps({f: (section(f) if Path(f).is_file() else None) for f in sys.argv[2:]}))


main()
