import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { bwrapCommand, sandboxHardening } from "../../src/confine/bubblewrap.js";
import {
  allowedPersonalities,
  auditArch,
  clone3Nr,
  personalityNr,
  cloneNewFlags,
  cloneNr,
  deniedSyscalls,
  ENOSYS,
  EPERM,
  RET_ALLOW,
  RET_ERRNO,
  RET_KILL_PROCESS,
  seccompProgram,
  type Arch,
} from "../../src/confine/seccomp.js";
import { skipWithout } from "../helpers/tools.js";

interface Insn {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

function decode(buf: Buffer): Insn[] {
  expect(buf.length % 8).toBe(0);
  const out: Insn[] = [];
  for (let i = 0; i < buf.length; i += 8)
    out.push({ code: buf.readUInt16LE(i), jt: buf.readUInt8(i + 2), jf: buf.readUInt8(i + 3), k: buf.readUInt32LE(i + 4) });
  return out;
}

/** A classic-BPF interpreter for the few instructions a seccomp filter of ours may hold (anything else fails the test). */
function run(prog: Insn[], data: { arch: number; nr: number; arg0?: number | bigint }): number {
  const mem = Buffer.alloc(64);
  mem.writeInt32LE(data.nr, 0);
  mem.writeUInt32LE(data.arch, 4);
  mem.writeBigUInt64LE(BigInt.asUintN(64, BigInt(data.arg0 ?? 0)), 16);
  let acc = 0;
  for (let pc = 0; pc < prog.length; pc++) {
    const { code, jt, jf, k } = prog[pc]!;
    if (code === 0x20) acc = mem.readUInt32LE(k);
    else if (code === 0x15) pc += acc === k ? jt : jf;
    else if (code === 0x35) pc += acc >= k ? jt : jf;
    else if (code === 0x45) pc += (acc & k) !== 0 ? jt : jf;
    else if (code === 0x06) return k >>> 0;
    else throw new Error(`unexpected instruction ${code.toString(16)} at ${pc}`);
  }
  throw new Error("ran off the end of the program");
}

describe("the seccomp program", () => {
  const prog = decode(seccompProgram());
  const archs: Arch[] = ["x86_64", "aarch64"];

  it("refuses every listed call with EPERM on both architectures, and allows ordinary ones", () => {
    for (const arch of archs) {
      for (const [name, nrs] of Object.entries(deniedSyscalls)) {
        const nr = nrs[arch];
        if (nr === undefined) continue;
        expect(run(prog, { arch: auditArch[arch], nr }), `${arch} ${name}`).toBe(RET_ERRNO | EPERM);
      }
      for (const nr of [0, 1, 2, 3, 59, 63, 221, 257]) expect(run(prog, { arch: auditArch[arch], nr }), `${arch} ${nr}`).toBe(RET_ALLOW);
    }
  });

  it("refuses clone with any CLONE_NEW* flag, allows a thread's clone, answers clone3 ENOSYS", () => {
    for (const arch of archs) {
      const a = auditArch[arch];
      expect(run(prog, { arch: a, nr: cloneNr[arch], arg0: 0x003d0f00 })).toBe(RET_ALLOW); // pthread_create's flags
      expect(run(prog, { arch: a, nr: cloneNr[arch], arg0: 0x01200011 })).toBe(RET_ALLOW); // fork()'s
      for (let bit = 0; bit < 32; bit++) {
        const flag = 2 ** bit;
        if ((cloneNewFlags & flag) === 0) continue;
        expect(run(prog, { arch: a, nr: cloneNr[arch], arg0: flag | 0x11 }), `${arch} flag ${flag.toString(16)}`).toBe(RET_ERRNO | EPERM);
      }
      expect(run(prog, { arch: a, nr: clone3Nr[arch] })).toBe(RET_ERRNO | ENOSYS);
    }
  });

  it("refuses io_uring, ptrace, process_vm_readv/writev, kcmp and pidfd_getfd (Docker's default profile refuses them)", () => {
    const expected = {
      io_uring_setup: 425,
      io_uring_enter: 426,
      io_uring_register: 427,
      ptrace: 101,
      process_vm_readv: 310,
      process_vm_writev: 311,
      kcmp: 312,
      pidfd_getfd: 438,
    };
    for (const [name, nr] of Object.entries(expected)) {
      expect(deniedSyscalls[name]?.x86_64, name).toBe(nr);
      expect(run(prog, { arch: auditArch.x86_64, nr }), name).toBe(RET_ERRNO | EPERM);
      expect(run(prog, { arch: auditArch.aarch64, nr: deniedSyscalls[name]!.aarch64! }), `aarch64 ${name}`).toBe(RET_ERRNO | EPERM);
    }
  });

  it("allows personality only for the query and the usual domains, all 64 bits of its argument compared", () => {
    for (const arch of archs) {
      const call = (arg0: number | bigint) => run(prog, { arch: auditArch[arch], nr: personalityNr[arch], arg0 });
      for (const v of allowedPersonalities) expect(call(v), `${arch} ${v.toString(16)}`).toBe(RET_ALLOW);
      // ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC, PER_BSD, and an allowed low word under a high one.
      for (const v of [0x0040000, 0x0400000, 0x6, 0x8 | 0x0040000, 1n << 32n, (1n << 32n) | 8n, -1n])
        expect(call(v), `${arch} ${v.toString(16)}`).toBe(RET_ERRNO | EPERM);
    }
  });

  it("kills calls of another ABI: an unknown architecture, and x32 numbers on x86_64", () => {
    expect(run(prog, { arch: 0x40000003, nr: 1 })).toBe(RET_KILL_PROCESS); // i386
    expect(run(prog, { arch: 0x40000028, nr: 1 })).toBe(RET_KILL_PROCESS); // arm
    expect(run(prog, { arch: auditArch.x86_64, nr: 0x40000000 + 304 })).toBe(RET_KILL_PROCESS);
  });

  // The numbers must be this kernel's: checked against the system headers where they are installed.
  it.each([
    ["x86_64", "/usr/include/x86_64-linux-gnu/asm/unistd_64.h"],
    ["aarch64", "/usr/include/asm-generic/unistd.h"],
  ] as const)("matches %s's numbers in %s", (arch, header) => {
    if (!existsSync(header)) return;
    const text = readFileSync(header, "utf8");
    for (const [name, nrs] of Object.entries({ ...deniedSyscalls, clone: { [arch]: cloneNr[arch] }, clone3: { [arch]: clone3Nr[arch] } })) {
      const m = new RegExp(`#define __NR(?:3264)?_${name}\\s+(\\d+)`).exec(text);
      if (!m) continue; // newer than the headers (open_tree_attr), or not on this architecture (iopl)
      expect((nrs as Partial<Record<Arch, number>>)[arch], name).toBe(Number(m[1]));
    }
  });
});

const skipWhy =
  (skipWithout(import.meta.url, "bwrap") ? "bwrap is missing" : null) ??
  (sandboxHardening().syscall_filter.applied ? null : sandboxHardening().syscall_filter.detail);

describe.skipIf(skipWhy !== null)("inside a sandbox, for real", () => {
  it("each refused call fails with EPERM, clone3 with ENOSYS, threads and subprocesses still work, and no capability is left", () => {
    const nrs = Object.fromEntries(
      Object.entries(deniedSyscalls)
        .map(([n, a]) => [n, a[process.arch === "arm64" ? "aarch64" : "x86_64"]])
        .filter(([, v]) => v !== undefined),
    );
    const py = [
      "import ctypes, json, os, subprocess, sys, threading",
      "libc = ctypes.CDLL(None, use_errno=True)",
      "libc.syscall.restype = ctypes.c_long",
      "out = {}",
      "for name, nr in json.loads(sys.argv[1]).items():",
      "    r = libc.syscall(ctypes.c_long(nr), ctypes.c_long(0), ctypes.c_long(0), ctypes.c_long(0), ctypes.c_long(0), ctypes.c_long(0))",
      "    out[name] = ctypes.get_errno() if r == -1 else 0",
      "r = libc.syscall(ctypes.c_long(int(sys.argv[2])), ctypes.c_long(0x10000000 | 17), 0, 0, 0, 0)",
      "out['clone(CLONE_NEWUSER)'] = ctypes.get_errno() if r == -1 else 0",
      "r = libc.syscall(ctypes.c_long(int(sys.argv[3])), 0, 0)",
      "out['clone3'] = ctypes.get_errno() if r == -1 else 0",
      "out['personality(query)'] = libc.syscall(ctypes.c_long(int(sys.argv[4])), ctypes.c_ulong(0xffffffff))",
      "r = libc.syscall(ctypes.c_long(int(sys.argv[4])), ctypes.c_ulong(0x0040000))",
      "out['personality(ADDR_NO_RANDOMIZE)'] = ctypes.get_errno() if r == -1 else 0",
      "t = threading.Thread(target=lambda: out.__setitem__('thread', 'ran')); t.start(); t.join()",
      "out['subprocess'] = subprocess.run(['sh', '-c', 'echo ok'], capture_output=True, text=True).stdout.strip()",
      "out['status'] = [l for l in open('/proc/self/status').read().splitlines() if l.split(':')[0] in ('CapEff', 'Seccomp', 'Uid')]",
      "print(json.dumps(out))",
    ].join("\n");
    const arch: Arch = process.arch === "arm64" ? "aarch64" : "x86_64";
    const c = bwrapCommand({ binds: [], network: false, chdir: "/" }, [
      "python3",
      "-c",
      py,
      JSON.stringify(nrs),
      String(cloneNr[arch]),
      String(clone3Nr[arch]),
      String(personalityNr[arch]),
    ]);
    const out = JSON.parse(execFileSync(c.command, c.args, { encoding: "utf8", timeout: 60_000 })) as Record<string, unknown>;
    for (const name of Object.keys(nrs)) expect(out[name], name).toBe(EPERM);
    expect(out["clone(CLONE_NEWUSER)"]).toBe(EPERM);
    expect(out.clone3).toBe(ENOSYS);
    expect(out["personality(query)"]).toBe(0);
    expect(out["personality(ADDR_NO_RANDOMIZE)"]).toBe(EPERM);
    expect(out.thread).toBe("ran");
    expect(out.subprocess).toBe("ok");
    expect(out.status).toEqual(expect.arrayContaining(["CapEff:\t0000000000000000", "Seccomp:\t2"]));
  }, 60_000);
});
