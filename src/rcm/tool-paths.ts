/** Argument names under which the agent CLIs' file tools name a path (OpenCode, Claude Code, Gemini CLI, Codex). */
const pathKeys = ["filePath", "path", "file_path", "notebook_path", "absolute_path", "dir_path"];

/** Files named in an apply_patch text (`*** Add|Update|Delete File: PATH`, OpenCode's patchText and Codex's apply_patch input). */
export function patchPaths(text: string): string[] {
  return [...text.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm)].map((m) => m[1]!.trim());
}

/** Paths named by a tool call's input, whichever host made it: the state memory's files and the router's evidence. */
export function toolInputPaths(input: unknown): string[] {
  if (typeof input === "string") return patchPaths(input);
  if (!input || typeof input !== "object") return [];
  const o = input as Record<string, unknown>;
  const out: string[] = [];
  for (const k of pathKeys) if (typeof o[k] === "string") out.push(o[k]);
  for (const k of ["patchText", "input", "patch"]) if (typeof o[k] === "string") out.push(...patchPaths(o[k]));
  return out;
}
