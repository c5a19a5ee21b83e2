import type { Environment } from "./schema.js";

/**
 * The pinned-environment rule (docs/mining.md): a shipped set-up declares exact versions, so the same
 * manifest gives the same tests the same interpreter and packages on any machine. Pinned means the
 * environment declares its Python minor version (`python`), its set-up creates the venv tests run
 * in, and every `pip install` names each requirement as `NAME==VERSION`, the test runner's package
 * among them (pytest; none for unittest, which comes with Python). This
 * reads the commands only; what a set-up really installed is compared with these pins after it ran
 * (testbed/env-cache.ts), and anything it installed beyond them is refused there.
 */

/** `NAME==VERSION` (with optional extras), the only requirement form that is pinned. */
const pinned = /^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([A-Za-z0-9][A-Za-z0-9.!+_-]*)$/;

/** pip options that take a value; `-r`, `-c` and `-e` are judged, the others skipped with their value. */
const valueOptions = new Set([
  "-i",
  "--index-url",
  "--extra-index-url",
  "-f",
  "--find-links",
  "-t",
  "--target",
  "--prefix",
  "--root",
  "--python-version",
  "--platform",
  "--implementation",
  "--abi",
  "--src",
  "--upgrade-strategy",
  "--progress-bar",
  "--log",
  "--timeout",
  "--retries",
  "--cache-dir",
  "--trusted-host",
  "--proxy",
  "--report",
]);

/** A package name as pip compares them (PEP 503). */
export const normalizeName = (name: string): string => name.toLowerCase().replace(/[-_.]+/g, "-");

/** Shell words of one command, split at `&&`, `||`, `;` and `|` into simple commands (quotes removed; nothing expanded). */
function simpleCommands(cmd: string): string[][] {
  const out: string[][] = [[]];
  let word: string | null = null;
  const end = () => {
    if (word !== null) out[out.length - 1]!.push(word);
    word = null;
  };
  for (let i = 0; i < cmd.length; i++) {
    const c = cmd[i]!;
    if (/\s/.test(c)) end();
    else if (c === ";" || c === "&" || c === "|") {
      end();
      if (cmd[i + 1] === c) i++;
      out.push([]);
    } else if (c === "'" || c === '"') {
      const close = cmd.indexOf(c, i + 1);
      const stop = close === -1 ? cmd.length : close;
      word = (word ?? "") + cmd.slice(i + 1, stop);
      i = stop;
    } else if (c === "\\" && i + 1 < cmd.length) word = (word ?? "") + cmd[++i];
    else word = (word ?? "") + c;
  }
  end();
  return out.filter((c) => c.length > 0);
}

/** The arguments after `install` of a pip call (`pip install`, `pip3 install`, `python -m pip install`), or null. */
function pipInstallArgs(words: readonly string[]): string[] | null {
  for (let i = 0; i < words.length - 1; i++) {
    const isPip = /(^|\/)pip(3(\.\d+)?)?$/.test(words[i]!) || (words[i] === "pip" && words[i - 1] === "-m");
    if (isPip && words[i + 1] === "install") return words.slice(i + 2);
  }
  return null;
}

export interface SetupPins {
  /** Normalized name → version, from every `pip install` of the set-up. */
  pins: Map<string, string>;
  /** What keeps the set-up from being pinned, one phrase each. */
  unpinned: string[];
  /** Whether a command creates a venv (`-m venv` or `virtualenv`). */
  venv: boolean;
}

