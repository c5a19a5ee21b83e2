import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import type { PatchBlock } from "../core/patch-blocks.js";
import { bedGit, type BedGit } from "./bed-git.js";

async function baseText(tree: BedGit, file: string): Promise<string | null> {
  const r = await bedGit(tree, ["show", `HEAD:${file}`]);
  return r.code === 0 ? r.stdout : null;
}

type Sections = (python: string, files: readonly string[]) => Promise<Map<string, string>>;

/**
 * After the artifact is applied: where a file with other uses also configures pytest
 * (`pyproject.toml`, `setup.cfg`), pytest's own parse of it is compared with the parse of the base
 * version (decoy headers, dotted keys, inline tables and multi-line strings cannot hide an
 * `addopts = -p plugin`). A changed, added or unparsable pytest configuration is undone by restoring
 * the base version. Returns the files restored, which the verdict lists as dropped.
 */
export async function restorePytestConfig(
  tree: BedGit,
  kept: readonly PatchBlock[],
  python: string,
  scratch: string,
  pytestSections: Sections,
): Promise<string[]> {
  const files = [
    ...new Set(kept.map((b) => b.to).filter((f): f is string => f !== null && /^(pyproject\.toml|setup\.cfg)$/.test(posix.basename(f)))),
  ];
  if (files.length === 0) return [];
  const bases = new Map<string, string | null>();
  const compare: string[] = [];
  for (const [i, file] of files.entries()) {
    const before = await baseText(tree, file);
    bases.set(file, before);
    const copy = join(scratch, `base-config-${i}`, posix.basename(file));
    mkdirSync(dirname(copy), { recursive: true });
    writeFileSync(copy, before ?? "");
    compare.push(join(tree.workTree, file), copy);
  }
  let parsed: Map<string, string>;
  try {
    parsed = await pytestSections(python, compare);
  } catch (e) {
    // Whose failure is it? The base versions alone tell: if pytest reads them, the artifact's files
    // (a configuration too large or too odd to read back) are the artifact's problem, not the verifier's.
    await pytestSections(
      python,
      compare.filter((_, i) => i % 2 === 1),
    );
    parsed = new Map(compare.map((f, i) => [f, i % 2 === 0 ? JSON.stringify({ unparsable: (e as Error).message.slice(0, 300) }) : "null"]));
  }
  const restored: string[] = [];
  for (const [i, file] of files.entries()) {
    const after = parsed.get(compare[2 * i]!)!;
    const before = bases.get(file) === null ? "null" : parsed.get(compare[2 * i + 1]!)!;
    if (after === before && !after.includes("unparsable")) continue;
    if (bases.get(file) === null) rmSync(join(tree.workTree, file), { force: true });
    else await bedGit(tree, ["checkout", "HEAD", "--", file]);
    restored.push(file);
  }
  return restored;
}
