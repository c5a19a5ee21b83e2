# switch-swe's unittest launcher: run by the verifier as
#   python -I launcher.py FD NONCE ROOTDIR CONFIG -- --junitxml=FILE [--script PATH] ARGS
#
# 1. unittest is imported, and its result class hooked, before the checkout is on sys.path (`-I`), so a
#    `unittest` of the checkout cannot shadow it.
# 2. Without --script (`python -m unittest ARGS`) the launcher loads the tests itself: node ids
#    (`tests/test_x.py::TestC::test_a`) by importing their module and keeping the named tests in the
#    loader's order, dotted names with unittest's loader, nothing with discovery from the checkout.
#    A module that cannot be imported is a collection error of its file; a name that does not exist is
#    not reported (missing).
# 3. With --script (`python tests/runtests.py ARGS`, a project's runner that wraps unittest) the script
#    runs in this process as `__main__`, node ids turned into dotted labels relative to its directory.
# 4. Either way every outcome comes from the hooked unittest.result.TestResult methods, as JSON lines
#    carrying the run's nonce on an inherited pipe the verifier reads; the JUnit report (pytest's shape)
#    is written from the same records at the end. An audit hook and an identity check of unittest's
#    functions report tampering on the same channel.
import sys

_fd = int(sys.argv[1])
_nonce = sys.argv[2]
_rootdir = sys.argv[3]
_args = sys.argv[6:] if len(sys.argv) > 5 and sys.argv[5] == "--" else sys.argv[5:]
sys.argv = [sys.argv[0]]  # the nonce leaves argv before any code of the checkout runs

import importlib  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import runpy  # noqa: E402
import traceback  # noqa: E402
import unittest  # noqa: E402
import unittest.case  # noqa: E402
import unittest.loader  # noqa: E402
import unittest.main  # noqa: E402
import unittest.result  # noqa: E402
import unittest.runner  # noqa: E402
import unittest.signals  # noqa: E402
import unittest.suite  # noqa: E402
from xml.sax.saxutils import quoteattr  # noqa: E402

if os.environ.get("PYTHONDONTWRITEBYTECODE"):
    sys.dont_write_bytecode = True

_out = os.dup(_fd)
os.close(_fd)
os.set_inheritable(_out, False)
_write = os.write
_dumps = json.dumps
_phase = ["running"]
_root = os.path.abspath(_rootdir)


def _emit(rec):
    rec["n"] = _nonce
    try:
        _write(_out, (_dumps(rec) + "\n").encode("utf-8"))
    except OSError:
        pass


# Launcher options come first; in script mode everything after the script's path is the script's.
_junit = None
_script = None
_rest = []
_i = 0
while _i < len(_args):
    _a = _args[_i]
    if _script is None and _a.startswith("--junitxml="):
        _junit = os.path.abspath(_a.split("=", 1)[1])
    elif _script is None and _a == "--script" and _i + 1 < len(_args):
        _script = _args[_i + 1]
        _i += 1
    else:
        _rest.append(_a)
    _i += 1

_RANK = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}
_cases = {}  # node id -> worst outcome
_collect = []  # files (relative) whose module could not be loaded


def _relfile(path):
    rel = os.path.relpath(os.path.abspath(path), _root)
    return None if rel.startswith("..") else rel.replace(os.sep, "/")


def _module_file(dotted):
    # The checkout file of a module: loaded, or where sys.path would find it.
    mod = sys.modules.get(dotted)
    f = getattr(mod, "__file__", None)
    if f and _relfile(f):
        return _relfile(f)
    parts = dotted.split(".")
    for entry in sys.path:
        base = os.path.join(entry or ".", *parts)
        for cand in (base + ".py", os.path.join(base, "__init__.py")):
            if os.path.isfile(cand) and _relfile(cand):
                return _relfile(cand)
    return "/".join(parts) + ".py"


def _node_id(test):
    cls = type(test)
    return f"{_module_file(cls.__module__)}::{cls.__qualname__.replace('.', '::')}::{test._testMethodName}"


def _record(test, outcome):
    if isinstance(test, unittest.loader._FailedTest):  # an import of a module or name failed
        return _collect_error(test._testMethodName)
    if isinstance(test, unittest.suite._ErrorHolder):  # setUpModule / setUpClass failed: `setUpClass (mod.C)`
        desc = test.description
        inner = desc[desc.find("(") + 1 : desc.rfind(")")] if "(" in desc else desc
        parts = inner.split(".")
        for k in range(len(parts), 0, -1):
            if ".".join(parts[:k]) in sys.modules:
                return _collect_error(".".join(parts[:k]))
        return _collect_error(inner)
    if not isinstance(test, unittest.case.TestCase):
        return
    nid = _node_id(test)
    prev = _cases.get(nid)
    if prev is None or _RANK[outcome] > _RANK[prev]:
        _cases[nid] = outcome
    when = "setup" if outcome == "error" else "call"
    _emit({"t": "report", "id": nid, "when": when, "outcome": "failed" if outcome in ("failed", "error") else outcome})


