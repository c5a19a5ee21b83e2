import { testIdFile } from "../dataset/test-id-paths.js";
import type { AuditFinding } from "../formats/audit.js";
import { finding, listed } from "./finding.js";

/**
 * A stage's F2P ids grouped by their test module, in the order given: each group is run by itself,
 * so a test that leans on another module's or another test's side effect loses it.
 */
export function moduleGroups(ids: readonly string[]): string[][] {
  const groups = new Map<string, string[]>();
  for (const id of ids) {
    const file = testIdFile(id) ?? id;
    groups.set(file, [...(groups.get(file) ?? []), id]);
  }
  return [...groups.values()];
}

/**
 * `order-dependent` for stage `k`: an F2P id whose verdict in the run of the touched modules
 * (`withSuite`) differs from its verdict when its module's F2P ids run alone (`alone`; undefined when
 * that run could not be used, then the id is not judged). Pure.
 */
export function orderDependence(
  k: number,
  ids: readonly string[],
  withSuite: (id: string) => boolean,
  alone: (id: string) => boolean | undefined,
): AuditFinding[] {
  const judged = ids.filter((id) => alone(id) !== undefined);
  const onlyWith = judged.filter((id) => withSuite(id) && alone(id) === false);
  const onlyAlone = judged.filter((id) => !withSuite(id) && alone(id) === true);
  const out: AuditFinding[] = [];
  if (onlyWith.length > 0) {
    out.push(finding("order-dependent", k, `${onlyWith.length} F2P pass only with other tests`, listed(onlyWith)));
  }
  if (onlyAlone.length > 0) {
    out.push(finding("order-dependent", k, `${onlyAlone.length} F2P pass only when run alone`, listed(onlyAlone)));
  }
  return out;
}
