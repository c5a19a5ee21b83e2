import { describe, expect, it } from "vitest";
import { confinementRefusal } from "../../src/queue/confinement-floor.js";
import { sessionQueue, taskQueue, verifyQueue } from "../../src/queue/keys.js";
import { QueueSecret } from "../../src/queue/queue-secret.js";
import { authenticateJob, canonicalJson, jobMacField, jobMessage, signJob } from "../../src/queue/signed-job.js";

// Issue 42, finding 3: a worker runs only jobs a coordinator holding the queue secret issued, for
// their queue, name and id, and no job lowers the worker's confinement.
const secret = new QueueSecret("unit-test-queue-secret-0123456789abcdef");
const job = {
  kind: "session",
  run_id: "0123456789abcdef",
  agent: { name: "command", options: { command: "true", env: "" }, harness_version: null },
  sandbox: { mode: "bwrap", network: false, allowed_endpoints: [] as string[] },
  limits: null,
  dataset: { name: "d", version: "1", digest: "a".repeat(64), repos: undefined },
};
const id = "0123456789abcdef.p1__base.1";

/** The job as a worker reads it back: through JSON, as BullMQ stores it. */
const stored = (data: unknown) => JSON.parse(JSON.stringify(data)) as Record<string, unknown>;

describe("canonical job serialisation", () => {
  it("sorts keys at every level and drops undefined members, as JSON does", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: true, y: null }], c: "x" }, u: undefined })).toBe(
      '{"a":{"c":"x","d":[1,{"y":null,"z":true}]},"b":1}',
    );
    expect(canonicalJson({ "10": 1, "9": 2, a: 3 })).toBe('{"10":1,"9":2,"a":3}');
    expect(canonicalJson([undefined, "é\u2028"])).toBe(`[null,${JSON.stringify("é\u2028")}]`);
  });

  it("binds the queue, name, id and data", () => {
    const m = jobMessage(sessionQueue, "session", id, { x: 1 });
    expect(m).toContain(sessionQueue);
    expect(m).toContain(id);
    expect(jobMessage(verifyQueue, "session", id, { x: 1 })).not.toBe(m);
  });
});

describe("signed jobs", () => {
  const signed = signJob(secret, sessionQueue, "session", id, job);

  it("verify after a round trip through Redis's JSON, with keys in another order, and give the data back without the MAC", () => {
    expect(signed[jobMacField]).toMatch(/^[0-9a-f]{64}$/);
    const reordered = Object.fromEntries(Object.entries(stored(signed)).reverse());
    const r = authenticateJob(secret, sessionQueue, { id, name: "session", data: reordered });
    expect(r).toEqual({ ok: true, data: stored(job) });
  });

  it("are refused when unsigned, malformed or altered anywhere in their data", () => {
    const { [jobMacField]: _mac, ...bare } = stored(signed);
    expect(authenticateJob(secret, sessionQueue, { id, name: "session", data: bare })).toMatchObject({
      ok: false,
      why: expect.stringMatching(/^unsigned: it carries no mac/),
    });
    expect(authenticateJob(secret, sessionQueue, { id, name: "session", data: { ...bare, mac: "zz" } })).toMatchObject({
      ok: false,
      why: "its mac is not 64 hex digits",
    });
    expect(authenticateJob(secret, sessionQueue, { id, name: "session", data: null })).toMatchObject({
      ok: false,
      why: "its data is not an object",
    });
    const altered: Array<Record<string, unknown>> = [
      { ...stored(signed), sandbox: null },
      { ...stored(signed), agent: { ...job.agent, options: { command: "touch /tmp/pwned", env: "" } } },
      { ...stored(signed), sandbox: { ...job.sandbox, network: true } },
      { ...stored(signed), extra: 1 },
      { ...stored(signed), limits: undefined },
    ];
    for (const data of altered) {
      expect(authenticateJob(secret, sessionQueue, { id, name: "session", data: stored(data) })).toMatchObject({
        ok: false,
        why: expect.stringMatching(/does not match its data, name, id and queue/),
      });
    }
  });

  it("cannot be replayed under another id, name or queue, nor verified with another secret", () => {
    const data = stored(signed);
    const bad = (r: ReturnType<typeof authenticateJob>) => expect(r.ok).toBe(false);
    bad(authenticateJob(secret, sessionQueue, { id: `${id}x`, name: "session", data }));
    bad(authenticateJob(secret, sessionQueue, { id: "0123456789abcdef.p1__base.2", name: "session", data }));
    bad(authenticateJob(secret, sessionQueue, { name: "session", data }));
    bad(authenticateJob(secret, sessionQueue, { id, name: "verify", data }));
    bad(authenticateJob(secret, taskQueue, { id, name: "session", data }));
    bad(authenticateJob(new QueueSecret("another-queue-secret-0123456789abcdef!"), sessionQueue, { id, name: "session", data }));
  });

  it("use a key of their own: a result MAC over the same bytes is no job MAC", () => {
    const message = Buffer.from(jobMessage(sessionQueue, "session", id, stored(job)));
    const resultMac = secret.sign(message, "").subarray(0, 32).toString("hex");
    expect(resultMac).not.toBe(signed[jobMacField]);
    expect(authenticateJob(secret, sessionQueue, { id, name: "session", data: { ...stored(job), mac: resultMac } }).ok).toBe(false);
  });

  it("refuse data that has a mac field of its own", () => {
    expect(() => signJob(secret, sessionQueue, "session", id, { mac: "x" })).toThrow('must not have a field "mac"');
  });
});

describe("the worker's confinement floor", () => {
  const closed = { unconfined: false, network: false };
  const open = { unconfined: true, network: true };

  it("refuses sessions with no sandbox or the machine's network unless allowed", () => {
    expect(confinementRefusal(sessionQueue, { sandbox: null }, closed)).toMatch(/no sandbox \(sandbox: none\).*--allow-unconfined/);
    expect(confinementRefusal(sessionQueue, { sandbox: { mode: "none", network: false } }, closed)).toMatch(
      /sandbox: none.*--allow-unconfined/,
    );
    expect(confinementRefusal(sessionQueue, { sandbox: { mode: "bwrap", network: true } }, closed)).toMatch(
      /--network on.*--allow-network/,
    );
    expect(confinementRefusal(sessionQueue, { sandbox: { mode: "bwrap", network: true } }, { unconfined: true, network: false })).toMatch(
      /--allow-network/,
    );
    expect(
      confinementRefusal(sessionQueue, { sandbox: { mode: "bwrap", network: false, allowed_endpoints: ["http://127.0.0.1:1"] } }, closed),
    ).toBeNull();
    expect(confinementRefusal(sessionQueue, { sandbox: { network: false } }, closed)).toBeNull();
    for (const sandbox of [null, { mode: "none", network: false }, { mode: "bwrap", network: true }])
      expect(confinementRefusal(sessionQueue, { sandbox }, open)).toBeNull();
  });

  it("refuses verification with unconfined test runs unless allowed; mining and qualification carry no confinement", () => {
    expect(confinementRefusal(verifyQueue, { sandbox: "none" }, closed)).toMatch(
      /held-out tests with no sandbox \(sandbox: none\).*--allow-unconfined/,
    );
    expect(confinementRefusal(verifyQueue, { sandbox: "bwrap" }, closed)).toBeNull();
    expect(confinementRefusal(verifyQueue, { sandbox: "none" }, open)).toBeNull();
    expect(confinementRefusal(taskQueue, { kind: "mine", sandbox: null }, closed)).toBeNull();
  });
});
