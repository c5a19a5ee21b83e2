/**
 * Test ids that cannot be stable: a parametrized id whose parameters hold the time, a memory
 * address, a temporary path or a random identifier differs from run to run (or machine to
 * machine), so no verifier can ever find it again. Pure functions.
 */

const generatedPatterns: Array<{ what: string; re: RegExp }> = [
  { what: "a date", re: /\d{4}-\d{2}-\d{2}/ },
  // With its fraction of a second: a bare H:MM:SS is as often a duration a test formats (click's
  // `test_progressbar_format_eta[30-00:00:30]`, stable on every run) as a clock reading. A clock time
  // without fraction or date is still caught when it changes between qualification runs.
  { what: "a time of day", re: /\d{1,2}:\d{2}:\d{2}[.,]\d{3,}/ },
  // A 64-bit address has 9 to 16 hex digits (0x7f3a2b1c9d80, 0x1046c3d90 on macOS); a test's own hex
  // literal rarely has more than 8 (IPython's `test_evaluates_literals[...-0xdeedbeef-3740122863]`).
  { what: "a memory address", re: /0x[0-9a-fA-F]{9,}(?![0-9a-fA-F])/ },
  { what: "an object repr", re: /object at /i },
  { what: "a UUID", re: /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i },
  { what: "a temporary path", re: /\/tmp\/|pytest-of-|\/var\/folders\//i },
  { what: "a Unix timestamp", re: /(?<!\d)1[6-9]\d{8}(?:\.\d+)?(?!\d)/ },
];

/** The parameter part of a test id (`test_x[a-b]` → `a-b`), or null when it is not parametrized. */
export function paramsOf(id: string): string | null {
  const open = id.indexOf("[");
  return open >= 0 && id.endsWith("]") ? id.slice(open + 1, -1) : null;
}

/** Why a test id looks generated (its parameters hold a time, an address, ...) and the text that looks so, or null. */
export function generatedMatch(id: string): { why: string; text: string } | null {
  const params = paramsOf(id);
  if (params === null) return null;
  for (const p of generatedPatterns) {
    const m = p.re.exec(params);
    if (m) return { why: `its parameters hold ${p.what}`, text: m[0] };
  }
  return null;
}

/** Why a test id looks generated (its parameters hold a time, an address, ...), or null. */
export function generatedLook(id: string): string | null {
  return generatedMatch(id)?.why ?? null;
}

/**
 * Ids that change between runs: a parametrized id that some run did not report although that run
 * reported its test function (under other parameters). `runs` are the reported id sets of every
 * run, of both states. With one run per state, an id reported in only one state counts only when
 * it also looks generated (a reference may legitimately add parameter cases).
 */
export function changingIds(runsWithout: ReadonlyArray<ReadonlySet<string>>, runsWith: ReadonlyArray<ReadonlySet<string>>): string[] {
  const fn = (id: string) => id.slice(0, id.indexOf("["));
  const fnsOf = (ids: ReadonlySet<string>) => new Set([...ids].filter((id) => paramsOf(id) !== null).map(fn));
  const all = [...runsWithout, ...runsWith];
  const fnSets = all.map(fnsOf);
  const universe = new Set(all.flatMap((s) => [...s]));
  const out: string[] = [];
  for (const id of universe) {
    if (paramsOf(id) === null) continue;
    const f = fn(id);
    const inconsistentWithin = [runsWithout, runsWith].some(
      (group, g) =>
        group.some((s, i) => !s.has(id) && fnSets[g === 0 ? i : runsWithout.length + i]!.has(f)) && group.some((s) => s.has(id)),
    );
    const inconsistentAcross = all.some((s, i) => !s.has(id) && fnSets[i]!.has(f));
    if (inconsistentWithin || (inconsistentAcross && generatedLook(id) !== null)) out.push(id);
  }
  return out.sort();
}
