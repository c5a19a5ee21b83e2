import { describe, expect, it } from "vitest";
import { collectionWords, conftestWords, isLoadError } from "../../src/testbed/runner-words.js";

// pytest 9's output for a package that does not import on Python 3.11, and a test module that does not parse.
const output = `==================================== ERRORS ====================================
_______________________ ERROR collecting tests/test_a.py _______________________
ImportError while importing test module '/tmp/ptx/tests/test_a.py'.
Hint: make sure your test modules/packages have valid Python names.
Traceback:
/root/.pyenv/versions/3.11.7/lib/python3.11/importlib/__init__.py:126: in import_module
    return _bootstrap._gcd_import(name[level:], package, level)
tests/test_a.py:1: in <module>
    import pkg
pkg/__init__.py:1: in <module>
    from collections import MutableSet
E   ImportError: cannot import name 'MutableSet' from 'collections' (/root/.pyenv/versions/3.11.7/lib/python3.11/collections/__init__.py)
_______________________ ERROR collecting tests/test_b.py _______________________
/root/.pyenv/versions/3.11.7/lib/python3.11/ast.py:50: in parse
    return compile(source, filename, mode, flags,
E     File "/tmp/ptx/tests/test_b.py", line 1
E       def test_b(:
E                  ^
E   SyntaxError: invalid syntax
=========================== short test summary info ============================
ERROR tests/test_a.py
ERROR tests/test_b.py
============================== 2 errors in 2.47s ===============================
`;

describe("pytest's own words for what cannot be loaded", () => {
  it("gives a module's whole error and where the code under test broke, not the short summary", () => {
    expect(collectionWords(output, "tests/test_a.py")).toBe(
      "ImportError: cannot import name 'MutableSet' from 'collections' (/root/.pyenv/versions/3.11.7/lib/python3.11/collections/__init__.py) (at pkg/__init__.py:1)",
    );
    expect(collectionWords(output, "tests/test_b.py")).toBe(
      'File "/tmp/ptx/tests/test_b.py", line 1 / def test_b(: / ^ / SyntaxError: invalid syntax',
    );
    expect(collectionWords(output, "tests/test_c.py")).toBeNull();
  });

  it("gives a conftest's import error", () => {
    const stderr =
      "ImportError while loading conftest '/tmp/ptx/tests/conftest.py'.\ntests/conftest.py:1: in <module>\n    import nothing_here\nE   ModuleNotFoundError: No module named 'nothing_here'\n";
    expect(conftestWords(stderr)).toBe(
      "ImportError while loading conftest '/tmp/ptx/tests/conftest.py'. ModuleNotFoundError: No module named 'nothing_here' (at tests/conftest.py:1)",
    );
    expect(conftestWords(output)).toBeNull();
  });

  it("tells an error of the interpreter or packages from a test's failed expectation", () => {
    expect(isLoadError("ImportError: cannot import name 'MutableSet' from 'collections'")).toBe(true);
    expect(isLoadError("AttributeError: module 'inspect' has no attribute 'formatargspec'")).toBe(true);
    expect(isLoadError("assert 1 == 2")).toBe(false);
  });
});
