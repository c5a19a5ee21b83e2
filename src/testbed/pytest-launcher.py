# switch-swe's pytest launcher: run by the verifier as `python -I launcher.py FD NONCE ROOTDIR INIFILE -- ARGS`.
#
# 1. pytest, pluggy and every _pytest submodule are imported before the checkout is put on sys.path
#    (`-I`: neither the working directory nor PYTHON* variables nor user site-packages are used), so a
#    `pytest.py`, `_pytest/` or `pluggy/` in the checkout cannot shadow the runner.
# 2. The checkout (and PYTHONPATH entries of the trusted test command) are then put in front of
#    sys.path, as `python -m pytest` would, so the tests import the artifact's code.
# 3. pytest runs with rootdir and inifile fixed by the verifier, entry-point plugins disabled
#    (PYTEST_DISABLE_PLUGIN_AUTOLOAD) and our reporter plugin registered first. The reporter writes every
#    outcome, as a JSON line carrying the run's nonce, to an inherited pipe that the verifier reads: a
#    second channel the JUnit file is checked against. An audit hook (which cannot be removed) and an
#    identity check of the runner's functions at the end report tampering on the same channel.
import sys

_fd = int(sys.argv[1])
_nonce = sys.argv[2]
_rootdir = sys.argv[3]
_inifile = sys.argv[4]
_args = sys.argv[6:] if len(sys.argv) > 5 and sys.argv[5] == "--" else sys.argv[5:]
sys.argv = [sys.argv[0]] + _args  # the nonce leaves argv before any code of the checkout runs

import importlib  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import pkgutil  # noqa: E402
from traceback import format_exception_only as _format_exc  # noqa: E402

os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
# `-I` ignores PYTHONDONTWRITEBYTECODE, which the verifier sets: without this, pytest's assertion
# rewriter writes a .pyc beside every plugin it rewrites (`-p pytester` -> `_pytest/__pycache__`), i.e.
# into the sealed environment of a run outside the sandbox, which is then rebuilt for every candidate.
if os.environ.get("PYTHONDONTWRITEBYTECODE"):
    sys.dont_write_bytecode = True

import pluggy  # noqa: E402
import pytest  # noqa: E402
import _pytest  # noqa: E402

# Plugins that pytest imports itself, under its assertion rewriter, when a configuration names them
# (`-p pytester` loads `pytester_assertions`): imported here first, pytest warns that it cannot rewrite
# them, and a `filterwarnings = error` configuration turns that warning into a crash before the session.
# They stay unimported, as under `python -m pytest`; a checkout still cannot shadow them (they resolve
# through the already-imported `_pytest` package, not sys.path).
try:
    from _pytest.config import builtin_plugins as _builtin, default_plugins as _default
except ImportError:  # pytest's internals moved: import everything, as before
    _builtin, _default = (), ()
_rewritten_later = {f"_pytest.{p}" for p in set(_builtin) - set(_default)} - set(sys.modules)

for _m in pkgutil.walk_packages(_pytest.__path__, "_pytest."):
    if _m.name in _rewritten_later:
        continue
    try:
        importlib.import_module(_m.name)
    except Exception:  # an optional submodule that does not import here is not the checkout's doing
        pass

_out = os.dup(_fd)
os.close(_fd)
os.set_inheritable(_out, False)
_write = os.write
_dumps = json.dumps
_phase = ["running"]


def _emit(rec):
    rec["n"] = _nonce
    try:
        _write(_out, (_dumps(rec) + "\n").encode("utf-8"))
    except OSError:
        pass


_STD = {"os": ("_exit", "write", "open", "close", "dup2", "replace", "rename"), "sys": ("exit",), "builtins": ("open", "__import__", "exec", "compile"), "atexit": ("register", "_run_exitfuncs")}


# Attributes pytest itself rebinds while it runs.
_REBOUND = {"_getini_unknown_type", "_config", "_pluginmanager"}


def _watched_modules():
    return {k: v for k, v in sys.modules.items() if k in ("pytest", "pluggy", *_STD) or k.startswith(("_pytest.", "pluggy."))}


def _functions(mods):
    out = {}
    for name, mod in mods.items():
        for attr, value in list(vars(mod).items()):
            if name in _STD and attr not in _STD[name]:
                continue
            if callable(value):
                out[f"{name}.{attr}"] = value
                if isinstance(value, type) and value.__module__ == name and name.startswith(("_pytest", "pluggy")):
                    for a2, v2 in list(vars(value).items()):
                        if callable(v2) and a2 not in _REBOUND:
                            out[f"{name}.{attr}.{a2}"] = v2
    return out


_OUTCOME_MODULES = ("_pytest.reports", "_pytest.runner", "_pytest.junitxml", "_pytest.terminal", "_pytest.main", "_pytest.outcomes", "_pytest.skipping", "pluggy")


def _class_attrs(mods):
    # Every entry of the runner's classes, descriptors included: a classmethod, staticmethod, property
    # or plain value (TestReport.from_item_and_call, BaseReport.passed) is not callable, and replacing
    # one went unseen by the function check above.
    # Only the machinery that makes, carries and writes outcomes: plugins a repository names with -p
    # may legitimately adjust other runner classes (fixtures, collection) while pytest starts.
    out = {}
    for mod in mods.values():
        for value in list(vars(mod).values()):
            if isinstance(value, type) and (value.__module__ or "").startswith(_OUTCOME_MODULES):
                for a2, v2 in list(vars(value).items()):
                    if a2 not in _REBOUND:
                        out[f"{value.__module__}.{value.__qualname__}.{a2}"] = (value, a2, v2)
    return out


