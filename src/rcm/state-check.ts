/**
 * The check of a model-written state item's source references (docs/rcm.md, "Model-written state"):
 * pure, deterministic, no model. An item is used only when every message it cites exists in the
 * conversation, belongs to the item's task, and together they say it.
 */

/** A message of the conversation, as the reference check sees it. */
export interface CitedMessage {
  /** The task(s) its group belongs to (its router task and the tasks it also spans). */
  tasks: readonly string[];
  role: "user" | "assistant" | "tool";
  text: string;
}

export type RefProblem = "no reference" | "unknown message" | "message of another task" | "the messages do not say it";

/** Words too common to show that a message says something. */
const common = new Set(
  "also about after again been before being both could does done each from have into just like made make more most must need only other over same should some such than that their them then there these they this those under very were what when where which while will with would your task request user code file files work change changes changed please".split(
    " ",
  ),
);

/** The first five letters stand for a word ("rounding", "rounds" → "round"): inflections match, nothing else is guessed. */
const stem = (w: string) => w.slice(0, 5);

/** Words of at least four letters (parts of identifiers and paths too), lowercased, common ones left out. */
function words(text: string): string[] {
  const split = text.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
  return (split.match(/[a-z][a-z0-9]{3,}/g) ?? []).filter((w) => !common.has(w));
}

/** The item's key words, as stems, without repeats. */
export function keyWords(text: string): string[] {
  return [...new Set(words(text).map(stem))];
}

/**
 * "Says it": at least half of the item's key words (rounded up) occur, by their first five letters, in
 * the cited messages' text. An item with no key word ("done") says nothing checkable and fails.
 */
export function saysIt(item: string, cited: readonly string[]): boolean {
  const keys = keyWords(item);
  if (keys.length === 0) return false;
  const present = new Set(cited.flatMap((t) => words(t).map(stem)));
  const found = keys.filter((k) => present.has(k)).length;
  return found >= Math.ceil(keys.length / 2);
}

/** Why the item's references do not hold, or null when they do. */
export function checkRefs(
  item: string,
  refs: readonly string[],
  task: string,
  messages: ReadonlyMap<string, CitedMessage>,
): RefProblem | null {
  if (refs.length === 0) return "no reference";
  const cited: CitedMessage[] = [];
  for (const r of refs) {
    const m = messages.get(r);
    if (!m) return "unknown message";
    if (!m.tasks.includes(task)) return "message of another task";
    cited.push(m);
  }
  return saysIt(
    item,
    cited.map((m) => m.text),
  )
    ? null
    : "the messages do not say it";
}