def _collect_error(dotted):
    f = _module_file(dotted)
    if f not in _collect:
        _collect.append(f)
        _emit({"t": "collect", "id": f, "outcome": "error"})


_TR = unittest.result.TestResult
_OUTCOMES = {"addSuccess": "passed", "addError": "error", "addFailure": "failed", "addSkip": "skipped", "addExpectedFailure": "skipped", "addUnexpectedSuccess": "failed"}


def _hook(name, outcome, orig):
    def hooked(self, test, *rest):
        _record(test, outcome)
        return orig(self, test, *rest)

    hooked.__name__ = hooked.__qualname__ = name
    return hooked


for _name, _outcome in _OUTCOMES.items():
    setattr(_TR, _name, _hook(_name, _outcome, getattr(_TR, _name)))
_orig_subtest = _TR.addSubTest


def addSubTest(self, test, subtest, err):  # noqa: N802 (unittest's name)
    if err is not None:
        _record(test, "error" if not issubclass(err[0], test.failureException) else "failed")
    return _orig_subtest(self, test, subtest, err)


_TR.addSubTest = addSubTest

_STD = {"os": ("_exit", "write", "open", "close", "dup2", "replace", "rename"), "sys": ("exit",), "builtins": ("open", "__import__", "exec", "compile")}


def _watched_modules():
    return {k: v for k, v in sys.modules.items() if k in ("unittest", *_STD) or k.startswith("unittest.") and not k.startswith("unittest.mock")}


def _functions(mods):
    # Every function of unittest and of its classes (values such as TestCase.maxDiff are the project's to set).
    out = {}
    for name, mod in mods.items():
        for attr, value in list(vars(mod).items()):
            if name in _STD and attr not in _STD[name]:
                continue
            if callable(value):
                out[f"{name}.{attr}"] = value
                if isinstance(value, type) and value.__module__ == name and name.startswith("unittest"):
                    for a2, v2 in list(vars(value).items()):
                        if callable(v2) or isinstance(v2, (classmethod, staticmethod, property)):
                            out[f"{name}.{attr}.{a2}"] = v2
    return out


_mods0 = _watched_modules()
_funcs0 = _functions(_mods0)


def _check_identity(when):
    mods = _watched_modules()
    for name, mod in _mods0.items():
        if mods.get(name) is not mod:
            _emit({"t": "tamper", "what": f"sys.modules[{name!r}] was replaced ({when})"})
    now = _functions(_mods0)
    changed = sorted([k for k, v in _funcs0.items() if now.get(k) is not v] + [k for k in now if k not in _funcs0 and k.count(".") >= 2])
    if changed:
        _emit({"t": "tamper", "what": f"runner functions were replaced or added ({when}): {', '.join(changed[:8])}"})


def _audit(event, args):
    if _junit is None or _phase[0] == "writing-report":
        return
    try:
        if event == "open":
            path, mode = args[0], args[1]
            if isinstance(path, (str, bytes, os.PathLike)) and os.fsdecode(path) == _junit and mode and any(c in str(mode) for c in "wax+"):
                _emit({"t": "tamper", "what": f"the report file was opened for writing outside the runner ({_phase[0]})"})
            elif isinstance(path, (str, bytes, os.PathLike)) and os.fsdecode(path).startswith("/proc/") and os.fsdecode(path).endswith(f"/fd/{_out}"):
                _emit({"t": "tamper", "what": "the outcome channel was opened through /proc"})
        elif event in ("os.rename", "os.replace", "os.remove", "os.link", "os.symlink", "os.truncate", "shutil.move", "shutil.copyfile"):
            if any(isinstance(a, (str, bytes, os.PathLike)) and os.fsdecode(a) == _junit for a in args):
                _emit({"t": "tamper", "what": f"{event} on the report file outside the runner"})
    except Exception:
        pass


sys.addaudithook(_audit)


