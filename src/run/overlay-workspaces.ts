import { chownSync, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { cachedDir } from "../core/cached-dir.js";
import { runChecked } from "../core/process.js";
import { mountOverlay, mountsUnder, overlayUnavailable, unmount } from "../core/overlay.js";
import type { WorkspaceName } from "../formats/sessions.js";
import { baseEvidence, type EvidenceBase, type EvidenceLayers } from "./workspace-evidence.js";

/**
 * How a session's workspaces are made. `overlay`: each is a copy-on-write overlay (kernel overlayfs)
 * of a read-only checkout of its base, shared by every workspace at that base and made once, so
 * setting up five costs five mounts whatever the repository's size; the agent's writes (its `.git`
 * included) land in the workspace's private upper layer, never in the shared base. `copy`: each is a
 * checkout of its own (a copy of the isolated `.git` and every file), with the reason overlays are not used.
 */
export type WorkspaceMode = { kind: "overlay" } | { kind: "copy"; reason: string };

/** The environment variable that asks for copies (`copy`) even where overlays work. */
export const workspacesVariable = "SWITCH_SWE_WORKSPACES";

/** Overlays where this process can mount them (probed once, in `scratchRoot`: the upper layers' file system); copies otherwise. */
export async function workspaceMode(scratchRoot: string, keep: boolean): Promise<WorkspaceMode> {
  if (process.env[workspacesVariable] === "copy") return { kind: "copy", reason: `${workspacesVariable}=copy` };
  // A kept workspace must stay readable after the run, without a mount that outlives it.
  if (keep) return { kind: "copy", reason: "--keep-workspaces keeps plain checkouts" };
  const why = await overlayUnavailable(scratchRoot);
  return why === null ? { kind: "overlay" } : { kind: "copy", reason: `copy-on-write workspaces unavailable: ${why}` };
}

interface BaseCheckout {
  tree: string;
  evidence: EvidenceBase;
}

/**
 * The shared read-only checkout of `commit` (made by `checkout`, the same isolated checkout a copied
 * workspace gets: a lone branch, nothing after the base) with its evidence, cached beside the mirror.
 */
async function baseCheckout(
  mirror: string,
  commit: string,
  checkout: (dest: string) => Promise<void>,
  owner: number | null,
): Promise<BaseCheckout> {
  // One per owner: a workspace's files are the lower layer's until written, so the user the agent
  // runs as must own them to write them (a sandbox's unprivileged uid; an unconfined agent, the caller).
  const dir = join(mirror, "switch-swe-base", owner === null ? commit : `${commit}.uid-${owner}`);
  await cachedDir(dir, "evidence.json", async (tmp) => {
    await checkout(join(tmp, "tree"));
    const e = await baseEvidence(join(tmp, "tree"), join(tmp, "evidence.git"), join(mirror, "objects"));
    writeFileSync(join(tmp, "evidence.json"), `${JSON.stringify({ tree: e.tree })}\n`);
    if (owner !== null) await runChecked("chown", ["-R", "-P", "--no-dereference", `${owner}:${owner}`, "--", join(tmp, "tree")]);
  });
  const { tree } = JSON.parse(readFileSync(join(dir, "evidence.json"), "utf8")) as { tree: string };
  const store = join(dir, "evidence.git");
  return { tree: join(dir, "tree"), evidence: { store, index: join(store, "evidence.index"), tree } };
}

/**
 * Workspace `w` of an attempt as an overlay of its base checkout, mounted at `workDir/w`. Its upper and
 * work layers are in `workDir/.layers/w` (never bound into a sandbox): the upper layer is what the
 * harness reads to know what changed (src/run/overlay-changes.ts).
 */
export async function overlayWorkspace(
  mirror: string,
  commit: string,
  workDir: string,
  w: WorkspaceName,
  checkout: (dest: string) => Promise<void>,
  owner: number | null = null,
): Promise<EvidenceLayers> {
  const base = await baseCheckout(mirror, commit, checkout, owner);
  // Real paths: the mount table shows these to the agent, and the link RUN_DIR/work/<id> names the run.
  const real = realpathSync(workDir);
  const layers = { lower: base.tree, upper: join(real, ".layers", w, "upper"), work: join(real, ".layers", w, "work") };
  const merged = join(real, w);
  for (const d of [layers.upper, layers.work, merged]) mkdirSync(d, { recursive: true });
  // The merged root takes the upper layer's owner.
  if (owner !== null) chownSync(layers.upper, owner, owner);
  await mountOverlay(layers, merged);
  return { lower: layers.lower, upper: layers.upper, merged, base: base.evidence };
}

/**
 * The attempt's own directories that are bound into its sandbox (HOME, state, shims), each an overlay
 * of an empty layer at `workDir/<name>`: a bind of a plain directory shows its path in the file
 * system in the sandbox's mount table (the cache's work directory); an overlay's root shows as `/`,
 * and its layers are named by descriptor (src/core/overlay.ts). Unmounted with the workspaces.
 */
export async function privateOverlays(workDir: string, names: readonly string[]): Promise<void> {
  const real = realpathSync(workDir);
  for (const name of names) {
    const at = join(real, ".layers", `.${name}`);
    const layers = { lower: join(at, "empty"), upper: join(at, "upper"), work: join(at, "work") };
    for (const d of [...Object.values(layers), join(real, name)]) mkdirSync(d, { recursive: true });
    await mountOverlay(layers, join(real, name));
  }
}

/** Unmounts every mount at or under `dir` (a work directory's overlays, before it is removed). */
export async function unmountUnder(dir: string): Promise<void> {
  if (!existsSync(dir)) return;
  await unmount(...mountsUnder(realpathSync(dir)));
}

/** The attempt's log of how its workspaces were made (and, for copies, why not as overlays). */
export function writeWorkspacesLog(file: string, mode: WorkspaceMode): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(
    file,
    mode.kind === "overlay"
      ? "workspaces: overlay (copy-on-write of a shared read-only base checkout)\n"
      : `workspaces: copy (${mode.reason})\n`,
  );
}
