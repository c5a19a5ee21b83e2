import { confineModes, confineBackend } from "../confine/registry.js";
import { sessionQueue, verifyQueue } from "./keys.js";

/** What the worker's owner allowed jobs to ask for beyond the default confinement (`worker --allow-…`). */
export interface ConfinementFloor {
  /** `--allow-unconfined`: agents and test runs with no sandbox (`--sandbox none`), as the worker's user. */
  unconfined: boolean;
  /** `--allow-network`: agents with the machine's network (`--network on`), Redis and the LAN included. */
  network: boolean;
}

/** False for a mode whose backend does not confine (`none`); an unknown mode is the processor's to refuse. */
function confining(mode: unknown): boolean {
  if (typeof mode !== "string" || !confineModes().includes(mode)) return true;
  return confineBackend(mode).confines;
}

/**
 * Why this worker will not run the (authenticated) job: it asks for less confinement than the worker
 * allows; null when it does not. A signed job is what a coordinator holding the secret issued, but the
 * worker's owner, not the coordinator, decides whether code runs as root outside a sandbox on this machine.
 * Mining and qualification jobs carry no confinement: their test runs use the worker's own.
 */
export function confinementRefusal(queue: string, data: Record<string, unknown>, floor: ConfinementFloor): string | null {
  const sandbox = data.sandbox;
  if (queue === sessionQueue) {
    const s = sandbox as { mode?: unknown; network?: unknown } | null | undefined;
    if (!floor.unconfined && (s === null || (s !== undefined && !confining(s.mode)))) {
      return `the job runs its agent with no sandbox (sandbox: ${s === null ? "none" : String(s.mode)}), which this worker refuses unless started with --allow-unconfined`;
    }
    if (!floor.network && s?.network === true) {
      return "the job gives its agent the machine's network (--network on), which this worker refuses unless started with --allow-network";
    }
  }
  if (queue === verifyQueue && !floor.unconfined && !confining(sandbox)) {
    return `the job runs the held-out tests with no sandbox (sandbox: ${String(sandbox)}), which this worker refuses unless started with --allow-unconfined`;
  }
  return null;
}