def _shadows(cls, name):
    # A new attribute matters when it hides one the class had through its bases at the start (pytest's
    # own plugins add new names, such as the legacy path properties, and remove them again).
    return any(f"{b.__module__}.{b.__qualname__}.{name}" in _attrs0 for b in cls.__mro__[1:])


_mods0 = _watched_modules()
_funcs0 = _functions(_mods0)
_attrs0 = _class_attrs(_mods0)
_report_path = None


def _audit(event, args):
    if _report_path is None or _phase[0] == "writing-report":
        return
    try:
        if event == "open":
            path, mode = args[0], args[1]
            if isinstance(path, (str, bytes, os.PathLike)) and os.fsdecode(path) == _report_path and mode and any(c in str(mode) for c in "wax+"):
                _emit({"t": "tamper", "what": f"the report file was opened for writing outside the runner ({_phase[0]})"})
            elif isinstance(path, (str, bytes, os.PathLike)) and os.fsdecode(path).startswith("/proc/") and os.fsdecode(path).endswith(f"/fd/{_out}"):
                _emit({"t": "tamper", "what": "the outcome channel was opened through /proc"})
        elif event in ("os.rename", "os.replace", "os.remove", "os.link", "os.symlink", "os.truncate", "shutil.move", "shutil.copyfile"):
            if any(isinstance(a, (str, bytes, os.PathLike)) and os.fsdecode(a) == _report_path for a in args):
                _emit({"t": "tamper", "what": f"{event} on the report file outside the runner"})
        elif event == "object.__setattr__":
            obj = args[0]
            mod = getattr(obj, "__module__", "") or ""
            if isinstance(obj, type) and mod.startswith(("_pytest", "pluggy", "pytest")):
                _emit({"t": "tamper", "what": f"runner class {mod}.{obj.__name__}.{args[1]} was assigned"})
    except Exception:
        pass


sys.addaudithook(_audit)


class _Reporter:
    def pytest_configure(self, config):
        global _report_path
        xml = getattr(config, "option", None) and config.option.xmlpath
        if xml:
            _report_path = os.path.abspath(xml)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session, config, items):
        # pytest runs tests named by id in the order of the command line; the verifier's order is not the
        # modules' own. Tests of one module may lean on the state their predecessors leave (IPython's
        # completer tests share one shell), and mining and qualification ran them in definition order:
        # so named tests run as a whole-module run would order them.
        if _ids_given:
            key = _collection_order(session)
            items[:] = [item for _, item in sorted(enumerate(items), key=key)]

    def pytest_collectreport(self, report):
        if report.failed:
            _emit({"t": "collect", "id": report.nodeid, "outcome": "error"})

    def pytest_runtest_logreport(self, report):
        _emit({"t": "report", "id": report.nodeid, "when": report.when, "outcome": report.outcome})

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session, exitstatus):
        _check_identity("at the end of the session")
        _phase[0] = "writing-report"

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self, config):
        _phase[0] = "after-report"


_ids_given = any("::" in a for a in _args if not a.startswith("-"))


def _collection_order(session):
    # Where each collector put each node (directories by name, a module's members by definition, a
    # unittest class's methods by name): pytest's collection cache, alive while items are modified, holds
    # every collector's result. A node it does not hold (another pytest's internals) falls back to its
    # file and line.
    place = {}
    for rep in getattr(session, "_collection_cache", {}).values():
        for i, child in enumerate(getattr(rep, "result", None) or ()):
            place[id(child)] = i

    def key(pair):
        index, item = pair
        chain = []
        node = item
        while node is not None and getattr(node, "parent", None) is not None:
            chain.append((place.get(id(node), float("inf")), node.name))
            node = node.parent
        path, lineno, _ = item.location
        return (chain[::-1], str(path), lineno if lineno is not None else float("inf"), index)

    return key


def _check_identity(when):
    mods = _watched_modules()
    for name, mod in _mods0.items():
        if mods.get(name) is not mod:
            _emit({"t": "tamper", "what": f"sys.modules[{name!r}] was replaced ({when})"})
    now = _functions(_mods0)
    changed = sorted(k for k, v in _funcs0.items() if now.get(k) is not v)
    if changed:
        _emit({"t": "tamper", "what": f"runner functions were replaced ({when}): {', '.join(changed[:8])}"})
    attrs = _class_attrs(_mods0)
    moved = sorted(
        [k for k, v in _attrs0.items() if k not in attrs or attrs[k][2] is not v[2]]
        + [k for k, v in attrs.items() if k not in _attrs0 and _shadows(v[0], v[1])]
    )
    if moved:
        _emit({"t": "tamper", "what": f"runner class attributes were replaced, added or removed ({when}): {', '.join(moved[:8])}"})

_emit({"t": "start", "pid": os.getpid()})
sys.path[0:0] = [os.path.abspath(p) for p in ([os.getcwd()] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])]
_argv = ["--rootdir", _rootdir, "-c", _inifile, *_args]
try:
    _code = pytest.main(_argv, plugins=[_Reporter()])
except BaseException as _e:  # before its session (a configuration or conftest pytest refuses): say so in pytest's words
    try:
        _what = _format_exc(type(_e), _e)[-1].strip()
    except Exception:
        _what = type(_e).__name__
    _emit({"t": "crash", "what": _what[:1000]})
    raise
_check_identity("after the session")
_emit({"t": "finish", "exitstatus": int(_code)})
sys.stdout.flush()
sys.stderr.flush()
sys.exit(int(_code))
