import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { taskEnvInside, type TaskEnv, type WorkspaceEnvironments } from "../../src/confine/task-env.js";
import { workspaceNames, type WorkspaceName } from "../../src/formats/sessions.js";
import { tempDir } from "../helpers/temp.js";

/** A stand-in environment whose python and python3 say which environment they are, and their arguments. */
function fakeEnv(root: string, name: string): TaskEnv {
  const dir = join(root, "envs", name);
  const bin = join(dir, "venv", "bin");
  mkdirSync(bin, { recursive: true });
  mkdirSync(join(dir, "checkout"), { recursive: true });
  for (const p of ["python", "python3"]) writeFileSync(join(bin, p), `#!/bin/sh\necho "${name} ${p} $*"\n`, { mode: 0o755 });
  return { dir, pathPrefix: [bin], vars: { SWITCH_SWE_ENV: dir, VIRTUAL_ENV: join(dir, "venv") } };
}

function workspaces(root: string): Record<WorkspaceName, string> {
  const paths = Object.fromEntries(workspaceNames.map((w) => [w, join(root, "workspace", w)])) as Record<WorkspaceName, string>;
  for (const p of Object.values(paths)) mkdirSync(join(p, "sub"), { recursive: true });
  return paths;
}

describe("the task environments inside the agent's sandbox (taskEnvInside)", () => {
  it("one environment for every workspace: its bin first on PATH and its variables, read-only, its set-up checkout hidden; no scripts", () => {
    const root = tempDir();
    const a = fakeEnv(root, "A");
    const envs = Object.fromEntries(workspaceNames.map((w) => [w, a])) as WorkspaceEnvironments["envs"];
    const inside = taskEnvInside({ envs, pythonPath: "src" }, workspaces(root), join(root, "shims"));
    expect(inside).toEqual({
      binds: [{ src: a.dir }],
      hidden: [join(a.dir, "checkout")],
      pathPrefix: a.pathPrefix,
      vars: { ...a.vars, PYTHONPATH: "src", PYTHONDONTWRITEBYTECODE: "1" },
    });
  });

  it("no set-up anywhere: nothing bound, the host's python, the test command's PYTHONPATH", () => {
    const root = tempDir();
    const envs = Object.fromEntries(workspaceNames.map((w) => [w, null])) as WorkspaceEnvironments["envs"];
    expect(taskEnvInside({ envs, pythonPath: null }, workspaces(root), join(root, "shims"))).toEqual({
      binds: [],
      hidden: [],
      pathPrefix: [],
      vars: {},
    });
  });

  it("workspaces with different environments: python, python3 and pytest choose by the working directory (the host's where a task has none)", () => {
    const root = tempDir();
    const [a, b] = [fakeEnv(root, "A"), fakeEnv(root, "B")];
    const envs: WorkspaceEnvironments["envs"] = { w00: a, w01: a, w02: b, w03: null, w04: null };
    const paths = workspaces(root);
    const shims = join(root, "shims");
    const inside = taskEnvInside({ envs, pythonPath: null }, paths, shims);
    expect(inside.binds).toEqual([{ src: a.dir }, { src: b.dir }, { src: shims, dest: "/task-env/bin" }]);
    expect(inside.pathPrefix).toEqual(["/task-env/bin"]);
    expect(inside.vars).toEqual({ PYTHONDONTWRITEBYTECODE: "1" });
    // Outside a sandbox the scripts run from their host directory; the host's programs come after them on PATH.
    const run = (program: string, cwd: string, ...args: string[]) =>
      execFileSync("sh", [join(shims, program), ...args], {
        cwd,
        env: { ...process.env, PATH: `/task-env/bin:${process.env.PATH}` },
        encoding: "utf8",
      }).trim();
    expect(run("python", paths.w00, "-V")).toBe("A python -V");
    expect(run("python3", join(paths.w01, "sub"), "x.py")).toBe("A python3 x.py");
    expect(run("pytest", paths.w02, "-q")).toBe("B python -m pytest -q");
    expect(run("python3", paths.w03, "-c", "print('host')")).toBe("host");
    expect(run("python3", root, "-c", "print('elsewhere')")).toBe("elsewhere");
    // A directory that only starts like a workspace's name is not that workspace.
    mkdirSync(`${paths.w02}x`, { recursive: true });
    expect(run("python3", `${paths.w02}x`, "-c", "print('not w02')")).toBe("not w02");
  });
});
