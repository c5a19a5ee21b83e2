import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, statSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { InfraFault } from "../core/infra-fault.js";
import { writeFileAtomic, writeJsonAtomic } from "../core/json-file.js";
import { processAlive, runProcess } from "../core/process.js";
import { testFileMatcher } from "../dataset/file-rules.js";
import { baseOnlyCheckoutAt, cacheRoot, type MaterializedRepo } from "../dataset/repo-cache.js";
import { pinMismatches, type InstalledRecord } from "../dataset/pinned-setup.js";
import { readInstalled } from "./env-installed.js";
import { setupEnv } from "./scrubbed-env.js";
import { sha256 } from "../core/digest.js";
import { checkSeal, removeEnvironment, sealEnvironment, sealFileOf, statFingerprint } from "./env-seal.js";

/**
 * The environment cache. Set-up commands run once per (repository, base commit, commands) in
 * `<cache>/envs/<key>/checkout` with SWITCH_SWE_ENV=<cache>/envs/<key>; a `ready` file written last
 * marks a usable environment. Tests then run in their own fresh checkout with `<env>/venv/bin`
 * and `<env>/bin` (when they exist) in front of PATH. See docs/verification.md.
 */

export function envsRoot(): string {
  return join(cacheRoot(), "envs");
}

export function envKey(repoIdentity: string, commit: string, setup: readonly string[], python?: string): string {
  // A declared Python version joins the key only when present: environments without one keep their keys.
  return sha256(JSON.stringify({ repo: repoIdentity, commit, setup, ...(python !== undefined ? { python } : {}) })).slice(0, 32);
}

export interface PreparedEnv {
  /** The environment directory, or null when the repository has no set-up commands. */
  dir: string | null;
  /** True when set-up did not run for this verification (the environment was ready). */
  cached: boolean;
  pathPrefix: string[];
  vars: Record<string, string>;
  /** Fingerprint of the environment's files, to notice a test run that changed it. */
  fingerprint: string | null;
}

