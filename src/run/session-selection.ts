import { inputError } from "../core/errors.js";
import { parseSessionId, sessionId, type Condition, type SessionPair, type SessionsFile } from "../formats/sessions.js";

export type ConditionChoice = Condition | "both";

export interface SelectedSession {
  session: string;
  pair: SessionPair;
  condition: Condition;
}

/**
 * The sessions a run covers, in a fixed order: pairs as listed in the sessions file, the uninterrupted
 * session before the switched one. `--session` ids must exist in the file and fit `--condition`.
 */
export function selectSessions(file: SessionsFile, condition: ConditionChoice, ids: readonly string[] | null): SelectedSession[] {
  const conditions: Condition[] = condition === "both" ? ["base", "switch"] : [condition];
  const all = file.pairs.flatMap((pair) => conditions.map((c) => ({ session: sessionId(pair.id, c), pair, condition: c })));
  if (ids === null) return all;
  const wanted = new Set<string>();
  for (const id of ids) {
    const parsed = parseSessionId(id);
    if (!parsed || !file.pairs.some((p) => p.id === parsed.pairId)) {
      throw inputError("--session", "", `"${id}" is not a session of the sessions file (ids are <focus>.base or <focus>.switch)`);
    }
    if (!conditions.includes(parsed.condition)) throw inputError("--session", "", `"${id}" is excluded by --condition ${condition}`);
    wanted.add(id);
  }
  return all.filter((s) => wanted.has(s.session));
}
