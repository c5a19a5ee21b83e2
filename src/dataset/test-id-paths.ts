/**
 * The file part of a test id: the path before the first `::` of a pytest node id
 * (`tests/test_x.py::TestC::test_y[a::b]`), or the whole id when it names a file (`tests/test_x.py`).
 * Ids in other notations (`test_x (module.Class)`, `TestFoo`) name no file: null.
 */
export function testIdFile(id: string): string | null {
  const sep = id.indexOf("::");
  if (sep >= 0) return id.slice(0, sep);
  return id.includes("/") || /\.py$/.test(id) ? id : null;
}

/**
 * What is wrong with the file part of a test id, or null: it must be a relative path inside the
 * repository, written plainly (no `..`, `.` or empty segments, no backslashes), and a test file under
 * the repository's rules (`isTest`, the globs the verifier drops from artifacts).
 */
export function testIdPathProblem(id: string, isTest: (path: string) => boolean): string | null {
  const file = testIdFile(id);
  if (file === null) return null;
  if (file === "") return `${id}: the test id has no file before "::"`;
  if (file.startsWith("/") || /^[A-Za-z]:/.test(file) || file.startsWith("~"))
    return `${id}: the test file must be a path relative to the repository`;
  if (/[\\\0]/.test(file)) return `${id}: the test file's path must use "/" and no control characters`;
  const segments = file.replace(/\/$/, "").split("/");
  if (segments.includes("..")) return `${id}: the test file must be inside the repository (no ".." segments)`;
  if (segments.some((s) => s === "" || s === ".")) return `${id}: the test file's path must be written plainly (no "." or empty segments)`;
  if (!isTest(file)) return `${id}: ${file} is not a test file under the repository's test rules (repos.<name>.tests in dataset.json)`;
  return null;
}

/** A pytest test module by name (`test_x.py`, `x_test.py`, `x_tests.py`): what a touched-files run collects. */
export function isTestModule(path: string): boolean {
  return /(^|\/)(test_[^/]*|[^/]*_tests?)\.py$/.test(path);
}
