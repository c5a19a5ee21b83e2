/**
 * The context-bound model's answer to RCM's state-writing call (src/rcm/state-writer.ts): a state
 * written from the batch's labelled messages, as a careful model would, citing them. The goal is the
 * first request's opening sentence; a request's sentences that constrain ("must", "keep", …) are
 * constraints; a request answered by a tool call is progress, citing the request and the call. Nothing
 * is left pending: this model carries out every request it sees.
 */
const line = /^\[([^\]\s]+)\] (user|assistant|tool[^:]*): (.*)$/;
const constraining = /\b(must|should|never|always|only|keep|do not|don't|without)\b/i;

const sentencesOf = (text: string) => text.split(/(?<=[.!?])\s+(?=[A-Z`"'(])/).filter((s) => s.trim() !== "");
const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** True for RCM's state-writing call (its system prompt). */
export function isStateWritingCall(prompt: string): boolean {
  return prompt.includes("You keep the state memory of one task");
}

export function stateWriterAnswer(user: string): string {
  const messages = user.split("\n").flatMap((l) => {
    const m = line.exec(l);
    return m ? [{ id: m[1]!, role: m[2]!, text: m[3]! }] : [];
  });
  const empty = /Current record:\n\(empty\)/.test(user);
  const state = {
    goal: null as null | { text: string; refs: string[] },
    constraints: [] as Array<{ text: string; refs: string[] }>,
    progress: [] as Array<{ text: string; refs: string[] }>,
    pending: [] as never[],
  };
  let request: { id: string; opening: string } | null = null;
  for (const m of messages) {
    if (m.role === "user") {
      const parts = sentencesOf(m.text);
      request = { id: m.id, opening: clip(parts[0] ?? m.text, 120) };
      if (empty && state.goal === null) state.goal = { text: request.opening, refs: [m.id] };
      for (const s of parts.slice(1)) if (constraining.test(s)) state.constraints.push({ text: clip(s, 140), refs: [m.id] });
    } else if (m.role.startsWith("tool") && request && !state.progress.some((p) => p.refs[0] === request!.id)) {
      state.progress.push({ text: `Carried out: ${request.opening}`, refs: [request.id, m.id] });
    }
  }
  return JSON.stringify(state);
}
