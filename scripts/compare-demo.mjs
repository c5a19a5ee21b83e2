#!/usr/bin/env node
// Shows that a change kept behaviour: compares two `switch-swe demo` output directories (and, when given,
// their printed output) after removing what legitimately differs between runs (the directory's own path,
// the dataset's path, wall times, the order in which concurrent sessions finished). Exit 0 when they match, 1 otherwise.
//
//   node dist/cli/main.js demo --out /tmp/a > /tmp/a.txt      (at the old commit)
//   node dist/cli/main.js demo --out /tmp/b > /tmp/b.txt      (at the new one)
//   node scripts/compare-demo.mjs /tmp/a /tmp/b [/tmp/a.txt /tmp/b.txt]
import { readFileSync, readdirSync, existsSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";

const [dirA, dirB, outA, outB] = process.argv.slice(2);
if (!dirA || !dirB) {
  process.stderr.write("usage: compare-demo.mjs DEMO_DIR_A DEMO_DIR_B [PRINTED_A PRINTED_B]\n");
  process.exit(2);
}

// The dataset's path as run.json records it: two checkouts of the project have the sample at different paths.
const datasetPaths = (dir) => [
  ...new Set(
    readdirSync(join(dir, "runs")).map((run) => JSON.parse(readFileSync(join(dir, "runs", run, "run.json"), "utf8")).dataset?.path),
  ),
];
const normalize = (text, dir) => {
  let out = text.split(dir).join("<demo>");
  for (const path of datasetPaths(dir)) if (typeof path === "string" && path !== "") out = out.split(path).join("<dataset>");
  return out.replace(/\d\d:\d\d:\d\d/g, "<hh:mm:ss>");
};
const sha = (file) => createHash("sha256").update(readFileSync(file)).digest("hex");
let differences = 0;
const same = (what, a, b) => {
  if (a === b) return void process.stdout.write(`same: ${what}\n`);
  differences++;
  process.stdout.write(`DIFFERENT: ${what}\n`);
};

same("sessions.json", sha(join(dirA, "sessions.json")), sha(join(dirB, "sessions.json")));
same(
  "report.json",
  normalize(readFileSync(join(dirA, "report.json"), "utf8"), dirA),
  normalize(readFileSync(join(dirB, "report.json"), "utf8"), dirB),
);

// Every artifact and verdict outcome of every session of both runs.
for (const run of readdirSync(join(dirA, "runs"))) {
  const sessions = readdirSync(join(dirA, "runs", run, "sessions")).sort();
  const artifacts = (dir) =>
    sessions
      .map((s) => {
        const f = join(dir, "runs", run, "sessions", s, "artifact.patch");
        return `${s} ${existsSync(f) ? sha(f) : "none"}`;
      })
      .join("\n");
  same(`${run}: artifacts of ${sessions.length} sessions`, artifacts(dirA), artifacts(dirB));
  const verdicts = (dir) =>
    sessions
      .map((s) => {
        const v = JSON.parse(readFileSync(join(dir, "runs", run, "sessions", s, "verdict.json"), "utf8"));
        return `${s} applied=${v.applied} resolved=${v.resolved} ${JSON.stringify(v.tests)}`;
      })
      .join("\n");
  same(`${run}: verdicts of ${sessions.length} sessions`, verdicts(dirA), verdicts(dirB));
}

if (outA && outB) {
  // Session lines arrive in completion order, which concurrency makes vary: compare them as sets.
  const printed = (file, dir) => {
    const lines = normalize(readFileSync(file, "utf8"), dir).split("\n");
    const sessionLine = /^[a-z0-9-]+\.(base|switch): /;
    return [...lines.filter((l) => !sessionLine.test(l)), ...lines.filter((l) => sessionLine.test(l)).sort()].join("\n");
  };
  same("printed output", printed(outA, dirA), printed(outB, dirB));
}
process.exit(differences === 0 ? 0 : 1);
