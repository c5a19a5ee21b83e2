import pLimit from "p-limit";

/**
 * Maps `fn` over `items` with at most `concurrency` running at once, started in order; results keep
 * the items' order. The one bounded pool of the project (runs, verifications, qualification, reports).
 */
export async function mapPool<T, R>(items: readonly T[], concurrency: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const limit = pLimit(Math.max(1, concurrency));
  return Promise.all(items.map((item, i) => limit(() => fn(item, i))));
}
