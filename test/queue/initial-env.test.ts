import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../src/core/package-paths.js";

// Removing a variable from process.env keeps it out of children, but /proc/<pid>/environ still shows
// it to any process of the same user: the worker overwrites the queue's entries there (issue 42).
const module = join(packageRoot, "dist", "queue", "initial-env.js");

function inChild(script: string, env: Record<string, string>): string {
  const r = spawnSync(
    process.execPath,
    ["--input-type=module", "-e", `import { wipeInitialEnvironment as wipe } from ${JSON.stringify(module)};\n${script}`],
    { env: { PATH: process.env.PATH ?? "", ...env }, encoding: "utf8" },
  );
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

describe.skipIf(process.platform !== "linux")("wipeInitialEnvironment", () => {
  it("overwrites whole entries of the named variables in /proc/self/environ, and nothing else", () => {
    const out = inChild(
      `const n = wipe(["SECRET", "URL", "ABSENT"]);
       const environ = (await import("node:fs")).readFileSync("/proc/self/environ", "utf8").split("\\0");
       console.log(JSON.stringify({ n, environ, env: process.env.KEEP }));`,
      { SECRET: "s3cr3t-value", URL: "redis://:pw@h/0", KEEP: "NOTSECRET=SECRET=x", XSECRET: "other" },
    );
    const r = JSON.parse(out) as { n: number; environ: string[]; env: string };
    expect(r.n).toBe(2);
    expect(r.environ.join("\n")).not.toMatch(/s3cr3t|redis:|^SECRET=|^URL=/m);
    expect(r.environ).toContain("KEEP=NOTSECRET=SECRET=x");
    expect(r.environ).toContain("XSECRET=other");
    expect(r.env).toBe("NOTSECRET=SECRET=x");
  });
});
