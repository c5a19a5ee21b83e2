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

/** A commander parser for positive numbers (seconds, megabytes) that names the option in its error. */
export function parsePositiveNumber(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === "" || !Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${name} must be a positive number, got "${value}"`);
    return n;
  };
}

/** Collects a repeatable option into a list. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