export interface PrepareEnvOptions {
  repo: MaterializedRepo;
  /** Identifies the repository independently of where the dataset lives (`git:URL`, or `local`: the commit is content-addressed). */
  repoIdentity: string;
  commit: string;
  setup: readonly string[];
  /** The declared Python minor version: the set-up must then give exactly its pins (dataset/pinned-setup.ts). */
  python?: string;
  timeoutMs: number;
  log: (text: string) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The stat fingerprint of an environment's files (to notice a test run that changed them; see env-seal.ts). */
export function envFingerprint(dir: string): string {
  return statFingerprint(dir);
}

/** A lock is stale when its holder (on this host) is gone, or when it is older than the set-up deadline. */
function lockIsStale(lockFile: string, maxAgeMs: number): boolean {
  try {
    const [pid, host] = readFileSync(lockFile, "utf8").split("\n");
    const age = Date.now() - statSync(lockFile).mtimeMs;
    if (age > maxAgeMs) return true;
    if (host === hostname() && pid && !processAlive(Number(pid))) return true;
    return false;
  } catch {
    return false;
  }
}

function usable(dir: string, stat: string): PreparedEnv {
  const pathPrefix = [join(dir, "venv", "bin"), join(dir, "bin")].filter((p) => existsSync(p));
  const vars: Record<string, string> = { SWITCH_SWE_ENV: dir };
  if (existsSync(join(dir, "venv", "bin"))) vars.VIRTUAL_ENV = join(dir, "venv");
  return { dir, cached: true, pathPrefix, vars, fingerprint: stat };
}

/** The site-packages directories of an environment's venv, with the `pythonX.Y` directory each lies in. */
function venvSitePackages(dir: string): Array<{ py: string; site: string }> {
  const lib = join(dir, "venv", "lib");
  if (!existsSync(lib)) return [];
  return readdirSync(lib)
    .map((py) => ({ py, site: join(lib, py, "site-packages") }))
    .filter((s) => existsSync(s.site));
}

/** Files of a venv that show the repository itself was installed from the set-up checkout. */
function installsOfCheckout(dir: string): string[] {
  const checkout = join(dir, "checkout");
  const found: string[] = [];
  for (const { site } of venvSitePackages(dir)) {
    for (const name of readdirSync(site)) {
      const full = join(site, name);
      try {
        if (name.endsWith(".pth") || name.startsWith("__editable__")) {
          if (statSync(full).isFile() && readFileSync(full, "utf8").includes(checkout)) found.push(name);
        } else if (name.endsWith(".dist-info") || name.endsWith(".egg-link")) {
          const direct = name.endsWith(".egg-link") ? full : join(full, "direct_url.json");
          if (existsSync(direct) && readFileSync(direct, "utf8").includes(checkout)) found.push(name);
        }
      } catch {
        // unreadable entries are not evidence
      }
    }
  }
  return found;
}

const isTestPath = testFileMatcher({});

/**
 * The checkout's top-level source packages (`NAME/__init__.py`, at its root or under `src/`): what
 * its tests import. A `tests` package is not one (some wheels ship a `tests` package of their own).
 */
function checkoutPackages(checkout: string): Set<string> {
  const out = new Set<string>();
  for (const [base, prefix] of [
    [checkout, ""],
    [join(checkout, "src"), "src/"],
  ] as const) {
    let names: string[] = [];
    try {
      names = readdirSync(base);
    } catch {
      continue;
    }
    for (const name of names) if (existsSync(join(base, name, "__init__.py")) && !isTestPath(`${prefix}${name}/__init__.py`)) out.add(name);
  }
  return out;
}

/**
 * Packages of the checkout that the set-up installed a copy of from elsewhere (an index pulls the
 * package under test in as a test tool's dependency: freezegun needs python-dateutil). Whether the
 * tests then import the artifact or that copy depends on `sys.path`, i.e. on the test command.
 */
function copiesOfCheckoutPackages(dir: string): string[] {
  const packages = [...checkoutPackages(join(dir, "checkout"))];
  return venvSitePackages(dir).flatMap(({ py, site }) =>
    packages.filter((p) => existsSync(join(site, p, "__init__.py"))).map((p) => `${py}/site-packages/${p}`),
  );
}

/** Marks an environment as unusable, so the next verification rebuilds it. */
export function invalidateEnvironment(dir: string): void {
  rmSync(sealFileOf(dir), { force: true });
}

const saidChanged = new Set<string>();

/** Said once per environment and process, in the log and on stderr: a sealed environment was changed. */
function sayChanged(dir: string, why: string, log: (t: string) => void): void {
  const line = `environment ${dir} was changed after it was sealed: ${why}; it is not used, but rebuilt`;
  log(`${line}\n`);
  if (saidChanged.has(dir)) return;
  saidChanged.add(dir);
  process.stderr.write(`switch-swe: ${line}\n`);
}

/**
 * Returns a ready environment for (repository, commit, set-up), running the set-up when no ready
 * one exists. Concurrent callers (threads of one verify, or other processes) wait on a lock file
 * instead of racing. An environment whose files changed since set-up (a test run wrote into the
 * venv) is rebuilt. Throws InfraFault when set-up fails.
 */
export async function prepareEnvironment(opts: PrepareEnvOptions): Promise<PreparedEnv> {
  if (opts.setup.length === 0) return { dir: null, cached: false, pathPrefix: [], vars: {}, fingerprint: null };
  const root = envsRoot();
  mkdirSync(root, { recursive: true });
  const key = envKey(opts.repoIdentity, opts.commit, opts.setup, opts.python);
  const dir = join(root, key);
  const lockFile = join(root, `${key}.lock`);
  const waitUntil = Date.now() + opts.timeoutMs + 60_000;
  let waited = false;
  for (;;) {
    const seal = checkSeal(dir);
    if (seal.state === "intact") return usable(dir, seal.stat);
    let fd: number;
    try {
      fd = openSync(lockFile, "wx");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      if (lockIsStale(lockFile, opts.timeoutMs + 60_000)) {
        rmSync(lockFile, { force: true });
        continue;
      }
      if (Date.now() > waitUntil) throw new InfraFault(`timed out waiting for another set-up of ${dir} (lock ${lockFile})`, true);
      if (!waited) opts.log(`waiting for another verification that is setting up ${dir}\n`);
      waited = true;
      await sleep(200);
      continue;
    }
    try {
      writeSync(fd, `${process.pid}\n${hostname()}\n${new Date().toISOString()}\n`);
      closeSync(fd);
      const again = checkSeal(dir);
      if (again.state === "intact") return usable(dir, again.stat);
      if (again.state === "changed") sayChanged(dir, again.why, opts.log);
      const sealed = await runSetup(opts, dir);
      return { ...usable(dir, sealed), cached: false };
    } finally {
      rmSync(lockFile, { force: true });
    }
  }
}

/** A set-up that declared its Python version must give exactly its pins; otherwise it is refused in one line. */
function refuseUnpinned(python: string, setup: readonly string[], installed: InstalledRecord | null | string): void {
  const why =
    installed === null
      ? ["it creates no venv ($SWITCH_SWE_ENV/venv)"]
      : typeof installed === "string"
        ? [installed]
        : pinMismatches(python, setup, installed);
  if (why.length > 0) throw new InfraFault(`set-up does not give the versions it pins: ${why.join("; ")}`, false);
}

/** Sets the environment up from scratch and seals it; returns its stat fingerprint. */
async function runSetup(opts: PrepareEnvOptions, dir: string): Promise<string> {
  removeEnvironment(dir);
  mkdirSync(dir, { recursive: true });
  const started = Date.now();
  const logLines: string[] = [];
  const log = (t: string) => {
    logLines.push(t);
    opts.log(t);
  };
  try {
    await baseOnlyCheckoutAt(opts.repo, opts.commit, join(dir, "checkout"));
    const home = join(dir, ".setup-home");
    const tmp = join(dir, ".setup-tmp");
    mkdirSync(home, { recursive: true });
    mkdirSync(tmp, { recursive: true });
    const env = setupEnv({ home, tmp, vars: { SWITCH_SWE_ENV: dir } });
    for (const cmd of opts.setup) {
      const left = opts.timeoutMs - (Date.now() - started);
      log(`$ ${cmd}\n`);
      const r = await runProcess("/bin/sh", ["-c", cmd], { cwd: join(dir, "checkout"), env, timeoutMs: Math.max(left, 1) });
      log(r.stdout + r.stderr);
      if (r.spawnError) throw new InfraFault(`set-up could not start: ${r.spawnError}`, true);
      if (r.timedOut) throw new InfraFault(`set-up timed out after ${Math.round(opts.timeoutMs / 1000)} s: ${cmd}`, true);
      if (r.code !== 0) throw new InfraFault(`set-up failed (exit ${r.code ?? r.signal}): ${cmd}`, true);
    }
    const installed = await readInstalled(dir, env, Math.max(opts.timeoutMs - (Date.now() - started), 60_000));
    rmSync(home, { recursive: true, force: true });
    rmSync(tmp, { recursive: true, force: true });
    if (opts.python !== undefined) refuseUnpinned(opts.python, opts.setup, installed);
    const installs = installsOfCheckout(dir);
    if (installs.length > 0) {
      throw new InfraFault(
        `set-up installed the repository itself from the set-up checkout (${installs.join(", ")}): tests would import the base revision instead of the artifact; install dependencies only (see docs/verification.md)`,
        false,
      );
    }
    const copies = copiesOfCheckoutPackages(dir);
    if (copies.length > 0) {
      throw new InfraFault(
        `set-up installed a copy of the package under test (${copies.join(", ")}): the tests could import it instead of the artifact; install the test tools without it (pip --no-deps for a tool that depends on the package itself; see docs/verification.md)`,
        false,
      );
    }
    writeJsonAtomic(join(dir, "env.json"), {
      repo: opts.repoIdentity,
      commit: opts.commit,
      setup: opts.setup,
      created_at: new Date().toISOString(),
      setup_ms: Date.now() - started,
      // What the set-up installed (its venv's python and pip freeze): the record of the versions tests ran with.
      ...(installed !== null && typeof installed !== "string" ? { installed } : {}),
    });
    writeFileAtomic(join(dir, "setup.log"), logLines.join(""));
    writeJsonAtomic(join(dir, "ready"), { setup: "complete" });
    // Last: read-only, and the seal next to it that makes the environment usable.
    return sealEnvironment(dir).stat;
  } catch (e) {
    removeEnvironment(dir);
    if (e instanceof InfraFault) throw e;
    throw new InfraFault(`set-up failed: ${(e as Error).message}`, true);
  }
}
