/**
 * `value` with every occurrence of each path of `names` (absolute paths of this machine) in its strings
 * replaced by the name given for it: what is shared (a report, an exported trajectory) names run
 * directories and files, not the layout (user names, mount points) of the machine that made it.
 */
export function replacePaths<T>(value: T, names: ReadonlyMap<string, string>): T {
  // Longest first, so a path inside another is replaced whole.
  const order = [...names.keys()].filter((p) => p !== "").sort((a, b) => b.length - a.length);
  const scrub = (s: string): string => order.reduce((acc, p) => (acc.includes(p) ? acc.split(p).join(names.get(p)!) : acc), s);
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return scrub(v);
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === "object" && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}
