import { InvalidArgumentError } from "commander";

/** A commander parser for non-negative integers that names the option in its error. */
export function parseCount(name: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`${name} must be a non-negative integer, got "${value}"`);
    return Number(value);
  };
}

/** A commander parser for positive integers that names the option in its error. */
export function parsePositive(name: string) {
  return (value: string): number => {
    if (!/^[1-9]\d*$/.test(value)) throw new InvalidArgumentError(`${name} must be a positive integer, got "${value}"`);
    return Number(value);
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