/** The pins a set-up's commands declare, and every requirement they install without one. */
export function setupPins(setup: readonly string[]): SetupPins {
  const pins = new Map<string, string>();
  const unpinned: string[] = [];
  let venv = false;
  for (const words of setup.flatMap(simpleCommands)) {
    if (words.some((w, i) => (w === "venv" && words[i - 1] === "-m") || /(^|\/)virtualenv$/.test(w))) venv = true;
    const args = pipInstallArgs(words);
    if (args === null) continue;
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!;
      if (["-r", "--requirement", "-c", "--constraint"].includes(a) || /^--(requirement|constraint)=/.test(a)) {
        unpinned.push(
          `${a.split("=")[0]} ${args[i + 1] ?? ""}`.trim() + ": a requirements file hides its versions (list each as NAME==VERSION)",
        );
        i += a.includes("=") ? 0 : 1;
      } else if (a === "-e" || a === "--editable") {
        unpinned.push(`${a} ${args[i + 1] ?? ""}: an editable install is no pinned version`);
        i++;
      } else if (valueOptions.has(a)) i++;
      else if (a.startsWith("-")) continue;
      else {
        const m = pinned.exec(a);
        if (m) pins.set(normalizeName(m[1]!), m[2]!);
        else unpinned.push(`${a} is not pinned (NAME==VERSION)`);
      }
    }
  }
  return { pins, unpinned, venv };
}

/**
 * The package a set-up must pin for the test runner an environment names (`environment.test_runner`,
 * undefined: the default runner): null when the runner comes with Python or is not known (an unknown
 * runner is refused elsewhere). The test-bed's registry answers it (testbed/test-runners.ts).
 */
export type RunnerPackage = (runner: string | undefined) => string | null;

/** Why one environment (the repository's, or a variant laid over it) is not pinned; empty when it is. */
function unpinnedOf(setup: readonly string[] | undefined, python: string | undefined, runnerPackage: string | null): string[] {
  const runner = runnerPackage ?? "its test runner";
  if (!setup || setup.length === 0) return [`no set-up: tests run on the host's python3 and ${runner}, whose versions nothing declares`];
  const s = setupPins(setup);
  return [
    ...(python === undefined ? ['the Python minor version is not declared (environment.python, e.g. "3.11")'] : []),
    ...(s.venv ? [] : ["the set-up creates no venv ($SWITCH_SWE_ENV/venv), so tests would run the host's python"]),
    ...(runnerPackage === null || s.pins.has(normalizeName(runnerPackage))
      ? []
      : [`${runnerPackage} is not pinned (${runnerPackage}==VERSION in a pip install)`]),
    ...s.unpinned,
  ];
}

/** Every reason an environment and its variants are not pinned, as [field path, reason] pairs. */
export function unpinnedEnvironment(env: Environment | undefined, path: string, runnerPackage: RunnerPackage): Array<[string, string]> {
  const out: Array<[string, string]> = unpinnedOf(env?.setup, env?.python, runnerPackage(env?.test_runner)).map((r) => [path, r]);
  for (const [name, v] of Object.entries(env?.variants ?? {})) {
    const runner = runnerPackage(v.test_runner ?? env?.test_runner);
    for (const r of unpinnedOf(v.setup ?? env?.setup, v.python ?? env?.python, runner)) out.push([`${path}.variants.${name}`, r]);
  }
  return out;
}

/** What a set-up installed in its venv: the interpreter's version and `pip freeze`'s lines. */
export interface InstalledRecord {
  python: string;
  packages: string[];
}

/**
 * How an installed venv differs from what its environment pins: another Python minor version, a
 * pinned package missing or at another version, a package installed that nothing pins (a dependency
 * of a pin: pin it too). Empty when the set-up gave exactly its pins.
 */
export function pinMismatches(python: string, setup: readonly string[], installed: InstalledRecord): string[] {
  const out: string[] = [];
  const minor = installed.python.split(".").slice(0, 2).join(".");
  if (minor !== python) out.push(`python ${installed.python} (${python} declared)`);
  const pins = setupPins(setup).pins;
  const got = new Map<string, string>();
  for (const line of installed.packages) {
    const m = /^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:==\s*(\S+)|@\s*(\S+))/.exec(line);
    if (m) got.set(normalizeName(m[1]!), m[2] ?? m[3]!);
  }
  for (const [name, version] of pins) {
    const v = got.get(name);
    if (v === undefined) out.push(`${name}==${version} not installed`);
    else if (v !== version) out.push(`${name} ${v} installed (${version} pinned)`);
  }
  const extra = [...got].filter(([name]) => !pins.has(name)).map(([n, v]) => `${n}==${v}`);
  if (extra.length > 0) out.push(`installed but not pinned: ${extra.join(", ")}`);
  return out;
}
