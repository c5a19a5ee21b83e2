/**
 * The syscall filter of every sandbox (classic seccomp BPF, loaded by `bwrap --seccomp FD`), of the
 * kind container runtimes ship by default: the calls that leave a file system view (file handles,
 * mounts, namespaces), load kernel code, change the machine, reach other processes (ptrace,
 * process_vm_*, kcmp, pidfd_getfd), pass the filter by (io_uring) or change the execution domain
 * (personality other than the usual values) are refused with EPERM. `clone` with
 * any CLONE_NEW* flag is refused; `clone3` (whose flags sit behind a pointer the filter cannot read)
 * is answered ENOSYS so that glibc falls back to `clone`, as Docker does. A call from any other ABI
 * (x32, i386 on x86_64, arm32 on aarch64) kills the process: the numbers below would not hold there.
 *
 * The program is a list of 8-byte `struct sock_filter` (u16 code, u8 jt, u8 jf, u32 k) in the
 * machine's byte order (little-endian on both architectures), read against `struct seccomp_data`
 * (nr at offset 0, arch at 4, args[i] at 16 + 8i).
 */

export type Arch = "x86_64" | "aarch64";

export const auditArch: Record<Arch, number> = { x86_64: 0xc000003e, aarch64: 0xc00000b7 };

/** Refused with EPERM, by name; numbers per architecture (x86: asm/unistd_64.h; aarch64: asm-generic/unistd.h). */
export const deniedSyscalls: Record<string, Partial<Record<Arch, number>>> = {
  open_by_handle_at: { x86_64: 304, aarch64: 265 },
  name_to_handle_at: { x86_64: 303, aarch64: 264 },
  mount: { x86_64: 165, aarch64: 40 },
  umount2: { x86_64: 166, aarch64: 39 },
  pivot_root: { x86_64: 155, aarch64: 41 },
  chroot: { x86_64: 161, aarch64: 51 },
  move_mount: { x86_64: 429, aarch64: 429 },
  open_tree: { x86_64: 428, aarch64: 428 },
  open_tree_attr: { x86_64: 467, aarch64: 467 },
  fsopen: { x86_64: 430, aarch64: 430 },
  fsconfig: { x86_64: 431, aarch64: 431 },
  fsmount: { x86_64: 432, aarch64: 432 },
  fspick: { x86_64: 433, aarch64: 433 },
  mount_setattr: { x86_64: 442, aarch64: 442 },
  setns: { x86_64: 308, aarch64: 268 },
  unshare: { x86_64: 272, aarch64: 97 },
  kexec_load: { x86_64: 246, aarch64: 104 },
  kexec_file_load: { x86_64: 320, aarch64: 294 },
  init_module: { x86_64: 175, aarch64: 105 },
  finit_module: { x86_64: 313, aarch64: 273 },
  delete_module: { x86_64: 176, aarch64: 106 },
  bpf: { x86_64: 321, aarch64: 280 },
  perf_event_open: { x86_64: 298, aarch64: 241 },
  fanotify_init: { x86_64: 300, aarch64: 262 },
  lookup_dcookie: { x86_64: 212, aarch64: 18 },
  keyctl: { x86_64: 250, aarch64: 219 },
  add_key: { x86_64: 248, aarch64: 217 },
  request_key: { x86_64: 249, aarch64: 218 },
  userfaultfd: { x86_64: 323, aarch64: 282 },
  reboot: { x86_64: 169, aarch64: 142 },
  swapon: { x86_64: 167, aarch64: 224 },
  swapoff: { x86_64: 168, aarch64: 225 },
  acct: { x86_64: 163, aarch64: 89 },
  quotactl: { x86_64: 179, aarch64: 60 },
  quotactl_fd: { x86_64: 443, aarch64: 443 },
  syslog: { x86_64: 103, aarch64: 116 },
  vhangup: { x86_64: 153, aarch64: 58 },
  iopl: { x86_64: 172 },
  ioperm: { x86_64: 173 },
  clock_settime: { x86_64: 227, aarch64: 112 },
  clock_adjtime: { x86_64: 305, aarch64: 266 },
  settimeofday: { x86_64: 164, aarch64: 170 },
  adjtimex: { x86_64: 159, aarch64: 171 },
  // Reaching other processes or the kernel past the rest of the filter (as Docker's default profile refuses them).
  io_uring_setup: { x86_64: 425, aarch64: 425 },
  io_uring_enter: { x86_64: 426, aarch64: 426 },
  io_uring_register: { x86_64: 427, aarch64: 427 },
  ptrace: { x86_64: 101, aarch64: 117 },
  process_vm_readv: { x86_64: 310, aarch64: 270 },
  process_vm_writev: { x86_64: 311, aarch64: 271 },
  kcmp: { x86_64: 312, aarch64: 272 },
  pidfd_getfd: { x86_64: 438, aarch64: 438 },
};

