// Mining on the fleet (npm run bench:mine-queue), on the built code and a private redis-server: the small
// history of test/mine/mine-materialize.e2e.test.ts (3 candidates: a merged branch and two chains) mined
// by `tasks mine` here, then by `tasks mine --queue` with 1 and 2 local worker processes (concurrency 1
// each), each from a fresh --out; the workers' caches are warm after a first pass (the repository bundle
// and the test environment are each fetched or built once per worker). Prints each wall time, whether the
// manifest is byte for byte the local one, and the load average (the machine may be shared).
//   node bench/mine-queue.mjs [--runs 2] [--workers 1,2]
// BENCH_SMALL=1: --runs 1, 1 worker (a check that the benchmark still runs; its figures say nothing).
import { execFileSync, spawn } from "node:child_process";
import { startRedis } from "./redis.mjs";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";

const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
};
const SMALL = process.env.BENCH_SMALL === "1";
process.env.SWITCH_SWE_QUEUE_SECRET ??= randomBytes(32).toString("hex");
const runs = arg("runs", SMALL ? "1" : "2");
const fleets = arg("workers", SMALL ? "1" : "1,2")
  .split(",")
  .map(Number);
const cli = new URL("../dist/cli/main.js", import.meta.url).pathname;
const root = mkdtempSync(join(tmpdir(), "switch-swe-bench-mine-"));
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(" ");

// The history (the same files and messages as the test's).
const repo = join(root, "shapes");
const git = (...a) =>
  execFileSync("git", a, {
    cwd: repo,
    env: { ...process.env, GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@x", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@x" },
  });
const commit = (message, files) => {
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(dirname(join(repo, f)), { recursive: true });
    writeFileSync(join(repo, f), text);
  }
  git("add", "-A");
  git("commit", "-qm", message);
};
const area = (...fns) => ["def square(a):\n    return a * a\n", ...fns].join("\n\n");
mkdirSync(repo);
git("init", "-q", "-b", "main");
commit("Initial layout", {
  "shapes/__init__.py": "",
  "shapes/geometry/area.py": area(),
  "shapes/text/label.py": "def label(name):\n    return name\n",
  "shapes/util/clamp.py": "def clamp(x, lo, hi):\n    return max(lo, min(x, hi))\n",
  "tests/test_base.py": "from shapes.geometry.area import square\n\n\ndef test_square():\n    assert square(3) == 9\n",
});
git("checkout", "-q", "-b", "circle-and-rect");
commit("Add the area of a rectangle\n\nRectangles are the next most common shape.", {
  "shapes/geometry/area.py": area("def rect(a, b):\n    return a * b\n"),
  "tests/test_rect.py": "from shapes.geometry.area import rect\n\n\ndef test_rect():\n    assert rect(2, 3) == 6\n",
});
commit("Add the area of a triangle", {
  "shapes/geometry/area.py": area("def rect(a, b):\n    return a * b\n", "def triangle(b, h):\n    return b * h / 2\n"),
  "tests/test_triangle.py": "from shapes.geometry.area import triangle\n\n\ndef test_triangle():\n    assert triangle(4, 3) == 6\n",
});
git("checkout", "-q", "main");
git("merge", "-q", "--no-ff", "-m", "Merge branch 'circle-and-rect'", "circle-and-rect");
commit("Upper-case labels", {
  "shapes/text/label.py": "def label(name):\n    return name.upper()\n",
  "tests/test_label.py": "from shapes.text.label import label\n\n\ndef test_upper():\n    assert label('a') == 'A'\n",
});
commit("Labels can carry a unit", {
  "shapes/text/label.py": "def label(name, unit=''):\n    return (name + unit).upper()\n",
  "tests/test_label.py":
    "from shapes.text.label import label\n\n\ndef test_upper():\n    assert label('a') == 'A'\n\n\ndef test_unit():\n    assert label('a', 'm') == 'AM'\n",
});
commit("Document the package", { "README.md": "shapes\n" });
commit("Clamp: name the bounds", {
  "shapes/util/clamp.py": "def clamp(x, lo, hi):\n    low, high = lo, hi\n    return max(low, min(x, high))\n",
  "tests/test_clamp.py": "from shapes.util.clamp import clamp\n\n\ndef test_clamp():\n    assert clamp(5, 0, 3) == 3\n",
});
commit("Clamp: accept the bounds in either order", {
  "shapes/util/clamp.py": "def clamp(x, lo, hi):\n    low, high = min(lo, hi), max(lo, hi)\n    return max(low, min(x, high))\n",
  "tests/test_clamp.py":
    "from shapes.util.clamp import clamp\n\n\ndef test_clamp():\n    assert clamp(5, 0, 3) == 3\n\n\ndef test_low():\n    assert clamp(-1, 0, 3) == 0\n",
});

const { url, process: redis } = await startRedis();

/** `tasks mine` to its end; its wall time in seconds. */
function mine(out, extra, cache) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [cli, "tasks", "mine", repo, "--out", out, "--runs", runs, ...extra], {
      env: { ...process.env, SWITCH_SWE_CACHE: cache },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let said = "";
    child.stdout.on("data", (d) => (said += d));
    child.stderr.on("data", (d) => (said += d));
    child.once("close", (code) =>
      code === 0 ? resolve((performance.now() - t0) / 1000) : reject(new Error(`tasks mine exited ${code}:\n${said}`)),
    );
  });
}

try {
  const localCache = join(root, "local-cache");
  await mine(join(root, "warm-local"), [], localCache);
  const loadLocal = load();
  const localWall = await mine(join(root, "local"), [], localCache);
  const manifest = readFileSync(join(root, "local", "manifest.json"), "utf8");
  console.log(`local tasks mine (--runs ${runs}, 3 candidates): wall ${localWall.toFixed(1)} s; load ${loadLocal} -> ${load()}`);
  for (const n of fleets) {
    const workers = Array.from({ length: n }, (_, i) =>
      spawn(process.execPath, [cli, "worker", "--queue", url, "--concurrency", "1"], {
        env: { ...process.env, SWITCH_SWE_CACHE: join(root, `fleet${n}-w${i}`) },
        stdio: "ignore",
      }),
    );
    try {
      const coord = join(root, `coord${n}`);
      await mine(join(root, `warm${n}`), ["--queue", url], coord);
      const before = load();
      const wall = await mine(join(root, `queued${n}`), ["--queue", url], coord);
      const same = readFileSync(join(root, `queued${n}`, "manifest.json"), "utf8") === manifest;
      console.log(
        `tasks mine --queue, ${n} worker(s): wall ${wall.toFixed(1)} s (${(wall / localWall).toFixed(2)}x the local run); manifest ${same ? "identical" : "DIFFERENT"}; load ${before} -> ${load()}`,
      );
      if (!same) process.exitCode = 1;
    } finally {
      for (const w of workers) w.kill("SIGTERM");
      await Promise.all(workers.map((w) => new Promise((r) => w.once("exit", r))));
    }
  }
} finally {
  redis.kill("SIGKILL");
  rmSync(root, { recursive: true, force: true });
}
