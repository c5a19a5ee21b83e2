import { spawnSync } from "node:child_process";
import { appendFileSync, mkdirSync, readdirSync, symlinkSync } from "node:fs";
import { delimiter, join, relative } from "node:path";
import { probeLimits } from "../../src/confine/cgroups.js";
import { defaultLimits } from "../../src/confine/limits.js";
import { packageRoot } from "../../src/core/package-paths.js";
import { bwrapProblem, sandboxHardening } from "../../src/confine/bubblewrap.js";
import { egressProblem } from "../../src/confine/egress.js";
import { toolInstall, type Tool } from "./tool-install.js";

export type { Tool } from "./tool-install.js";

export const chromiumPath = "/usr/bin/chromium";

const found = new Map<Tool, string | null>();

function answers(command: string, args: string[]): string | null {
  const r = spawnSync(command, args, { encoding: "utf8", timeout: 30_000 });
  if (r.error) return `${command} not found`;
  return r.status === 0 ? null : `${command} ${args.join(" ")} failed: ${(r.stderr || r.stdout).trim().split("\n")[0]}`;
}

/** Why `tool` cannot be used here, or null. */
export function toolProblem(tool: Tool): string | null {
  if (found.has(tool)) return found.get(tool)!;
  let why: string | null;
  switch (tool) {
    case "bwrap":
      why = bwrapProblem();
      break;
    case "userns":
      // The hardening probe every run makes (and doctor reports), not a second bwrap call of our own.
      why =
        bwrapProblem() ??
        (Object.values(sandboxHardening())
          .filter((p) => !p.applied)
          .map((p) => p.detail)
          .join("; ") ||
          null);
      break;
    case "cgroups": {
      const record = probeLimits(defaultLimits);
      const no = (["cpus", "memory", "pids"] as const).filter((r) => record[r].status !== "enforced");
      why = no.length === 0 ? null : `cgroups not writable here (${no.map((r) => `${r}: ${record[r].detail}`).join("; ")})`;
      break;
    }
    case "redis-server":
      why = answers("redis-server", ["--version"]);
      break;
    case "socat":
      why = egressProblem();
      break;
    case "chromium":
      why = answers(chromiumPath, ["--version"]) === null ? null : `${chromiumPath} not found`;
      break;
  }
  found.set(tool, why);
  return why;
}

/**
 * For `describe.skipIf(...)`: true when one of `tools` is missing, after recording the skip for the
 * run's summary. Under CI=true a missing tool throws, which fails the test file with the reason.
 */
export function skipWithout(testFile: string, ...tools: Tool[]): boolean {
  const missing = tools.flatMap((t) => {
    const why = toolProblem(t);
    return why === null ? [] : [{ tool: t, why }];
  });
  if (missing.length === 0) return false;
  const file = relative(packageRoot, testFile.startsWith("file:") ? new URL(testFile).pathname : testFile);
  const reason = missing.map((m) => `${m.tool}: ${m.why}`).join("; ");
  if (process.env.CI === "true" || process.env.CI === "1") {
    throw new Error(
      `${file}: CI=true and a tool it needs is missing (${reason}); install: ${missing.map((m) => toolInstall[m.tool]).join("; ")}`,
    );
  }
  const summary = process.env.SWITCH_SWE_TEST_SKIPS;
  if (summary) appendFileSync(summary, `${JSON.stringify({ file, tools: missing.map((m) => m.tool), reason })}\n`);
  console.warn(`${file} skipped: ${reason}`);
  return true;
}

/**
 * A PATH on which `names` cannot be found: every directory of PATH that holds one of them is replaced
 * by a directory of symbolic links to everything else it holds (a fresh machine without those tools).
 */
export function pathWithout(names: readonly string[], root: string, pathEnv = process.env.PATH ?? ""): string {
  return pathEnv
    .split(delimiter)
    .filter((d) => d !== "")
    .map((dir, i) => {
      let entries: string[];
      try {
        entries = readdirSync(dir);
      } catch {
        return dir;
      }
      if (!entries.some((e) => names.includes(e))) return dir;
      const farm = join(root, `path-${i}`);
      mkdirSync(farm, { recursive: true });
      for (const e of entries) if (!names.includes(e)) symlinkSync(join(dir, e), join(farm, e));
      return farm;
    })
    .join(delimiter);
}
