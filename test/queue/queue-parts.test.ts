import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { sha256 } from "../../src/core/digest.js";
import { describe, expect, it } from "vitest";
import { sampleDatasetDir, packageVersion } from "../../src/core/package-paths.js";
import { packDataset, unpackDataset } from "../../src/dataset/pack.js";
import { QueueSecret, queueSecretEnv, takeQueueSecret } from "../../src/queue/queue-secret.js";
import { parseQueueUrl } from "../../src/queue/queue-url.js";
import { writeSessionFiles } from "../../src/queue/session-files.js";
import { refusal } from "../../src/queue/job-handler.js";
import { scrubEnvironment } from "../../src/queue/worker-env.js";
import { cli } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp.js";

describe("queue URLs", () => {
  it("parse host, port, database, password and TLS, and print the password masked", () => {
    const t = parseQueueUrl("rediss://:s3cr%40t@redis.lab:6380/3");
    expect(t.redis).toMatchObject({ host: "redis.lab", port: 6380, db: 3, password: "s3cr@t", tls: { servername: "redis.lab" } });
    expect(t.display).toBe("rediss://:***@redis.lab:6380/3");
    expect(parseQueueUrl("redis://127.0.0.1").display).toBe("redis://127.0.0.1/0");
    expect(parseQueueUrl("redis://u:p@h:1/0").display).toBe("redis://u:***@h:1/0");
  });

  it("reject other schemes and bad databases without echoing the URL", () => {
    expect(() => parseQueueUrl("http://h:1/0")).toThrow('--queue: unsupported scheme "http"');
    expect(() => parseQueueUrl("redis://:pw@h:1/x")).toThrow('--queue: database "x" is not a non-negative integer');
    expect(() => parseQueueUrl("not a url :pw")).toThrow("--queue: not a URL");
  });
});

describe("dataset packs", () => {
  it("are deterministic, leave caches out and unpack to the same files", () => {
    const a = packDataset(sampleDatasetDir);
    expect(packDataset(sampleDatasetDir).digest).toBe(a.digest);
    const dest = join(tempDir("switch-swe-pack-"), "d");
    expect(unpackDataset(a.gz, a.digest, dest)).toBe(a.files);
    expect(readFileSync(join(dest, "dataset.json"), "utf8")).toBe(readFileSync(join(sampleDatasetDir, "dataset.json"), "utf8"));
    expect(packDataset(dest).digest).toBe(a.digest);
    mkdirSync(join(dest, "repos", "__pycache__"), { recursive: true });
    writeFileSync(join(dest, "repos", "__pycache__", "x.pyc"), "cache");
    expect(packDataset(dest).digest).toBe(a.digest);
  });

  it("refuse a wrong digest and paths that leave the directory", () => {
    const a = packDataset(sampleDatasetDir);
    const root = tempDir("switch-swe-pack-");
    expect(() => unpackDataset(a.gz, "0".repeat(64), join(root, "x"))).toThrow(/digest .* differs/);
    const evil = Buffer.concat([Buffer.from(`${JSON.stringify({ p: "../escape", k: "file", m: 420, n: 2 })}\n`), Buffer.from("hi")]);
    const digest = sha256(evil);
    expect(() => unpackDataset(gzipSync(evil), digest, join(root, "y"))).toThrow("unsafe path");
  });
});

describe("results written back", () => {
  it("refuse files outside the session directory", () => {
    const dir = tempDir("switch-swe-session-");
    expect(() => writeSessionFiles(dir, [{ path: "../x", b64: "" }])).toThrow("outside the session directory");
    expect(() => writeSessionFiles(dir, [{ path: "/etc/x", b64: "" }])).toThrow("outside the session directory");
    writeSessionFiles(dir, [{ path: "attempts/1/agent/stderr.log", b64: Buffer.from("log").toString("base64") }]);
    expect(readFileSync(join(dir, "attempts", "1", "agent", "stderr.log"), "utf8")).toBe("log");
  });
});

describe("workers", () => {
  it("refuse jobs of another switch-swe version, naming both", () => {
    expect(refusal({ switch_swe_version: packageVersion })).toBeNull();
    expect(refusal({ switch_swe_version: "9.9.9" })).toBe(`the job needs switch-swe 9.9.9, this worker runs ${packageVersion}`);
  });

  it("pass on only the environment they are told to", () => {
    const saved = { ...process.env };
    try {
      process.env.SOME_API_KEY = "k";
      process.env.KEEP_ME = "1";
      const removed = scrubEnvironment(["KEEP_ME"]);
      expect(removed).toContain("SOME_API_KEY");
      expect(process.env.SOME_API_KEY).toBeUndefined();
      expect(process.env.KEEP_ME).toBe("1");
      expect(process.env.PATH).toBe(saved.PATH);
    } finally {
      for (const k of Object.keys(saved)) process.env[k] = saved[k];
    }
  });
});

describe("the queue secret", () => {
  const a = new QueueSecret("a".repeat(40));
  const b = new QueueSecret("b".repeat(40));

  it("signs a result for one key: another key, another secret or one changed byte do not verify", () => {
    const signed = a.sign(Buffer.from("payload"), "switch-swe:run:r:result:s:1");
    expect(a.verify(signed, "switch-swe:run:r:result:s:1")?.toString()).toBe("payload");
    expect(a.verify(signed, "switch-swe:run:r:result:s:2")).toBeNull();
    expect(b.verify(signed, "switch-swe:run:r:result:s:1")).toBeNull();
    const changed = Buffer.from(signed);
    changed.writeUInt8(changed.readUInt8(changed.length - 1) ^ 1, changed.length - 1);
    expect(a.verify(changed, "switch-swe:run:r:result:s:1")).toBeNull();
    expect(a.verify(Buffer.from("short"), "k")).toBeNull();
  });

  it("encrypts a blob so that its text does not show, and only the same secret and digest decrypt it", () => {
    const plain = Buffer.from("def test_hidden_requirement(): assert True\n".repeat(4));
    const sealed = a.encrypt(plain, "d1");
    expect(sealed.includes("test_hidden_requirement")).toBe(false);
    expect(a.decrypt(sealed, "d1")?.equals(plain)).toBe(true);
    expect(a.decrypt(sealed, "d2")).toBeNull();
    expect(b.decrypt(sealed, "d1")).toBeNull();
    expect(a.id).not.toBe(b.id);
  });

  it("is taken out of the environment it is read from; missing or short is bad input saying how to make one", () => {
    const env: NodeJS.ProcessEnv = { [queueSecretEnv]: "x".repeat(32) };
    expect(takeQueueSecret(env)).toBeInstanceOf(QueueSecret);
    expect(env[queueSecretEnv]).toBeUndefined();
    expect(() => takeQueueSecret({})).toThrow(/SWITCH_SWE_QUEUE_SECRET: not set: .*openssl rand -hex 32/);
    expect(() => takeQueueSecret({ [queueSecretEnv]: "short" })).toThrow("SWITCH_SWE_QUEUE_SECRET: 5 characters; at least 32 are needed");
  });

  it("a worker without it exits 2 with one line, before it connects anywhere", () => {
    const r = cli(["worker", "--queue", "redis://127.0.0.1:1/0"], { env: { [queueSecretEnv]: "" } });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("SWITCH_SWE_QUEUE_SECRET: not set");
  });
});
