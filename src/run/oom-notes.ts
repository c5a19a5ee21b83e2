import type { ProcessCgroup } from "../confine/cgroups.js";
import { formatSize, type Limits } from "../confine/limits.js";
import type { Conversation } from "../agents/types.js";

/**
 * A conversation whose request results say when the session's memory limit was hit: the kernel's
 * OOM killer ended processes of the group during the request. The outcome stays the agent's (a
 * killed agent fails, an agent that survived the loss of a child yielded); the detail says why.
 */
export function withOomNotes(inner: Conversation, cgroup: ProcessCgroup, limits: Limits): Conversation {
  return {
    send: async (req, onEvent) => {
      const before = cgroup.oomKills();
      const result = await inner.send(req, onEvent);
      const killed = cgroup.oomKills() - before;
      if (killed <= 0) return result;
      const limit = limits.memory === null ? "the memory limit" : `the memory limit (${formatSize(limits.memory)})`;
      const note = `out of memory: ${limit} was reached; the kernel killed ${killed} process${killed === 1 ? "" : "es"} of the session`;
      return { ...result, detail: result.detail ? `${note}; ${result.detail}` : note };
    },
    close: () => inner.close(),
  };
}
