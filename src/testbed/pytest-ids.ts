import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import type { JunitCase } from "./junit-xml.js";

/**
 * pytest's own mapping of a node id to JUnit (classname, name): `tests/test_x.py::TestC::test_a[1-2]`
 * → ("tests.test_x.TestC", "test_a[1-2]"). Used to match required ids against a report whatever
 * directory pytest took as its root.
 */
export function mangleNodeId(nodeId: string): string {
  const bracket = nodeId.indexOf("[");
  const path = bracket >= 0 ? nodeId.slice(0, bracket) : nodeId;
  const params = bracket >= 0 ? nodeId.slice(bracket) : "";
  const names = path.split("::");
  names[names.length - 1] += params;
  names[0] = names[0]!.replace(/\//g, ".").replace(/\.py$/, "");
  const name = names.pop()!;
  return `${names.join(".")}\u0000${name}`;
}

export function caseKey(c: Pick<JunitCase, "classname" | "name">): string {
  return `${c.classname}\u0000${c.name}`;
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/**
 * The pytest node id of a reported test case, found by probing the checkout for the module the
 * dotted classname names (`tests.test_x.TestC` → `tests/test_x.py` + class `TestC`). Falls back to
 * the `file` attribute (xunit1), then to reading every dotted part but classes as directories.
 */
export function caseNodeId(c: Pick<JunitCase, "classname" | "name" | "file">, checkout: string): string {
  if (c.classname === "") return c.name;
  const parts = c.classname.split(".");
  for (let i = parts.length; i >= 1; i--) {
    const file = `${parts.slice(0, i).join("/")}.py`;
    if (isFile(join(checkout, file))) return [file, ...parts.slice(i), c.name].join("::");
  }
  if (c.file) {
    const modParts = c.file.replace(/\.py$/, "").split("/");
    const classes = parts.slice(modParts.length);
    return [c.file, ...classes, c.name].join("::");
  }
  return [`${parts.join("/")}.py`, c.name].join("::");
}

/**
 * A collection error is reported by pytest as a test case with an empty classname whose name is
 * the dotted module (or directory) that failed. Returns the path prefix it covers
 * (`tests/test_x.py` or `tests/`), so required tests under it count as errors, not as missing.
 */
export function collectionErrorScope(c: Pick<JunitCase, "classname" | "name">, checkout: string): string | null {
  if (c.classname !== "") return null;
  const slashed = c.name.includes("/") ? c.name : c.name.replace(/\./g, "/");
  if (slashed.endsWith(".py")) return slashed;
  if (isFile(join(checkout, `${slashed}.py`))) return `${slashed}.py`;
  if (existsSync(join(checkout, slashed))) return `${slashed.replace(/\/$/, "")}/`;
  return `${slashed}.py`;
}

export function inScope(nodeId: string, scope: string): boolean {
  const file = nodeId.split("::")[0]!;
  return scope.endsWith("/") ? file.startsWith(scope) : file === scope;
}
