import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

/** Root of the installed package (works from src/ under vitest and from dist/ when built). */
export const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export const sampleDatasetDir = join(packageRoot, "datasets", "sample");

/** The version in package.json, recorded in run configurations and submissions. */
export const packageVersion: string = (JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")) as { version: string }).version;
