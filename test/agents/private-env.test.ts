import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { commandAgent } from "../../src/agents/command.js";
import { agentEnv, envNames } from "../../src/agents/private-env.js";
import { tempDir } from "../helpers/temp.js";
import { conversationContext, converse } from "./helpers/converse.js";

const saved = { ...process.env };
afterEach(() => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
});

describe("private environment of every agent", () => {
  it("agentEnv: system variables, the named ones, a private HOME with XDG dirs, nothing else", () => {
    const home = join(tempDir(), "home");
    const env = agentEnv(
      home,
      ["MY_KEY", "UNSET_ONE"],
      { OWN: "1" },
      { PATH: "/bin", SECRET_TOKEN: "s", MY_KEY: "k", HOME: "/root", XDG_CONFIG_HOME: "/root/.config" },
    );
    expect(env).toEqual({
      PATH: "/bin",
      MY_KEY: "k",
      OWN: "1",
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      XDG_DATA_HOME: join(home, ".local", "share"),
      XDG_STATE_HOME: join(home, ".local", "state"),
      XDG_CACHE_HOME: join(home, ".cache"),
    });
    expect(existsSync(join(home, ".config"))).toBe(true);
    expect(envNames(" A, B ,,C")).toEqual(["A", "B", "C"]);
  });

  it("command agent: each session has its own HOME; only variables named with env= pass through", async () => {
    process.env.SWITCH_SWE_TEST_SECRET = "do-not-leak";
    process.env.SWITCH_SWE_TEST_PASSED = "passed";
    const agent = commandAgent.create(
      commandAgent.parse({
        command:
          'echo "home=$HOME secret=${SWITCH_SWE_TEST_SECRET:-none} passed=${SWITCH_SWE_TEST_PASSED:-none}" > env.txt; ls "$HOME/memory" 2>/dev/null > seen.txt; touch "$HOME/memory"',
        env: "SWITCH_SWE_TEST_PASSED",
      }),
    );
    const homes: string[] = [];
    for (const session of ["a", "b"]) {
      const ctx = conversationContext(tempDir(`switch-swe-env-${session}-`), "c");
      const [r] = await converse(agent, ctx, [{ ws: "w00", text: "go" }]);
      expect(r!.result.outcome).toBe("yielded");
      const line = readFileSync(join(ctx.workspaces.w00, "env.txt"), "utf8");
      expect(line).toContain("secret=none passed=passed");
      homes.push(/home=(\S+)/.exec(line)![1]!);
      // Nothing the previous session left in its HOME is visible here.
      expect(readFileSync(join(ctx.workspaces.w00, "seen.txt"), "utf8")).toBe("");
      expect(homes.at(-1)!.startsWith(ctx.stateDir)).toBe(true);
    }
    expect(homes[0]).not.toBe(homes[1]);
  });

  it("a named variable that is not set is bad input", () => {
    delete process.env.SWITCH_SWE_TEST_MISSING;
    expect(() => commandAgent.parse({ command: "true", env: "SWITCH_SWE_TEST_MISSING" })).toThrow(
      /env: SWITCH_SWE_TEST_MISSING is not set/,
    );
    expect(() => commandAgent.parse({ command: "true", env: "1BAD" })).toThrow(/env: must be NAME/);
  });
});
