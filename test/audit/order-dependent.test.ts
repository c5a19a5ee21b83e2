import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { testFileMatcher } from "../../src/dataset/file-rules.js";
import { upstreamDigestsOf } from "../../src/manifests/derive.js";
import { cli } from "../helpers/cli.js";
import { gitHistory } from "../helpers/git-history.js";
import { tempDir } from "../helpers/temp.js";
import { skipWithout } from "../helpers/tools.js";

const root = tempDir("switch-swe-order-");
afterAll(() => rmSync(root, { recursive: true, force: true }));
const env = { SWITCH_SWE_CACHE: join(root, "cache") };

const registry = "_items = {}\n\n\ndef register(name, value):\n    _items[name] = value\n";
const lookup = "\n\ndef lookup(name):\n    return _items.get(name)\n";
const count = "\n\ndef count():\n    return len(_items)\n";
const testRegister = 'from calc import registry\n\n\ndef test_register():\n    registry.register("x", 1)\n';
// test_lookup leans on test_register's side effect; test_count_fresh is broken by it.
const testLookup = '\n\ndef test_lookup():\n    assert registry.lookup("x") == 1\n';
const testCount =
  '\n\ndef test_count_fresh():\n    assert registry.count() == 0\n\n\ndef test_count_grows():\n    n = registry.count()\n    registry.register("z", 2)\n    assert registry.count() == n + 1\n';

const missingTool = skipWithout(import.meta.url, "bwrap");
describe.skipIf(missingTool)("datasets audit --run-tests: order-dependent", () => {
  it("an F2P test that passes only with the module's other tests, and one that passes only alone", { timeout: 300_000 }, async () => {
    const h = gitHistory(root, "calc");
    h.init();
    const base = h.commit("base", { "calc/__init__.py": "", "calc/registry.py": registry, "tests/test_registry.py": testRegister });
    const c1 = h.commit("lookup", { "calc/registry.py": registry + lookup, "tests/test_registry.py": testRegister + testLookup });
    const c2 = h.commit("count", {
      "calc/registry.py": registry + lookup + count,
      "tests/test_registry.py": testRegister + testLookup + testCount,
    });
    const tests = ["**/tests/**"];
    const digests = await upstreamDigestsOf(join(h.repo, ".git"), base, [c1, c2], testFileMatcher({ tests }));
    const id = (name: string) => `tests/test_registry.py::${name}`;
    const stage = (cut: string, text: string, ids: string[], k: number) => ({
      cut,
      provenance: `commit ${cut}`,
      text,
      tests: ids,
      patch_sha256: digests.stages[k],
    });
    const manifest = {
      format: "switch-swe.task-manifest/2",
      name: "calc",
      version: "1",
      repos: { calc: { git: "https://example.org/calc.git", source: { include: ["**/*.py"], exclude: tests }, tests } },
      tasks: [
        {
          id: "calc-registry",
          repo: "calc",
          base,
          provenance: "chain of commits",
          stages: [
            stage(c1, 'Add lookup(name) to the registry: after register("x", 1), lookup("x") should return 1.', [id("test_lookup")], 0),
            stage(
              c2,
              "Add count() to the registry: it should return 0 before anything is registered.",
              [id("test_count_fresh"), id("test_count_grows")],
              1,
            ),
          ],
          tests_patch_sha256: digests.tests,
          verifier: {
            fail_to_pass: [id("test_lookup"), id("test_count_fresh"), id("test_count_grows")],
            pass_to_pass: [id("test_register")],
          },
        },
      ],
    };
    const file = join(root, "manifest.json");
    writeFileSync(file, JSON.stringify(manifest, null, 2));
    const r = cli(["datasets", "audit", file, "--repo", `calc=${h.repo}`, "--run-tests"], { env });
    const lines = r.stdout.split("\n");
    expect(lines).toContain(`calc-registry: stage 1: order-dependent: 1 F2P pass only with other tests, ${id("test_lookup")}`);
    expect(lines).toContain(`calc-registry: stage 2: order-dependent: 1 F2P pass only when run alone, ${id("test_count_fresh")}`);
    expect(r.stdout).not.toContain("test_count_grows");
    expect(r.stdout).not.toMatch(/env-failure|base-broken/);
    expect(r.code, r.stdout + r.stderr).toBe(1);
  });
});