export const personalityNr: Record<Arch, number> = { x86_64: 135, aarch64: 92 };

/**
 * The `personality` values allowed (arg 0, all 64 bits): the query 0xffffffff, PER_LINUX, PER_LINUX32
 * and UNAME26|PER_LINUX32, as container runtimes allow; any other (ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC...) EPERM.
 */
export const allowedPersonalities = [0x0, 0x8, 0x20008, 0xffffffff];

export const cloneNr: Record<Arch, number> = { x86_64: 56, aarch64: 220 };
export const clone3Nr: Record<Arch, number> = { x86_64: 435, aarch64: 435 };

/** CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET | NEWTIME: `clone` flags (arg 0, low word) that make a namespace. */
export const cloneNewFlags = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000 | 0x00000080;

/** x32 system calls carry this bit in their number under AUDIT_ARCH_X86_64. */
const x32Bit = 0x40000000;

export const EPERM = 1;
export const ENOSYS = 38;
export const RET_ALLOW = 0x7fff0000;
export const RET_ERRNO = 0x00050000;
export const RET_KILL_PROCESS = 0x80000000;

const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;

type Step = { code: number; k: number; jt?: string; jf?: string } | { label: string };

/** Resolves labels into forward jump offsets (classic BPF jumps only forward, at most 255 instructions). */
function assemble(steps: readonly Step[]): Buffer {
  const at = new Map<string, number>();
  let n = 0;
  for (const s of steps)
    if ("label" in s) at.set(s.label, n);
    else n++;
  const out = Buffer.alloc(n * 8);
  let i = 0;
  for (const s of steps) {
    if ("label" in s) continue;
    const off = (l: string | undefined) => {
      if (l === undefined) return 0;
      const d = at.get(l)! - i - 1;
      if (!(d >= 0 && d <= 255)) throw new Error(`seccomp: jump to ${l} out of range (${d})`);
      return d;
    };
    out.writeUInt16LE(s.code, i * 8);
    out.writeUInt8(off(s.jt), i * 8 + 2);
    out.writeUInt8(off(s.jf), i * 8 + 3);
    out.writeUInt32LE(s.k >>> 0, i * 8 + 4);
    i++;
  }
  return out;
}

function archBlock(arch: Arch): Step[] {
  const p = (l: string) => `${arch}:${l}`;
  const denied = Object.values(deniedSyscalls)
    .map((nrs) => nrs[arch])
    .filter((nr): nr is number => nr !== undefined);
  return [
    { label: p("start") },
    { code: LD_W_ABS, k: 0 },
    ...(arch === "x86_64" ? [{ code: JGE_K, k: x32Bit, jt: p("kill") }] : []),
    ...denied.map((nr) => ({ code: JEQ_K, k: nr, jt: p("eperm") })),
    { code: JEQ_K, k: cloneNr[arch], jt: p("clone") },
    { code: JEQ_K, k: clone3Nr[arch], jt: p("enosys") },
    { code: JEQ_K, k: personalityNr[arch], jt: p("personality") },
    { code: RET_K, k: RET_ALLOW },
    { label: p("personality") },
    { code: LD_W_ABS, k: 20 },
    { code: JEQ_K, k: 0, jf: p("eperm") },
    { code: LD_W_ABS, k: 16 },
    ...allowedPersonalities.map((v) => ({ code: JEQ_K, k: v, jt: p("allow") })),
    { code: RET_K, k: RET_ERRNO | EPERM },
    { label: p("allow") },
    { code: RET_K, k: RET_ALLOW },
    { label: p("clone") },
    { code: LD_W_ABS, k: 16 },
    { code: JSET_K, k: cloneNewFlags, jt: p("eperm") },
    { code: RET_K, k: RET_ALLOW },
    { label: p("enosys") },
    { code: RET_K, k: RET_ERRNO | ENOSYS },
    { label: p("eperm") },
    { code: RET_K, k: RET_ERRNO | EPERM },
    { label: p("kill") },
    { code: RET_K, k: RET_KILL_PROCESS },
  ];
}

/** The compiled filter: dispatch on the architecture, then on the call number. */
export function seccompProgram(): Buffer {
  return assemble([
    { code: LD_W_ABS, k: 4 },
    { code: JEQ_K, k: auditArch.x86_64, jt: "x86_64:start" },
    { code: JEQ_K, k: auditArch.aarch64, jt: "aarch64:start" },
    { code: RET_K, k: RET_KILL_PROCESS },
    ...archBlock("x86_64"),
    ...archBlock("aarch64"),
  ]);
}