def _flatten(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from _flatten(t)
        else:
            yield t


def _import(dotted):
    try:
        return importlib.import_module(dotted)
    except BaseException:  # SystemExit and KeyboardInterrupt at import are the module's failure too
        traceback.print_exc()
        _collect_error(dotted)
        return None


def _by_name(mod, key):
    # `Class::test_a` of a module as unittest loads a named test (`python -m unittest mod.Class.test_a`),
    # whatever the module's load_tests would choose; None when there is no such test (missing).
    *classes, method = key.split("::")
    obj = mod
    for name in classes:
        obj = getattr(obj, name, None)
    if isinstance(obj, type) and issubclass(obj, unittest.case.TestCase) and callable(getattr(obj, method, None)):
        return obj(method)
    return None


def _selected(ids, loader):
    # Node ids by module, each module's tests kept in the loader's order (a module's tests may lean on
    # the state their predecessors leave; mining and qualification ran them in that order). A named
    # test the module's load_tests leaves out runs after them, loaded by its name, as unittest runs a
    # named test (Python-Markdown's extension tests leave out a class they import; canaries are new).
    suite = unittest.TestSuite()
    wanted = {}
    for tid in ids:
        if "::" in tid or tid.endswith(".py"):
            file, *names = tid.split("::")
            wanted.setdefault(file[:-3].replace("/", ".") if file.endswith(".py") else file, set()).add("::".join(names))
        else:
            suite.addTest(loader.loadTestsFromName(tid))
    for dotted, keys in wanted.items():
        mod = _import(dotted)
        if mod is None:
            continue
        found = set()
        for t in _flatten(loader.loadTestsFromModule(mod)):
            if not isinstance(t, unittest.case.TestCase) or isinstance(t, unittest.loader._FailedTest):
                suite.addTest(t)
                continue
            key = f"{type(t).__qualname__.replace('.', '::')}::{t._testMethodName}"
            if "" in keys or key in keys:
                suite.addTest(t)
                found.add(key)
        for key in sorted(keys - found - {""}):
            t = _by_name(mod, key)
            if t is not None:
                suite.addTest(t)
    return suite


def _run_module_mode(rest):
    opts = {"verbosity": 1, "failfast": False, "buffer": False}
    start, pattern, top, ids = ".", "test*.py", None, []
    words = list(rest)
    if words[:1] == ["discover"]:
        words = words[1:]
    it = iter(words)
    for w in it:
        if w in ("-v", "--verbose"):
            opts["verbosity"] = 2
        elif w in ("-q", "--quiet"):
            opts["verbosity"] = 0
        elif w in ("-f", "--failfast"):
            opts["failfast"] = True
        elif w in ("-b", "--buffer"):
            opts["buffer"] = True
        elif w in ("-s", "--start-directory"):
            start = next(it, start)
        elif w in ("-p", "--pattern"):
            pattern = next(it, pattern)
        elif w in ("-t", "--top-level-directory"):
            top = next(it, top)
        elif not w.startswith("-"):
            ids.append(w)
    loader = unittest.TestLoader()
    suite = _selected(ids, loader) if ids else loader.discover(start, pattern, top or ".")
    result = unittest.TextTestRunner(stream=sys.stderr, **opts).run(suite)
    return 0 if result.wasSuccessful() else 1


def _label(arg, script_dir):
    # `tests/admin/tests.py::C::test_a` -> `admin.tests.C.test_a` relative to the script's directory.
    if "::" not in arg and not arg.endswith(".py"):
        return arg
    file, *names = arg.split("::")
    rel = os.path.relpath(os.path.join(_root, file), script_dir)
    mod = rel[:-3] if rel.endswith(".py") else rel
    if mod.endswith("/__init__"):
        mod = mod[: -len("/__init__")]
    return ".".join([mod.replace(os.sep, "."), *names])


def _run_script_mode(script, rest):
    path = os.path.abspath(script)
    script_dir = os.path.dirname(path)
    sys.argv = [path] + [_label(a, script_dir) for a in rest]
    sys.path[0:0] = [script_dir] + [os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    try:
        runpy.run_path(path, run_name="__main__")
    except SystemExit as e:
        return 0 if e.code is None else e.code if isinstance(e.code, int) else 1
    return 0


def _write_junit():
    def classname(nid):
        file, *names = nid.split("::")
        return ".".join([file[:-3].replace("/", ".") if file.endswith(".py") else file, *names[:-1]]), names[-1] if names else ""

    lines = ['<?xml version="1.0" encoding="utf-8"?>', f'<testsuites><testsuite name="unittest" tests="{len(_cases) + len(_collect)}">']
    for f in _collect:
        lines.append(f'<testcase classname="" name={quoteattr(f[:-3].replace("/", ".") if f.endswith(".py") else f)}><error message="collection failure"/></testcase>')
    for nid, outcome in _cases.items():
        cls, name = classname(nid)
        body = {"passed": "", "skipped": '<skipped message=""/>', "failed": '<failure message=""/>', "error": '<error message=""/>'}[outcome]
        lines.append(f"<testcase classname={quoteattr(cls)} name={quoteattr(name)}>{body}</testcase>")
    lines.append("</testsuite></testsuites>")
    _phase[0] = "writing-report"
    with open(_junit, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    _phase[0] = "after-report"


_emit({"t": "start", "pid": os.getpid()})
if _script is None:
    sys.path[0:0] = [os.path.abspath(p) for p in ([os.getcwd()] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])]
try:
    _code = _run_script_mode(_script, _rest) if _script is not None else _run_module_mode(_rest)
except BaseException as _e:
    _emit({"t": "crash", "what": (traceback.format_exception_only(type(_e), _e)[-1].strip())[:1000]})
    raise
# An exit status is a byte: 256 failures must not read as success.
_code = int(_code) & 0xFF or (1 if int(_code) else 0)
_check_identity("after the run")
if _junit is not None:
    _write_junit()
_emit({"t": "finish", "exitstatus": int(_code)})
sys.stdout.flush()
sys.stderr.flush()
sys.exit(int(_code))
