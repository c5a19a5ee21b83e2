import { describe, expect, it } from "vitest";
import { Command } from "commander";
import { cli } from "../helpers/cli.js";
import { commandGroups, layOutHelp } from "../../src/cli/help-layout.js";
import { agentNames } from "../../src/agents/registry.js";

/** The headings of a help text (lines ending in ":" at the left margin), in order. */
function headings(text: string): string[] {
  return text.split("\n").filter((l) => /^\S.*:$/.test(l));
}

/** Command names in the order the help lists them. */
function listedCommands(text: string): string[] {
  return text
    .split("\n")
    .map((l) => /^ {2}([a-z][a-z-]*)\b/.exec(l)?.[1])
    .filter((x): x is string => x !== undefined);
}

describe("switch-swe --help", { timeout: 600_000 }, () => {
  it("groups the commands by stage, the README's two commands first", () => {
    const r = cli(["--help"]);
    expect(r.code).toBe(0);
    expect(headings(r.stdout)).toEqual(["Options:", ...commandGroups.map((g) => g.heading), "Help:"]);
    const listed = listedCommands(r.stdout.slice(r.stdout.indexOf("Start here")));
    expect(listed.slice(0, 2)).toEqual(["doctor", "demo"]);
    expect(listed).toEqual([...commandGroups.flatMap((g) => g.commands), "help"]);
    expect(r.stdout).toContain("New here: `switch-swe doctor`, then `switch-swe demo`.");
  });

  it("run --help: options grouped by what they decide, every agent's options, two examples", () => {
    const r = cli(["run", "--help"]);
    expect(r.code).toBe(0);
    expect(headings(r.stdout)).toEqual([
      "What to run:",
      "Agent:",
      "Confinement:",
      "RCM:",
      "Output:",
      "Options:",
      "Agents (--agent) and their options (--agent-opt key=value):",
      "Examples:",
    ]);
    const confinement = r.stdout.slice(r.stdout.indexOf("Confinement:"), r.stdout.indexOf("RCM:"));
    for (const flag of ["--sandbox", "--network", "--limits"]) expect(confinement).toContain(flag);
    const agents = r.stdout.slice(r.stdout.indexOf("Agents (--agent)"), r.stdout.indexOf("Examples:"));
    for (const name of agentNames()) expect(agents).toMatch(new RegExp(`\\n  ${name} +\\S`));
    expect(agents).toContain("forget=P");
    expect(agents).toContain("model=PROVIDER/MODEL");
    expect(r.stdout.slice(r.stdout.indexOf("Examples:")).match(/\n {2}\$ switch-swe run /g)).toHaveLength(2);
  });

  it("each main command has two examples", () => {
    for (const args of [["demo"], ["doctor"], ["verify"], ["report"], ["compare"], ["sessions"], ["export"]]) {
      const r = cli([...args, "--help"]);
      expect(r.code, args.join(" ")).toBe(0);
      const ex = r.stdout.slice(r.stdout.indexOf("Examples:"));
      expect(ex.match(new RegExp(`\\n {2}\\$ switch-swe ${args[0]} `, "g")), args.join(" ")).toHaveLength(2);
    }
  });
});

describe("layOutHelp", () => {
  it("refuses a command that no group places, so none falls out of the help", () => {
    const program = new Command();
    for (const g of commandGroups) for (const name of g.commands) program.command(name);
    program.command("newcomer");
    expect(() => layOutHelp(program)).toThrow("help: command(s) newcomer are in no group of src/cli/help-layout.ts");
  });
});
