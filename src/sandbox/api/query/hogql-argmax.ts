/**
 * ClickHouse's argMax(value, by) as an SQLite aggregate, for the sandbox's HogQL: the value on
 * the row whose `by` is largest (the first such row on a tie, where ClickHouse takes any).
 */
import type { Database } from '../../../sqlite/database.js';

/** The SQL name the compiler writes for argMax. */
export const ARGMAX_SQL = 'hogql_argmax';

interface Best {
  value: unknown;
  by: number | string | bigint | null;
}

export function registerArgMax(db: Database): void {
  db.aggregate(ARGMAX_SQL, {
    start: (): Best => ({ value: null, by: null }),
    step: (best: Best, ...args: unknown[]): Best => {
      const [value, by] = args as [unknown, Best['by']];
      return by !== null && (best.by === null || by > best.by) ? { value, by } : best;
    },
    result: (best: Best) => best.value as never,
  });
}
