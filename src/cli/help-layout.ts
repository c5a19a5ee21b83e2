import type { Command, Option } from "commander";

/**
 * How `--help` is laid out: the top-level commands grouped by the stage of the pipeline a user meets
 * them in (what to try first on top: the two commands the README starts with), a main command's options
 * grouped by what they decide, and two examples under each main command. Every top-level command must
 * be placed here: `layOutHelp` refuses one that is not, so a new command cannot fall out of the help.
 */
export const commandGroups: ReadonlyArray<{ heading: string; commands: readonly string[] }> = [
  { heading: "Start here (what this machine can do, then the whole pipeline on the sample):", commands: ["doctor", "demo"] },
  { heading: "1. Tasks and datasets:", commands: ["tasks", "datasets"] },
  { heading: "2. Paired sessions:", commands: ["sessions"] },
  { heading: "3. Run agents and verify their work:", commands: ["run", "verify", "agents", "cache"] },
  { heading: "4. Read the results:", commands: ["report", "compare", "export"] },
  { heading: "On many machines (a Redis queue):", commands: ["worker", "queue"] },
  { heading: "Resumption Context Manager and the handoff benchmark:", commands: ["rcm", "handoff", "mock-model"] },
];

/** Option groups of a command, by long flag; options not named stay under "Options:" at the end. */
export const optionGroups: Readonly<Record<string, ReadonlyArray<{ heading: string; flags: readonly string[] }>>> = {
  run: [
    {
      heading: "What to run:",
      flags: [
        "--dataset",
        "--sessions",
        "--condition",
        "--session",
        "--out",
        "--resume",
        "--seed",
        "--concurrency",
        "--request-timeout",
        "--queue",
      ],
    },
    { heading: "Agent:", flags: ["--agent", "--agent-opt", "--submission", "--label"] },
    { heading: "Confinement:", flags: ["--sandbox", "--network", "--limits"] },
    { heading: "RCM:", flags: ["--rcm", "--rcm-state"] },
    { heading: "Output:", flags: ["--no-verify", "--keep-workspaces", "--quiet", "--json"] },
  ],
  report: [
    { heading: "Output:", flags: ["--format", "--out", "--catalogue"] },
    { heading: "Inputs:", flags: ["--sessions", "--dataset", "--allow-mixed", "--trust-suspicious", "--handoff"] },
    { heading: "Statistics:", flags: ["--seed", "--resamples"] },
  ],
};

/** Two examples per main command, shown under its options. */
export const examples: Readonly<Record<string, readonly string[]>> = {
  doctor: [
    "switch-swe doctor                  # every tool, what it enables, how to install it",
    "switch-swe doctor --for run         # exit 0 when this machine can run agents",
  ],
  demo: [
    "switch-swe demo                          # the sample dataset, into ./switch-swe-demo",
    "switch-swe demo --out /tmp/d --forget 0.3 # a smaller known gap, elsewhere",
  ],
  run: [
    "switch-swe run --dataset datasets/sample --sessions sessions.json --agent oracle --out runs/oracle",
    "switch-swe run --dataset D --sessions S --agent codex --agent-opt model=gpt-5 --agent-opt effort=high --out runs/codex",
  ],
  verify: [
    "switch-swe verify runs/oracle                    # every session without a verdict",
    "switch-swe verify runs/oracle --session t01.switch --force",
  ],
  report: [
    "switch-swe report runs/oracle runs/codex          # the result first, as text",
    "switch-swe report runs/codex --out report.html     # one self-contained page",
  ],
  compare: [
    "switch-swe compare runs/codex runs/codex-rcm",
    "switch-swe compare --native runs/codex --rcm runs/codex-rcm --format markdown",
  ],
  sessions: [
    "switch-swe sessions build datasets/sample --seed 0 --out sessions.json",
    "switch-swe sessions stats sessions.json --dataset datasets/sample",
  ],
  export: ["switch-swe export atif runs/oracle --out atif/", "switch-swe export atif runs/codex --out /tmp/codex-atif"],
};

function exampleText(lines: readonly string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join("\n")}\n`;
}

/** Applies the groups and examples above to the registered commands; throws on a command or flag not found. */
export function layOutHelp(program: Command): void {
  const byName = new Map(program.commands.map((c) => [c.name(), c]));
  const placed = new Set(commandGroups.flatMap((g) => g.commands));
  const unplaced = [...byName.keys()].filter((n) => !placed.has(n));
  if (unplaced.length > 0) throw new Error(`help: command(s) ${unplaced.join(", ")} are in no group of src/cli/help-layout.ts`);
  const ordered: Command[] = [];
  for (const g of commandGroups) {
    for (const name of g.commands) {
      const cmd = byName.get(name);
      if (!cmd) throw new Error(`help: no command "${name}" (src/cli/help-layout.ts)`);
      cmd.helpGroup(g.heading);
      ordered.push(cmd);
    }
  }
  // commander lists groups, and commands within them, in the order of program.commands.
  (program.commands as Command[]).splice(0, program.commands.length, ...ordered);
  program.commandsGroup("Help:").helpCommand("help [command]", "display help for a command");
  program.addHelpText(
    "after",
    "\nNew here: `switch-swe doctor`, then `switch-swe demo`. `switch-swe <command> --help` has each command's options and examples.\n",
  );

  for (const [name, groups] of Object.entries(optionGroups)) {
    const cmd = byName.get(name)!;
    for (const g of groups) {
      for (const flag of g.flags) {
        const option = cmd.options.find((o) => o.long === flag);
        if (!option) throw new Error(`help: ${name} has no option ${flag} (src/cli/help-layout.ts)`);
        option.helpGroup(g.heading);
      }
    }
    // The options named above first, in their groups' order: commander orders groups by first appearance.
    const rank = (flag: string | undefined) => {
      const i = groups.findIndex((g) => g.flags.includes(flag ?? ""));
      return i === -1 ? groups.length : i;
    };
    (cmd.options as Option[]).sort((a, b) => rank(a.long) - rank(b.long));
  }
  for (const [name, lines] of Object.entries(examples)) {
    const cmd = byName.get(name);
    if (!cmd) throw new Error(`help: no command "${name}" (src/cli/help-layout.ts)`);
    // A command with subcommands shows them under its own help; the examples go there too.
    cmd.addHelpText("after", exampleText(lines));
  }
}
