import { InvalidArgumentError } from "commander";

/** A commander parser for non-negative integers that names the option in its error. */
export function parseCount(name: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`${name} must be a non-negative integer, got "${value}"`);
    return Number(value);
  };
}
