import { dirname } from "node:path";
import type { AgentContext } from "./types.js";

/**
 * The directory that holds a session's five workspaces. CLI agents run there: the CLIs tie a
 * conversation to the directory it started in (resuming from another one fails or hangs), and every
 * request names the absolute path of its workspace anyway.
 */
export function sessionRoot(ctx: AgentContext, agent: string): string {
  const roots = new Set(Object.values(ctx.workspaces).map((p) => dirname(p)));
  if (roots.size !== 1) throw new Error(`${agent}: the workspaces do not share one parent directory: ${[...roots].join(", ")}`);
  return [...roots][0]!;
}
