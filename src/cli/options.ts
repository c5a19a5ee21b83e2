import { InvalidArgumentError } from "commander";

/** The one integer parser of the CLI: a commander parser for integers in [min, max] that names the option. */
export function parseInteger(name: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  const what =
    max === Number.MAX_SAFE_INTEGER
      ? min === 0
        ? "a non-negative integer"
        : min === 1
          ? "a positive integer"
          : `an integer >= ${min}`
      : `an integer from ${min} to ${max}`;
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max)
      throw new InvalidArgumentError(`${name} must be ${what}, got "${value}"`);
    return n;
  };
}

/** Non-negative integers (seeds, counts). */
export const parseCount = (name: string) => parseInteger(name, 0);

/** Positive integers (concurrency, runs). */
export const parsePositive = (name: string) => parseInteger(name, 1);

/** A positive number of seconds or other quantity. */
export function parsePositiveNumber(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === "" || !Number.isFinite(n) || n <= 0)
      throw new InvalidArgumentError(`${name} must be a positive number, got "${value}"`);
    return n;
  };
}

/** Collects a repeatable option into a list. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** `--repo NAME=PATH|URL`, repeatable: a map from repository name to its source. */
export function parseRepoSources(pairs: readonly string[] | undefined, flag = "--repo"): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs ?? []) {
    const eq = pair.indexOf("=");
    if (eq <= 0 || eq === pair.length - 1) throw new InvalidArgumentError(`${flag} must be NAME=PATH or NAME=URL, got "${pair}"`);
    out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}
