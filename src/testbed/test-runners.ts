import type { TestRunner } from "./test-runner.js";
import { pytestRunner } from "./pytest-runner.js";
import { unittestRunner } from "./unittest-runner.js";

/**
 * Every test runner by name, the default first. To add one, write it in its own file (a TestRunner
 * with its launcher) and list it here; nothing else names runners.
 */
const runners: TestRunner[] = [pytestRunner, unittestRunner];

/** Adds a runner at run time (a test double; the built-in ones are listed above). */
export function registerTestRunner(runner: TestRunner): void {
  if (runners.some((r) => r.name === runner.name)) throw new Error(`test runner ${runner.name} is registered already`);
  runners.push(runner);
}

/** The runners' names, the default first. */
export function testRunnerNames(): string[] {
  return runners.map((r) => r.name);
}

/** Every runner, the default first (what `doctor` asks). */
export function testRunners(): readonly TestRunner[] {
  return runners;
}

/** The runner of a name (undefined: no such runner); the default without one. */
export function findTestRunner(name: string | undefined): TestRunner | undefined {
  return name === undefined ? runners[0] : runners.find((r) => r.name === name);
}

/** The package a pinned set-up must pin for a runner (dataset/pinned-setup.ts); null for one unknown here. */
export function testRunnerPackage(name: string | undefined): string | null {
  return findTestRunner(name)?.package ?? null;
}

/** The runner of a repository that names none. */
export function defaultTestRunner(): TestRunner {
  return runners[0]!;
}
