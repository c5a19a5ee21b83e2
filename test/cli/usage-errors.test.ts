import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";

/** A usage error: exit 2, exactly one line on stderr, nothing on stdout, no usage text. */
function usageError(args: string[]): string {
  const r = cli(args);
  expect(r.code, args.join(" ")).toBe(2);
  expect(r.stdout).toBe("");
  const lines = r.stderr.trim().split("\n");
  expect(lines, r.stderr).toHaveLength(1);
  expect(r.stderr).not.toMatch(/Usage:|Options:/);
  return lines[0]!;
}

// Each case starts the CLI: quick on an idle machine, slow on a loaded one, hence the generous timeout.
describe("usage errors name the option and what it expects in one line, and say where --help is", { timeout: 600_000 }, () => {
  it("a value the option's parser refuses", () => {
    expect(usageError(["sessions", "build", "x", "--out", "y", "--seed", "x"])).toBe(
      'switch-swe sessions build: --seed must be a non-negative integer, got "x" (see switch-swe sessions build --help)',
    );
    expect(usageError(["run", "--out", "o", "--seed", "x"])).toBe(
      'switch-swe run: --seed must be a non-negative integer, got "x" (see switch-swe run --help)',
    );
    expect(usageError(["run", "--out", "o", "--concurrency", "0"])).toBe(
      'switch-swe run: --concurrency must be a positive integer, got "0" (see switch-swe run --help)',
    );
    expect(usageError(["run", "--out", "o", "--request-timeout", "soon"])).toBe(
      'switch-swe run: --request-timeout must be a positive number, got "soon" (see switch-swe run --help)',
    );
    expect(usageError(["verify", "r", "--max-artifact-mb", "-1"])).toBe(
      'switch-swe verify: --max-artifact-mb must be a positive integer, got "-1" (see switch-swe verify --help)',
    );
  });

  it("a missing or unknown option, argument or command", () => {
    expect(usageError(["run", "--dataset", "d"])).toBe(
      "switch-swe run: required option '--out <run_dir>' not specified (see switch-swe run --help)",
    );
    expect(usageError(["run", "--out", "o", "--sed", "3"])).toBe(
      "switch-swe run: unknown option '--sed' (Did you mean --seed?) (see switch-swe run --help)",
    );
    expect(usageError(["verify"])).toBe("switch-swe verify: missing required argument 'run-dir' (see switch-swe verify --help)");
    expect(usageError(["no-such-command"])).toBe("switch-swe: unknown command 'no-such-command' (see switch-swe --help)");
  });

  it("--help still prints the whole usage, on stdout, with exit 0", () => {
    const r = cli(["run", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("--out <run_dir>");
    expect(r.stdout).toContain("Options:");
  });
});
