// Builds and validates paired sessions for a generated dataset of 10,000 tasks over 20 repositories.
// Run: npm run bench:sessions   (prints wall time, CPU time and peak resident memory)
// BENCH_SMALL=1: 40 tasks over 2 repositories (seconds; the figures then say nothing).
import { buildSessions } from "../dist/sessions/build.js";
import { checkSessions } from "../dist/sessions/check.js";
import { seededRandom, randomInt } from "../dist/core/random.js";

const SMALL = process.env.BENCH_SMALL === "1";
const REPOS = SMALL ? 2 : 20;
const TASKS_PER_REPO = SMALL ? 20 : 500;
const DIRS = 50;
const FILES_PER_DIR = 20;

function patchFor(path, k) {
  return `diff --git a/${path} b/${path}\n--- a/${path}\n+++ b/${path}\n@@ -1,1 +1,2 @@\n line\n+stage ${k}\n`;
}

function generate() {
  const rng = seededRandom("bench-sessions");
  const repos = {};
  const tasks = [];
  for (let r = 0; r < REPOS; r++) {
    const name = `repo${String(r).padStart(2, "0")}`;
    repos[name] = { path: `repos/${name}` };
    // Every file belongs to at most one task, so source sets stay disjoint except where we force overlap.
    const files = [];
    for (let d = 0; d < DIRS; d++) for (let f = 0; f < FILES_PER_DIR; f++) files.push(`src/d${d}/f${f}.py`);
    for (let i = files.length - 1; i > 0; i--) {
      const j = Math.floor(rng() * (i + 1));
      [files[i], files[j]] = [files[j], files[i]];
    }
    let next = 0;
    for (let t = 0; t < TASKS_PER_REPO; t++) {
      const own = [files[next++ % files.length]];
      if (rng() < 0.5) own.push(files[next++ % files.length]);
      const stages = randomInt(rng, 2, 4);
      tasks.push({
        id: `${name}-t${String(t).padStart(4, "0")}`,
        repo: name,
        base: "HEAD",
        dir: "",
        requests: Array.from({ length: stages }, (_, k) => ({ text: `Task ${t} of ${name}, stage ${k + 1}: change ${own.join(", ")}.` })),
        verifier: { fail_to_pass: [`tests/test_${t}.py::test_a`], pass_to_pass: [], timeout_s: 1800 },
        stagePatches: Array.from({ length: stages }, (_, k) => own.map((p) => patchFor(p, k + 1)).join("")),
        testsPatch: "",
      });
    }
  }
  return { root: "/bench", manifest: { name: "bench", version: "1", repos }, tasks };
}

const dataset = generate();
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const file = buildSessions(dataset, { seed: 0 });
const t1 = performance.now();
const violations = checkSessions(file, dataset);
const t2 = performance.now();
const text = JSON.stringify(file);
const cpu = process.cpuUsage(cpu0);
const rssMb = process.resourceUsage().maxRSS / 1024;
if (violations.length > 0) {
  console.error(`${violations.length} violations, first: ${JSON.stringify(violations[0])}`);
  process.exit(1);
}
const near = file.pairs.filter((p) => p.locality === "near").length;
console.log(
  `tasks: ${dataset.tasks.length} in ${REPOS} repositories -> ${file.pairs.length} pairs (${near} near, ${file.pairs.length - near} far), ${file.excluded.length} excluded`,
);
console.log(
  `build: ${((t1 - t0) / 1000).toFixed(2)} s, validate: ${((t2 - t1) / 1000).toFixed(2)} s, total: ${((t2 - t0) / 1000).toFixed(2)} s (CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s)`,
);
console.log(`sessions file: ${(text.length / 1e6).toFixed(1)} MB; peak RSS: ${rssMb.toFixed(0)} MB`);
