import { existsSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDataset, taskById, type Dataset } from "../../src/dataset/load.js";
import { verifyArtifact } from "../../src/verify/verify-artifact.js";
import { cacheInfo, clearCache } from "../../src/testbed/cache-admin.js";
import { calcRepo, diffAgainst, fixedOps, tempDir, writeCalcDataset, writeFiles } from "../verify/fixture.js";
import { skipWithout } from "../helpers/tools.js";
import { confineBackend } from "../../src/confine/registry.js";

// Needs bwrap: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap");

const cache = tempDir("switch-swe-cache-");
const scratch = tempDir();
const counter = join(scratch, "setup-count.txt");

beforeAll(() => {
  process.env.SWITCH_SWE_CACHE = cache;
});
afterAll(() => {
  rmSync(cache, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

/** A test that passes only inside the cached venv. */
const envTest = [
  "import os, sys",
  "",
  "",
  "def test_in_venv():",
  "    assert os.environ['VIRTUAL_ENV'] == sys.prefix",
  "    assert sys.prefix.endswith('/venv')",
  "    assert os.environ['SWITCH_SWE_ENV'] == os.path.dirname(sys.prefix)",
  "",
].join("\n");

function datasetWithSetup(setup: string[], extraRepoFiles: Record<string, string> = {}): Dataset {
  const testsPatch = diffAgainst(calcRepo({ extraRepoFiles }), (d) => writeFiles(d, { "tests/test_env.py": envTest }));
  const root = writeCalcDataset(tempDir(), {
    setup,
    extraRepoFiles,
    tasks: [{ id: "env", f2p: ["tests/test_env.py::test_in_venv"], p2p: ["tests/test_ops.py::test_mul"], testsPatch }],
  });
  return loadDataset(root);
}

let n = 0;
async function verify(dataset: Dataset, text = "", sandbox: "bwrap" | "none" = "bwrap") {
  const w = join(scratch, `w${n++}`);
  return verifyArtifact({
    dataset,
    task: taskById(dataset).get("env")!,
    artifactText: text,
    workRoot: w,
    logFile: `${w}.log`,
    confine: confineBackend(sandbox),
  });
}

const venvSetup = [`python3 -m venv --without-pip --system-site-packages "$SWITCH_SWE_ENV/venv"`, `echo ran >> ${counter}`];

describe.skipIf(missingTool)("the environment cache", () => {
  it("runs set-up once, also under concurrent verifications, and tests run inside its venv", async () => {
    const dataset = datasetWithSetup(venvSetup);
    const [a, b] = await Promise.all([verify(dataset), verify(dataset)]);
    expect(readFileSync(counter, "utf8")).toBe("ran\n");
    expect([a.setup_cached, b.setup_cached].sort()).toEqual([false, true]);
    for (const v of [a, b]) {
      expect(v.tests["tests/test_env.py::test_in_venv"]).toBe("passed");
      expect(v.resolved).toBe(true);
    }
    const c = await verify(dataset);
    expect(c.setup_cached).toBe(true);
    expect(c.resolved).toBe(true);
    expect(readFileSync(counter, "utf8")).toBe("ran\n");

    const info = cacheInfo();
    expect(info.envs).toHaveLength(1);
    expect(info.envs[0]!.ready).toBe(true);
    expect(info.envs[0]!.setup).toEqual(venvSetup);
  });

  it("rebuilds an environment that an unsandboxed test run changed; sandboxed, the environment is read-only", async () => {
    const dataset = datasetWithSetup(venvSetup);
    const tamper = diffAgainst(calcRepo(), (d) =>
      writeFiles(d, {
        "calc/ops.py": `import os\nopen(os.path.join(os.environ["VIRTUAL_ENV"], "planted.pth"), "w").write("")\n${fixedOps}`,
      }),
    );
    const sandboxed = await verify(dataset, tamper);
    expect(sandboxed.setup_cached).toBe(true);
    expect(sandboxed.resolved).toBe(false);
    expect(sandboxed.notes?.join(" ") ?? "").not.toContain("changed files of the cached environment");
    const before = readFileSync(counter, "utf8");
    const v = await verify(dataset, tamper, "none");
    expect(v.setup_cached).toBe(true);
    expect(v.notes?.join(" ")).toContain("changed files of the cached environment");
    const next = await verify(dataset);
    expect(next.setup_cached).toBe(false);
    expect(readFileSync(counter, "utf8")).toBe(`${before}ran\n`);
  });

  it("a failing set-up is an infrastructure fault, re-verified twice", async () => {
    const dataset = datasetWithSetup(["echo trying; exit 3"]);
    const v = await verify(dataset);
    expect(v.infra_fault).toBe(true);
    expect(v.infra_reason).toContain("set-up failed (exit 3)");
    expect(v.attempts).toBe(3);
    expect(v.resolved).toBe(false);
    expect(v.setup_cached).toBe(false);
  });

  it("set-up sees where pip finds packages (PIP_FIND_LINKS, PIP_NO_INDEX, ...); the tests do not", async () => {
    const seen = join(scratch, "pip-vars.txt");
    const leak = [
      "import os",
      "",
      "",
      "def test_in_venv():",
      "    assert 'PIP_FIND_LINKS' not in os.environ and 'PIP_NO_INDEX' not in os.environ",
      "",
    ].join("\n");
    const testsPatch = diffAgainst(calcRepo(), (d) => writeFiles(d, { "tests/test_env.py": leak }));
    const root = writeCalcDataset(tempDir(), {
      setup: [
        `python3 -m venv --without-pip --system-site-packages "$SWITCH_SWE_ENV/venv"`,
        `echo "$PIP_FIND_LINKS|$PIP_NO_INDEX|$PIP_INDEX_URL" > ${seen}`,
      ],
      tasks: [{ id: "env", f2p: ["tests/test_env.py::test_in_venv"], p2p: ["tests/test_ops.py::test_mul"], testsPatch }],
    });
    const saved = { ...process.env };
    Object.assign(process.env, { PIP_FIND_LINKS: "/opt/wheels-here", PIP_NO_INDEX: "1", PIP_INDEX_URL: "file:///opt/index" });
    try {
      const v = await verify(loadDataset(root));
      expect(v.infra_fault, v.infra_reason ?? "").toBe(false);
      expect(readFileSync(seen, "utf8")).toBe("/opt/wheels-here|1|file:///opt/index\n");
      expect(v.tests["tests/test_env.py::test_in_venv"]).toBe("passed");
    } finally {
      for (const k of ["PIP_FIND_LINKS", "PIP_NO_INDEX", "PIP_INDEX_URL"])
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
    }
  });

  // Tests must import the artifact: an install from the set-up checkout would give them the base,
  // and a test tool that depends on the package under test (freezegun on python-dateutil) brings an
  // index's copy of it. Both environments are refused, once (no retry can change them).
  it.for([
    {
      what: "installs the repository itself from its checkout",
      write: `open(os.path.join(site.getsitepackages()[0], '__editable__calc.pth'), 'w').write(os.getcwd())`,
      reason: /set-up installed the repository itself from the set-up checkout \(__editable__calc\.pth\)/,
    },
    {
      what: "installs a copy of the package under test from elsewhere",
      write: `d = os.path.join(site.getsitepackages()[0], 'calc'); os.makedirs(d); open(os.path.join(d, '__init__.py'), 'w').close()`,
      reason:
        /set-up installed a copy of the package under test \(python3\.\d+\/site-packages\/calc\): the tests could import it instead of the artifact/,
    },
  ])("refuses a set-up that $what", async ({ write, reason }) => {
    const dataset = datasetWithSetup([
      `python3 -m venv --without-pip --system-site-packages "$SWITCH_SWE_ENV/venv"`,
      `"$SWITCH_SWE_ENV/venv/bin/python" -c "import os, site; ${write}"`,
    ]);
    const v = await verify(dataset);
    expect(v.infra_fault).toBe(true);
    expect(v.infra_reason).toMatch(reason);
    expect(v.attempts).toBe(1);
  });

  // Wheels that ship their own top-level `tests` package exist; the checkout's tests are no package under test.
  it("accepts a venv with a `tests` package beside a checkout whose tests are a package", async () => {
    const dataset = datasetWithSetup(
      [
        `python3 -m venv --without-pip --system-site-packages "$SWITCH_SWE_ENV/venv"`,
        `"$SWITCH_SWE_ENV/venv/bin/python" -c "import os, site; d = os.path.join(site.getsitepackages()[0], 'tests'); os.makedirs(d); open(os.path.join(d, '__init__.py'), 'w').close()"`,
      ],
      { "tests/__init__.py": "" },
    );
    const v = await verify(dataset);
    expect(v.infra_fault, v.infra_reason ?? "").toBe(false);
    expect(v.tests["tests/test_env.py::test_in_venv"]).toBe("passed");
  });

  it("cache clear removes environments and repositories", async () => {
    expect(readdirSync(join(cache, "envs")).length).toBeGreaterThan(0);
    const r = clearCache({ envs: true, repos: false });
    expect(r.removed.length).toBeGreaterThan(0);
    expect(readdirSync(join(cache, "envs"))).toEqual([]);
    expect(existsSync(join(cache, "repos"))).toBe(true);
    clearCache({ envs: false, repos: true });
    expect(existsSync(join(cache, "repos"))).toBe(false);
  });
});
