/**
 * Interruption n (1–4) of a session: its task's place among the session's interruption tasks by first
 * appearance in the schedule. The one numbering of the page and of the ATIF export (which imports it from
 * here: the page's modules may import only their siblings).
 */
export function interruptionNumber(steps: ReadonlyArray<{ task: string; role: string }>, task: string): number | null {
  const seen: string[] = [];
  for (const s of steps) if (s.role === "interruption" && !seen.includes(s.task)) seen.push(s.task);
  const i = seen.indexOf(task);
  return i < 0 ? null : i + 1;
}
